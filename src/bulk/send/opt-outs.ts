// Numbers not to message, as a run started and as they are now (docs/campaigns.md: "Numbers not to
// message"). A run keeps each list's numbers as they were when it started, beside its journal, so
// that a resume rebuilds the same batches from them (the preflight leaves out exactly the numbers
// it left out then), while a number that went on a list since then is left out of every batch
// not yet sent (bulk/send/sender.ts). A number taken off a list since the run started is refused: the
// run was started not to message it, and a resume sends what it started with.
//
// Each list is a source: `--exclude FILE` today (bulk/input/exclude.ts); a store of opt-outs (STOP
// replies) plugs in as another one, with its own `id` (its snapshot's file name) and `name`.
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { UsageError } from '../../errors.js';
import type { Batch } from './batches.js';
import { BatchState, isInDoubt } from '../journal/records.js';
import { loadJournal } from '../journal/load.js';
import type { SpoolSource } from '../preflight/spool.js';
import { NumberSet, numberKey } from '../input/number-set.js';
import { FLAG } from '../flag-names.js';

export interface OptOutSource {
  /** The snapshot's name beside the journal: `<journal>.<id>-at-start`. */
  readonly id: string;
  /** For people: `--exclude optouts.txt`. */
  readonly name: string;
  readonly set: NumberSet;
}

/** A source as the run started, and what changed since. */
export interface SinceStart {
  /** The numbers at the start: the preflight leaves these out, as it did then. */
  readonly start: NumberSet;
  /** On the list now, not at the start: left out of the batches not sent yet. */
  readonly added: NumberSet;
}

export function snapshotPath(journalPath: string, source: Pick<OptOutSource, 'id'>): string {
  return `${journalPath}.${source.id}-at-start`;
}

/** Keeps the source's numbers as the run starts (one E.164 number a line), written aside, flushed and renamed. */
export function keepAtStart(journalPath: string, source: OptOutSource): void {
  const path = snapshotPath(journalPath, source);
  const tmp = `${path}.new`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    const { slots } = source.set.export();
    let chunk = '';
    for (const key of slots) {
      if (key === 0) continue;
      chunk += `+${key}\n`;
      if (chunk.length > 64 * 1024) {
        writeSync(fd, chunk);
        chunk = '';
      }
    }
    if (chunk !== '') writeSync(fd, chunk);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

/** The snapshots go with the run: once nothing is left to resume, nothing reads them. */
export function dropSnapshots(journalPath: string, sources: ReadonlyArray<Pick<OptOutSource, 'id'>>): void {
  for (const s of sources) rmSync(snapshotPath(journalPath, s), { force: true });
}

/**
 * The source now against its snapshot; undefined when the run kept none (a run of an earlier
 * msgr: the caller refuses any change, as that msgr did). Numbers taken off the list since the
 * run started are refused, named.
 */
export function sinceStart(journalPath: string, source: OptOutSource, runId: string): SinceStart | undefined {
  let text: string;
  try {
    text = readFileSync(snapshotPath(journalPath, source), 'utf8');
  } catch {
    return undefined;
  }
  const start = new NumberSet(1024);
  const removed: string[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const key = numberKey(line);
    start.add(key);
    if (!source.set.has(key)) removed.push(line);
  }
  if (removed.length > 0) {
    const shown = removed.slice(0, 5).join(', ');
    throw new UsageError(`${FLAG.resume}: ${removed.length} number${removed.length === 1 ? ' was' : 's were'} taken off ${source.name} since run ${runId} started (${shown}${removed.length > 5 ? ', …' : ''}); nothing was sent`, {
      hint: `The run was started not to message them, and a resume sends what it started with: put them back on the list and resume, or start a new run with ${FLAG.restart} (it reads the list as it is then, and leaves out what this run accepted).`,
    });
  }
  const added = new NumberSet(1024);
  for (const key of source.set.export().slots) if (key !== 0 && !start.has(key)) added.add(key);
  return { start, added };
}

/** What the numbers that went on a list since the run started mean for this resume. */
export interface AddedSinceStart {
  /** Rows to send of theirs that no batch has settled yet: left out by this resume. */
  readonly leftOut: number;
  /** Of those numbers, the ones an accepted batch had already messaged (the first few, and how many). */
  readonly messaged: { readonly count: number; readonly first: readonly string[] };
  /** Those in a batch in doubt (they may have had the message). */
  readonly inDoubt: { readonly count: number; readonly first: readonly string[] };
}

/**
 * Which of the numbers added since the start the run had already sent to (read from its
 * journal's "send" lines), and how many of their rows this resume leaves out: those the preflight
 * found to send (the spool), less those in batches already settled and those left out before.
 */
export async function addedSinceStart(journalPath: string, added: NumberSet, spool: SpoolSource): Promise<AddedSinceStart> {
  const numbers = new Map<number, readonly string[]>();
  const loaded = await loadJournal(journalPath, {
    onSend: (rec) => {
      if (rec.numbers !== undefined) numbers.set(rec.batch, rec.numbers);
    },
  });
  const messaged: string[] = [];
  const doubt: string[] = [];
  let settledRows = 0;
  loaded.states.forEach((state, b) => {
    if (state === BatchState.none || state === BatchState.notSent || state === BatchState.auth) return;
    for (const n of numbers.get(b) ?? []) {
      if (!added.has(numberKey(n))) continue;
      settledRows++;
      if (state === BatchState.accepted && !messaged.includes(n)) messaged.push(n);
      else if (isInDoubt(state) && !doubt.includes(n)) doubt.push(n);
    }
  });
  let rows = 0;
  await spool((kind, _line, number) => {
    if (kind === 'S' && added.has(numberKey(number))) rows++;
  });
  const excludedBefore = loaded.excluded.reduce((sum, n, b) => sum + (loaded.states[b] !== BatchState.none && loaded.states[b] !== BatchState.notSent && loaded.states[b] !== BatchState.auth ? n : 0), 0);
  const SHOWN = 5;
  return {
    leftOut: Math.max(0, rows - settledRows - excludedBefore),
    messaged: { count: messaged.length, first: messaged.slice(0, SHOWN) },
    inDoubt: { count: doubt.length, first: doubt.slice(0, SHOWN) },
  };
}

/** A report row's error for a recipient left out this way. */
export const EXCLUDED_SINCE_START = `on the ${FLAG.exclude} list since the run started`;

/**
 * Leaves out of batch `b` the recipients that went on a list since the run started; returns how
 * many. A batch never sent, or not processed (not sent, or the key refused: a resume sends it),
 * loses those in `added`. A batch whose request may have left keeps its exact body and Idempotency-Key: if an
 * earlier resume left recipients out of it, `journaled` (the numbers of its latest "send" record)
 * rebuilds it as it was, and the same rows are counted out again; otherwise it is left as it is.
 */
export function leaveOutOfBatch(b: Batch, state: number, added: NumberSet | undefined, journaled: readonly string[] | undefined): number {
  let out: ((number: string) => boolean) | undefined;
  // Never sent, or its request was not processed (not sent; the key refused): a body still free to change.
  if (state === BatchState.none || state === BatchState.notSent || state === BatchState.auth) {
    if (added !== undefined && added.size > 0) out = (n) => added.has(numberKey(n));
  } else if (journaled !== undefined) {
    const kept = new Set(journaled);
    out = (n) => !kept.has(n);
  }
  if (out === undefined) return 0;
  let dropped = 0;
  if (b.entries.length > 0) {
    for (let i = b.entries.length - 1; i >= 0; i--) {
      if (!out(b.sendNumbers[i] as string)) continue;
      b.entries.splice(i, 1);
      b.sendNumbers.splice(i, 1);
      b.sendLines.splice(i, 1);
      if (b.sendMessages.length > 0) b.sendMessages.splice(i, 1);
      dropped++;
    }
  } else if (journaled !== undefined) {
    // Not to be sent now (settled, or in doubt without --resend-in-doubt): counted from the record.
    dropped = Math.max(0, b.count - journaled.length);
  }
  const rows = b.rows;
  if (rows !== undefined && dropped > 0) {
    rows.numbers.forEach((n, i) => {
      if (rows.skips[i] === undefined && out(n)) {
        rows.skips[i] = 'excluded';
        rows.errors[i] = EXCLUDED_SINCE_START;
      }
    });
  }
  b.count -= dropped;
  b.excluded = dropped;
  return dropped;
}
