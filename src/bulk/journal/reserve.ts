// Room kept for the answers of the batches in flight when the disk fills (docs/design.md: "Choices", a reserve for a full disk):
// a file of real bytes next to the journal, given back the moment the journal cannot write; and
// the room a stopped run needs before it can resume, which a full disk's message names.
import { randomBytes } from 'node:crypto';
import { closeSync, fdatasyncSync, openSync, readdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { InterruptedError, UsageError, type MsgrError } from '../../errors.js';
import { formatBytes } from '../../output/count.js';

/**
 * Room kept for the answers of the batches in flight when the disk fills: ~700 bytes each, plus
 * the message ids of an accepted batch (~40 bytes a recipient). At most 64 in flight: 1 MiB
 * holds them all up to batches of ~300 recipients; past that, answers that do not fit wait for
 * room (Journal.done), never dropped.
 */
export const RESERVE_BYTES = 1024 * 1024;

/**
 * A ballast file of real, incompressible bytes that gives its space back the moment the journal
 * cannot write (docs/design.md: "Choices", a reserve for a full disk). Random bytes because a compressing file system (btrfs,
 * ZFS) would store zeros, or any pattern, in next to nothing; flushed so the blocks are taken.
 */
export class DiskReserve {
  readonly path: string;
  readonly bytes: number;
  #held: boolean;

  private constructor(path: string, bytes: number) {
    this.path = path;
    this.bytes = bytes;
    this.#held = true;
  }

  /** Takes the space now; throws (ENOSPC) when there is not even that much. */
  static take(path: string, bytes = RESERVE_BYTES): DiskReserve {
    const fd = openSync(path, 'w', 0o600);
    try {
      const chunk = randomBytes(Math.min(bytes, 64 * 1024));
      for (let off = 0; off < bytes; ) off += writeSync(fd, chunk, 0, Math.min(chunk.length, bytes - off));
      fdatasyncSync(fd);
    } catch (err) {
      closeSync(fd);
      rmSync(path, { force: true });
      throw err;
    }
    closeSync(fd);
    return new DiskReserve(path, bytes);
  }

  get held(): boolean {
    return this.#held;
  }

  /** Gives the space back; true if there was any to give. */
  release(): boolean {
    if (!this.#held) return false;
    this.#held = false;
    try {
      rmSync(this.path, { force: true });
      return true;
    } catch {
      return false;
    }
  }
}

/** A journal line, generously: what each batch still to send adds to the journal, twice. */
const JOURNAL_LINE_BYTES = 400;

/**
 * The room a resume needs beside the journal: its reserve, the spool its preflight writes again
 * (this run's, or the input's size when there is none to measure) and the lines still to come.
 */
export function spaceToResume(journalPath: string, inputBytes: number, batchesLeft: number): number {
  let spool = 0;
  try {
    const prefix = `${basename(journalPath)}.spool`;
    for (const name of readdirSync(dirname(journalPath))) if (name.startsWith(prefix)) spool += statSync(join(dirname(journalPath), name)).size;
  } catch {
    // Measured below from the input instead.
  }
  return RESERVE_BYTES + Math.max(spool, inputBytes) + batchesLeft * 2 * JOURNAL_LINE_BYTES;
}

/** A report line, generously: line, number, outcome, status, message id and a short error. */
const REPORT_LINE_BYTES = 128;

/**
 * The room a stopped run needs in the folder that filled before it can resume: the journal's
 * (spaceToResume) when that is the journal's folder, and the whole report when the report is
 * written there (a resume writes every row of it again).
 */
export function spaceToResumeIn(folder: string, journalPath: string, reportPath: string | undefined, inputBytes: number, batchesLeft: number, rows: number): number {
  const journal = resolve(folder) === resolve(dirname(journalPath)) ? spaceToResume(journalPath, inputBytes, batchesLeft) : 0;
  const report = reportPath !== undefined && resolve(folder) === resolve(dirname(reportPath)) ? rows * REPORT_LINE_BYTES : 0;
  return journal + report;
}

/** What a full disk's message needs, as far as the run got. */
export interface Where {
  folder?: string;
  inputBytes?: number;
  /** Set once a journal exists: the run is then resumed, not started again. */
  resume?: string;
  /** The send pass began: a full disk from then on stops the run as Ctrl-C does. */
  sending?: boolean;
}

export function noSpaceError(w: Where): MsgrError {
  const folder = w.folder ?? '?';
  const needed = spaceToResume(`${folder}/journal.jsonl`, w.inputBytes ?? 0, 0);
  // Before the send pass nothing left: an environment error (exit 2); during it, a stop (130).
  const ErrorClass = w.sending === true ? InterruptedError : UsageError;
  return new ErrorClass(`no space left in ${folder}: the run stopped${w.resume === undefined ? ' before sending anything' : ', nothing in doubt'}; free at least ${formatBytes(needed)} there, then ${w.resume === undefined ? 'run the same command again' : 'resume'}`, {
    hint: w.resume !== undefined ? `Resume with: ${w.resume}` : 'msgr keeps a reserve there (1 MiB) so that the answers of batches in flight can always be written down.',
  });
}
