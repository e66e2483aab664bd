// Writes the append-only run journal (its records: src/bulk/journal/records.ts; reading it:
// src/bulk/journal/load.ts). Each record is one write(2) of whole lines, so a kill -9 leaves whole
// lines; a power cut can tear the last one, which reading ignores.
//
// A full disk must never put a batch in doubt (docs/unattended.md, design notes): a
// "send" line that cannot be written is cut back off and its batch does not leave; once space
// has run out no batch leaves at all; and the answers of the batches already in flight are
// written into the room a reserve file next to the journal gave back (src/bulk/journal/reserve.ts),
// or, if even that is gone, held until there is room again.
import { closeSync, fdatasync, fdatasyncSync, fsyncSync, fstatSync, ftruncateSync, openSync, readFileSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DiskReserve } from './reserve.js';
import { doneLine, isAnswered, OUTCOME_STATE, sendLine, type DoneRecord, type RunHeader, type SendRecord } from './records.js';

/** This boot of the machine (Linux), undefined where it cannot be told. */
let thisBoot: string | null | undefined;
export function bootId(): string | undefined {
  if (thisBoot === undefined) {
    try {
      thisBoot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
    } catch {
      thisBoot = null;
    }
  }
  return thisBoot ?? undefined;
}


/** The file system is full (or the user's quota is): not a bug, and never a reason for doubt. */
export function isNoSpace(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** A batch was not sent because its "send" line could not be written: the disk is full. */
export class DiskFullError extends Error {
  override readonly name = 'DiskFullError';
  /** The folder that ran out of space. */
  readonly folder: string;
  constructor(folder: string, cause?: unknown) {
    super(`no space left in ${folder}`, cause === undefined ? undefined : { cause });
    this.folder = folder;
  }
}


/**
 * Journal flushes run side by side on libuv's thread pool (4 threads unless UV_THREADPOOL_SIZE
 * says otherwise): one is left for the other file work of the run (reading the spool).
 */
const MAX_FLUSHES = 3;


/** Appends records; `send` records are flushed to disk before returning. */
export class Journal {
  readonly path: string;
  #fd: number;
  #dirty = false;
  /** Bytes of whole records in the file: a write cut short by a full disk is cut back to this. */
  #size: number;
  #torn = false;
  #reserve: DiskReserve | undefined;
  /** Space ran out once: no batch may leave any more. */
  #full = false;
  /** "done" records that found no room even after the reserve was given back. */
  readonly #held: string[] = [];
  /** The run's clock (the Context's): every record is stamped with it. */
  readonly #now: () => Date;
  /**
   * A journal this process created: per batch, whether its latest record is a final answer, as
   * loadJournal reads the file (isAnswered), and how many are; undefined for one it appends to.
   */
  #answered: Uint8Array | undefined;
  #answeredCount = 0;
  /** The "at" of the latest final answer written, as loadJournal's lastAnswerAt. */
  #lastAnswerAt: string | undefined;

  private constructor(path: string, fd: number, size: number, now: () => Date) {
    this.path = path;
    this.#fd = fd;
    this.#size = size;
    this.#now = now;
  }

  /**
   * A new journal (replacing any file there) starting with the header, flushed. Written aside
   * and renamed into place, so a crash never leaves a journal without its header.
   */
  static create(path: string, header: RunHeader, now: () => Date): Journal {
    const tmp = `${path}.new`;
    const fd = openSync(tmp, 'w', 0o600);
    const j = new Journal(path, fd, 0, now);
    j.#answered = new Uint8Array(header.totals.requests);
    try {
      j.#write(header);
      j.#writeBoot();
      j.sync();
      renameSync(tmp, path);
    } catch (err) {
      closeSync(fd);
      rmSync(tmp, { force: true });
      throw err;
    }
    syncDir(dirname(path));
    return j;
  }

  /** Opens for appending; a torn last line is closed with a newline first. */
  static append(path: string, now: () => Date): Journal {
    const fd = openSync(path, 'a+', 0o600);
    let size = fstatSync(fd).size;
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) size += writeSync(fd, '\n');
    }
    const j = new Journal(path, fd, size, now);
    j.#writeBoot();
    return j;
  }

  /** The boot record: "send" lines after it were written in this boot of the machine. */
  #writeBoot(): void {
    const id = bootId();
    if (id !== undefined) this.#write({ type: 'boot', id });
  }

  /**
   * Batch k's last attempt provably did not take (an answer asking for a retry, or a failure
   * before it left) and it waits to try again: a "wait" line, unflushed like "out", so a kill -9
   * now leaves it never sent rather than in doubt. Not written for want of space: then the batch
   * stays as it was (in doubt after a kill -9), which is the safe side.
   */
  waiting(batch: number): void {
    if (this.#full) return;
    try {
      this.#writeLine(`{"type":"wait","batch":${batch}}\n`);
      this.#dirty = true;
      this.#out.delete(batch);
    } catch (err) {
      if (!isNoSpace(err)) throw err;
    }
  }

  /**
   * Batch k's request is leaving: its "out" line, written (to the page cache, which outlives the
   * process) before the request goes. Throws when it cannot be written: then the batch must not
   * leave, and is not in doubt.
   */
  leaving(batch: number): void {
    this.leavingAll([batch]);
  }

  /**
   * The same for the batches that leave together at the end of a turn of the event loop: their
   * "out" lines and the answers of the turn go in one write(2), not one per request (with a
   * message per row, a write per request cost 10-15 % of the run: docs/performance.md).
   * Throws when the lines cannot be written: then none of these batches may leave.
   */
  leavingAll(batches: readonly number[]): void {
    if (this.#full) throw new DiskFullError(dirname(this.path));
    let outs = '';
    for (const batch of batches) outs += `{"type":"out","batch":${batch}}\n`;
    // Nothing is held back while there is room (#full is false), so the answers may go first.
    const answers = this.#answers;
    this.#answers = [];
    try {
      this.#writeLine(answers.length > 0 ? answers.join('') + outs : outs);
      for (const batch of batches) this.#out.add(batch);
    } catch (err) {
      // A write goes in whole or is cut back: the answers wait for a write of their own.
      this.#answers = answers.concat(this.#answers);
      if (!isNoSpace(err)) throw err;
      this.#ranOut();
      this.#writeAnswers();
      throw new DiskFullError(dirname(this.path), err);
    }
    this.#dirty = true;
  }

  /** The reserve given back when a write finds the disk full. */
  useReserve(reserve: DiskReserve): void {
    this.#reserve = reserve;
  }

  /** Space ran out during this run: no new batch may be sent. */
  get full(): boolean {
    return this.#full;
  }

  /** Batches whose "out" line is written and whose answer (or wait) is not yet handed in. */
  readonly #out = new Set<number>();

  /**
   * The process is about to exit at once (a second Ctrl-C): the answers of this turn are written
   * now, not at its end. True when a batch would then be in doubt in the journal: its request
   * left and no answer of it is written (bulk/journal/load.ts reads it so).
   */
  quitNow(): boolean {
    try {
      this.#writeAnswers();
    } catch {
      // Not written: those batches are in doubt, as said below.
    }
    return this.#out.size > 0 || this.#answers.length > 0 || this.#held.length > 0;
  }

  /** Answers written nowhere yet, for want of space (see settle). */
  get held(): number {
    return this.#held.length;
  }

  started(rec: Omit<SendRecord, 'type' | 'at'>): void {
    this.#unanswered(rec.batch);
    this.#writeLine(sendLine(rec, this.#at()));
    this.sync();
  }

  /**
   * The same, with the flush off the main thread: resolves once the record is on disk. Group
   * commit: waiting "send" lines go out in ONE write(2) covered by ONE fdatasync, which starts
   * at the end of the turn of the event loop once the group holds `commitAt` recipients (default
   * 1: this turn), or at once when a batch in it is needed (need()). Up to MAX_FLUSHES run side
   * by side; a flush covers every line written before it started. With a message per row (one
   * recipient per request, 16 in flight) the wait for the journal was two thirds of a request's
   * time when each flush waited for the one before (mean 5.2–5.4 ms against 2.4–2.7 ms with
   * flushes side by side); and a flush per turn, ~16,000 per 100,000 requests, cost a quarter of
   * the run's time in the kernel, where groups of half the batches journaled ahead need ~2,800
   * (docs/performance-history.md: "Personalised messages"). Throws DiskFullError, with nothing of the
   * record left behind, when the disk is full: the batch must not leave.
   */
  startedDurably(rec: Omit<SendRecord, 'type' | 'at'>, commitAt = 1): Promise<void> {
    if (this.#full) return Promise.reject(new DiskFullError(dirname(this.path)));
    this.#unanswered(rec.batch);
    const line = sendLine(rec, this.#at());
    return new Promise<void>((resolve, reject) => {
      this.#queued.push(line);
      this.#waiting.push({ batch: rec.batch, resolve, reject });
      this.#queuedRecipients += rec.count;
      if (this.#queuedRecipients >= commitAt) this.#schedule();
    });
  }

  /**
   * Batch k is about to leave: if its "send" line still waits for its group, the group is
   * committed now (a line already in a flush under way just waits for that flush).
   */
  need(batch: number): void {
    if (this.#waiting.some((w) => w.batch === batch)) this.#schedule();
  }

  /** "send" lines waiting for the next group commit, and their batches. */
  #queued: string[] = [];
  #waiting: Array<{ readonly batch: number; readonly resolve: () => void; readonly reject: (err: unknown) => void }> = [];
  #queuedRecipients = 0;
  #scheduled = false;
  /** A group is due (a batch in it is needed, or it is big enough) but every flush was busy. */
  #due = false;
  /** Flushes under way. */
  #flushes = 0;

  /** The next turn of the event loop commits, so the batches released by the same answers share it. */
  #schedule(): void {
    if (this.#scheduled) return;
    if (this.#flushes >= MAX_FLUSHES) {
      this.#due = true;
      return;
    }
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#commit();
    });
  }

  /**
   * Writes the waiting lines as one whole piece (a full disk cuts all of it back off, so none of
   * those batches leaves) and flushes it; the batches leave when the flush is done.
   */
  #commit(): void {
    // Answers first: they are written whatever happens to the group.
    this.#writeAnswers();
    const waiting = this.#waiting;
    if (waiting.length === 0) return;
    const lines = this.#queued;
    this.#queued = [];
    this.#waiting = [];
    this.#queuedRecipients = 0;
    this.#due = false;
    const refuse = (err: unknown): void => {
      for (const w of waiting) w.reject(err);
    };
    if (this.#full) {
      refuse(new DiskFullError(dirname(this.path)));
      return;
    }
    try {
      this.#writeLine(lines.join(''));
    } catch (err) {
      if (!isNoSpace(err)) {
        refuse(err);
        return;
      }
      this.#ranOut();
      refuse(new DiskFullError(dirname(this.path), err));
      return;
    }
    this.#flushes++;
    // What is written from here on (answers, the next group) needs a later flush.
    this.#dirty = false;
    fdatasync(this.#fd, (err) => {
      this.#flushes--;
      if (err === null) {
        for (const w of waiting) w.resolve();
      } else if (!isNoSpace(err)) {
        this.#dirty = true;
        refuse(err);
      } else {
        // A file system that allocates at flush time (ext4, XFS) says so only now, and the lines
        // may be in the file: each is closed as not sent, so a resume sends the batch.
        this.#ranOut();
        for (const w of waiting) this.done({ batch: w.batch, outcome: 'not-sent', error: 'not sent: the disk is full' });
        refuse(new DiskFullError(dirname(this.path), err));
      }
      // A group that came due while every flush was busy goes now.
      if (this.#due && !this.#scheduled) this.#commit();
    });
  }

  /** Records an answer. On a full disk it takes the reserve's room, or is held (see settle). */
  done(rec: Omit<DoneRecord, 'type' | 'at'>): void {
    this.#out.delete(rec.batch);
    this.#writeAnswers();
    const line = this.#doneLine(rec);
    if (this.#held.length === 0 && this.#tryWrite(line)) return;
    this.#held.push(line);
  }

  /**
   * The same, written with the other answers of this turn of the event loop in one write(2) as
   * the turn ends (or before the next group of "send" lines). A kill -9 within the turn loses
   * them: their batches are then in doubt, as when it comes a moment before the answer.
   */
  answered(rec: Omit<DoneRecord, 'type' | 'at'>): void {
    this.#out.delete(rec.batch);
    this.#answers.push(this.#doneLine(rec));
    this.#endOfTurn();
  }

  /**
   * Runs `fn` as this turn of the event loop ends, before its answers are written: the sender
   * sends the batches that got a slot in the turn from there, and their "out" lines carry the
   * answers in the same write (leavingAll).
   */
  atEndOfTurn(fn: () => void): void {
    this.#turnEnds.push(fn);
    this.#endOfTurn();
  }

  #endOfTurn(): void {
    if (this.#turnScheduled) return;
    this.#turnScheduled = true;
    setImmediate(() => {
      this.#turnScheduled = false;
      const fns = this.#turnEnds;
      this.#turnEnds = [];
      for (const fn of fns) fn();
      this.#writeAnswers();
    });
  }

  /** Answers waiting for the end of the turn (answered), and what runs then (atEndOfTurn). */
  #answers: string[] = [];
  #turnEnds: Array<() => void> = [];
  #turnScheduled = false;

  #doneLine(rec: Omit<DoneRecord, 'type' | 'at'>): string {
    const at = this.#at();
    const answered = isAnswered(OUTCOME_STATE[rec.outcome]);
    if (answered) this.#lastAnswerAt = at;
    const was = this.#answered?.[rec.batch];
    if (this.#answered !== undefined && was !== undefined && was !== (answered ? 1 : 0)) {
      this.#answered[rec.batch] = answered ? 1 : 0;
      this.#answeredCount += answered ? 1 : -1;
    }
    return doneLine(rec, at);
  }

  /** A "send" line: its batch is in flight again, whatever answered it before. */
  #unanswered(batch: number): void {
    if (this.#answered?.[batch] !== 1) return;
    this.#answered[batch] = 0;
    this.#answeredCount--;
  }

  /**
   * When this process created the journal and every batch's latest record in it is a final
   * answer, all of them written: when its last answer came (what loadJournal says of the closed
   * file, without reading it); else undefined.
   */
  finished(): { readonly finishedAt: string | undefined } | undefined {
    if (this.#answered === undefined || this.#answeredCount !== this.#answered.length) return undefined;
    if (this.#held.length > 0 || this.#answers.length > 0) return undefined;
    return { finishedAt: this.#lastAnswerAt };
  }

  #lastMs = Number.NaN;
  #lastAt = '';

  /** The run's clock as a record's "at": formatted once a millisecond (~10 records each, a message per row). */
  #at(): string {
    const now = this.#now();
    const ms = now.getTime();
    if (ms !== this.#lastMs) {
      this.#lastMs = ms;
      this.#lastAt = now.toISOString();
    }
    return this.#lastAt;
  }

  #writeAnswers(): void {
    if (this.#answers.length === 0) return;
    const lines = this.#answers;
    this.#answers = [];
    if (this.#held.length === 0 && this.#tryWrite(lines.join(''))) return;
    this.#held.push(...lines);
  }

  /**
   * Writes the answers held for want of space, retrying every second until there is room; says
   * once, through `waiting`, where room is needed. Returns at once when nothing is held.
   */
  async settle(waiting: (folder: string, records: number) => void, signal?: AbortSignal): Promise<void> {
    this.#writeAnswers();
    let told = false;
    while (this.#held.length > 0) {
      const line = this.#held[0] as string;
      try {
        this.#writeLine(line);
        this.#held.shift();
        this.#dirty = true;
        continue;
      } catch (err) {
        if (!isNoSpace(err)) throw err;
      }
      if (!told) waiting(dirname(this.path), this.#held.length);
      told = true;
      if (signal?.aborted === true) return;
      await new Promise((r) => setTimeout(r, 1_000));
    }
    if (this.#dirty) {
      this.#dirty = false;
      await new Promise<void>((resolve) => {
        fdatasync(this.#fd, () => resolve());
      });
    }
  }

  /** For people; a full disk only costs the line. */
  /** How the process ended; `also`: what a reason carries (a --limit stop, its limit). */
  stop(reason: string, also?: Readonly<Record<string, unknown>>): void {
    this.#writeAnswers();
    if (!this.#tryWrite(`${JSON.stringify({ type: 'stop', reason, ...also, at: this.#at() })}\n`)) return;
    try {
      this.sync();
    } catch (err) {
      if (!isNoSpace(err)) throw err;
    }
  }

  sync(): void {
    fdatasyncSync(this.#fd);
    this.#dirty = false;
  }

  close(): void {
    if (this.#fd < 0) return;
    try {
      this.#writeAnswers();
      if (this.#dirty) this.sync();
    } catch (err) {
      if (!isNoSpace(err)) throw err;
    } finally {
      closeSync(this.#fd);
      this.#fd = -1;
    }
  }

  /** Space ran out: nothing more leaves, and the reserve's room goes to the answers. */
  #ranOut(): void {
    this.#full = true;
    this.#reserve?.release();
  }

  /** Writes whole lines; false when the disk is full even after the reserve was given back. */
  #tryWrite(lines: string): boolean {
    try {
      this.#writeLine(lines);
      this.#dirty = true;
      return true;
    } catch (err) {
      if (!isNoSpace(err)) throw err;
    }
    const had = this.#reserve?.held === true;
    this.#ranOut();
    if (!had) return false;
    try {
      this.#writeLine(lines);
      this.#dirty = true;
      return true;
    } catch (err) {
      if (!isNoSpace(err)) throw err;
      return false;
    }
  }

  #write(record: object): void {
    this.#writeLine(`${JSON.stringify(record)}\n`);
  }

  /** One whole line or nothing: a write cut short is cut back off, so no line is ever torn. */
  #writeLine(line: string): void {
    // A piece that could not be cut back off is ended first, so this line stands on its own.
    const buf = Buffer.from(this.#torn ? `\n${line}` : line, 'utf8');
    let off = 0;
    try {
      // At the known end, not the file position: after a cut the two differ (the journal is
      // created with 'w', not in append mode).
      while (off < buf.length) off += writeSync(this.#fd, buf, off, buf.length - off, this.#size + off);
    } catch (err) {
      if (off > 0) {
        try {
          ftruncateSync(this.#fd, this.#size);
        } catch {
          this.#size += off;
          this.#torn = true;
        }
      }
      throw err;
    }
    this.#size += buf.length;
    this.#torn = false;
  }
}

/** Makes a rename durable (POSIX); not possible on Windows, where it is skipped. */
function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Best effort.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
