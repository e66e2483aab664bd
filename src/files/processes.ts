// Whether another process lives, for the owners of locks (src/files/lock.ts) and of partial
// files: by its id, and on Linux by its state and its start (/proc/PID/stat, proc(5)).
import { readFileSync } from 'node:fs';

/** The fields of /proc/PID/stat after the process's name (Linux; undefined elsewhere). */
function procStat(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** When the process started, in clock ticks since boot (field 22 of /proc/PID/stat). */
export function procStartOf(pid: number): string | undefined {
  return procStat(pid)?.[19];
}

/**
 * Whether the process `pid`, known to exist, holds what it took: not a zombie (one killed with its
 * parent is a zombie until PID 1 reaps it: seconds here, never in a container whose PID 1 does not
 * reap), and, with `procStart`, still the process that started then (a killed holder's pid can be
 * another process's within seconds where pid_max is 32,768). Unknown (not Linux): yes.
 */
export function stillThatProcess(pid: number, procStart?: string): boolean {
  const fields = procStat(pid);
  if (fields === undefined) return true;
  const state = fields[0];
  if (state === 'Z' || state === 'X') return false;
  return procStart === undefined || fields[19] === undefined || fields[19] === procStart;
}
