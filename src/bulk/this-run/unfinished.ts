// The refusals of a run beside another run of the file (bulk/this-run/open.ts): an unfinished run,
// and what the --restart it offers does as the command stands (docs/reruns.md: "Running a file
// again"); a run another msgr holds the lock of, sending now or stopped (docs/unattended.md:
// "Locks: an overlap, another host, a stopped run").
import { hostname } from 'node:os';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { RunHeader } from '../journal/records.js';
import { FLAG } from '../flag-names.js';
import { resumeBlocked } from './resume-checks.js';
import { heartbeatStopped, type LockOwner, type TakenOver } from '../../files/lock.js';
import { formatAge } from '../../output/count.js';

/** A new run of a file beside its unfinished run (docs/files.md: "Nothing lost, nothing sent twice"). */
/**
 * A refusal decided when the run is opened, in words: thrown then by a send, and by a dry run or
 * preview only after the preflight, which shows what it checked first and puts its figures in the
 * refusal's --json document (bulk/stages/checking.ts). Words, not an Error, so that no error
 * travels between stages.
 */
export interface Refusal {
  readonly message: string;
  readonly hint: string | undefined;
}

/** The usage error (exit 2) that says `r`. */
export function refusalError(r: Refusal): UsageError {
  return new UsageError(r.message, { hint: r.hint });
}

export function unfinishedError(ctx: Context, header: RunHeader, fileAbs: string | undefined, journalPath: string, again: boolean): UsageError {
  return refusalError(unfinishedRefusal(ctx, header, fileAbs, journalPath, again));
}

/** A new run of a file beside its unfinished run: continue it, or abandon it with --restart. */
export function unfinishedRefusal(ctx: Context, header: RunHeader, fileAbs: string | undefined, journalPath: string, again: boolean): Refusal {
  const blocked = resumeBlocked(ctx, header, fileAbs);
  return {
    message: `an unfinished run of this file exists (run ${header.runId}, started ${header.createdAt})`,
    hint:
      blocked !== undefined
        ? `It cannot be continued (${blocked}): abandon it with ${FLAG.restart}${restartDoes(again)}. Journal: ${journalPath}`
        : `Continue it with ${FLAG.resume} (rows already accepted are not sent again), or abandon it with ${FLAG.restart}${restartDoes(again)}. Journal: ${journalPath}`,
  };
}

/**
 * What the offered --restart does with the rows the abandoned run accepted, as this command says
 * (docs/reruns.md: "Running a file again"): --again messages them again; without it, they are
 * left out for the same message, and adding --again sends to them again.
 */
export function restartDoes(again: boolean, keyed = false): string {
  if (keyed) return ` (under the key it leaves out the rows that run accepted${again ? `, ${FLAG.again} or not: a campaign key messages each number once` : ''})`;
  return again
    ? ` (with ${FLAG.again}, it messages every row, those that run accepted too)`
    : ` (for the same message, it leaves out the rows that run accepted; with ${FLAG.again} too, it messages them again)`;
}

/** Another run holds the journal's lock (an overlapping cron job): say who, and what to do. */
export function runningError(lockPath: string, owner: LockOwner | undefined): UsageError {
  if (owner !== undefined && heartbeatStopped(owner)) return stoppedError(lockPath, owner);
  if (owner === undefined) {
    return new UsageError(`another msgr is starting this bulk job (its lock ${lockPath} is being written)`, { hint: `Wait a moment and run the command again with ${FLAG.resume}.` });
  }
  return new UsageError(
    `another msgr is already running this bulk job: pid ${owner.pid} on ${owner.host}, started ${owner.startedAt}${owner.command !== '' ? ` (${owner.command})` : ''}`,
    {
      hint:
        owner.host === hostname()
          ? `Wait for it to finish (or stop it: kill ${owner.pid}); then run again with ${FLAG.resume}. Lock file: ${lockPath}`
          : `It runs on another host; if it is surely not running, delete ${lockPath}.`,
    },
  );
}

/**
 * The run's process is alive on this host but has not touched its lock for longer than a running
 * msgr ever leaves it (docs/unattended.md: "Locks: an overlap, another host, a stopped run"): suspended (Ctrl-Z, SIGSTOP). Its lock
 * is not taken (it would go on sending when continued), and a cron tick does not pass it in
 * silence: exit 2 under -q too.
 */
function stoppedError(lockPath: string, owner: LockOwner): UsageError {
  const age = formatAge(owner.heartbeatAgeMs ?? 0);
  return new UsageError(`the msgr running this bulk job (pid ${owner.pid}, started ${owner.startedAt}${owner.command !== '' ? `, ${owner.command}` : ''}) has been stopped for ${age} (suspended, Ctrl-Z?): nothing is being sent, and this command sent nothing`, {
    hint: `Continue it (fg in its terminal, or kill -CONT ${owner.pid}), or end it (kill ${owner.pid}; a stopped process ends once continued: kill -CONT ${owner.pid} after it), then run this command again to finish the run. Lock file: ${lockPath}`,
  });
}

/** Another host's lock taken over: its heartbeat stopped (the host died or lost the shared folder). */
export function tookOverLine(t: TakenOver): string {
  return `took over this run's lock from msgr pid ${t.owner.pid} on ${t.owner.host} (started ${t.owner.startedAt}): no heartbeat from it for ${formatAge(t.heartbeatAgeMs)}, so that host stopped or lost this folder; this run goes on here. Should that msgr still be running, stop it (kill ${t.owner.pid} on ${t.owner.host})`;
}
