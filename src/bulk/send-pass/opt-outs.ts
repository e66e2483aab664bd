// Numbers not to message, as a run started and as they are now (docs/reruns.md: "Numbers not to
// message"). A run keeps beside its journal what it left out as it started: the --exclude list's
// numbers, and those of its rows the opt-out store had (not the store, which may hold millions the
// run never sends to), so that a resume rebuilds the same batches from them (the preflight leaves
// out exactly the numbers it left out then), while a number of its rows that went on a list since
// then is left out of every batch not yet sent (bulk/send-pass/sender.ts).
//
// Each list is a source: `--exclude FILE` (bulk/input/exclude.ts), and the account's opt-out store
// (docs/optouts.md). A number taken off the --exclude list since the run started is refused: the
// run was started not to message it, and a resume sends what it started with. A number taken off
// the store meanwhile changes nothing either, without a refusal: the store is changed by people
// and by replies while runs are paused, and the run still leaves out what it left out at its start.
import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { UsageError } from '../../errors.js';
import { describeOptOut, type OptOutProbe, type OptOuts } from '../../optouts/store.js';
import type { Batch } from './batches.js';
import { BatchState, isInDoubt, type RunHeader } from '../journal/records.js';
import { loadJournal } from '../journal/load.js';
import type { SpoolSource } from '../preflight/spool.js';
import { NumberSet, numberKey } from '../input/number-set.js';
import { LEAVE_OUT, type KeyProbe, type ListAtStart } from '../input/exclude.js';
import { FLAG } from '../flag-names.js';

export interface OptOutSource {
  /** The snapshot's name beside the journal: `<journal>.<id>-at-start`. */
  readonly id: string;
  /** For people: `--exclude optouts.txt`. */
  readonly name: string;
  /** Why its numbers are left out (bulk/input/exclude.ts LEAVE_OUT). */
  readonly leaves: (typeof LEAVE_OUT)[keyof typeof LEAVE_OUT];
  /** A number taken off it since the run started: `refused` (a resume stops), or `kept` out. */
  readonly removals: 'refused' | 'kept';
  /**
   * The snapshot outlives the run: `msgr runs report` rebuilds the rows it left out from it
   * (the --exclude list's own file is read again instead).
   */
  readonly keep?: boolean;
  /**
   * The numbers kept beside the journal as the run starts, once its preflight has read the file
   * (its verdicts: `spool`): what a resume's preflight leaves out again.
   */
  readonly atStart: (spool: SpoolSource) => Promise<NumberSet>;
}

/** The opt-out store as a source (the account's store and the one for every account). */
export const STORE_SOURCE = { id: 'optouts', name: 'the opt-out store', leaves: LEAVE_OUT.optedOut, removals: 'kept', keep: true } as const;

/**
 * The opt-out store as a new run starts: asked number by number (OptOuts.probe: its index, a few
 * small reads a number, however many it holds), each answer kept, so that a number asked again
 * says what it said first; or listed whole (`listed`, for a preflight in worker threads), after
 * which every answer is the list's.
 */
export class StoreAtStart {
  readonly #optOuts: OptOuts;
  #probe: OptOutProbe | undefined;
  /** Each number asked: 1 opted out, 2 a possible opt-out undecided, 0 neither. */
  readonly #answers = new NumberSet(1024);
  #listed: { readonly optedOut: NumberSet; readonly undecided: NumberSet } | undefined;
  /** Opted out as the run started. */
  readonly optedOut: ListAtStart;
  /** A possible opt-out no one had decided on as the run started (docs/optouts.md: "Possible opt-outs"). */
  readonly undecided: ListAtStart;

  constructor(optOuts: OptOuts) {
    this.#optOuts = optOuts;
    // Listing either reads the stores' indexes whole: as many numbers as they hold.
    const numbers = optOuts.capacity;
    this.optedOut = { numbers, has: (key) => this.#listed?.optedOut.has(key) ?? this.#answer(key) === 1, listed: () => this.#list().optedOut };
    this.undecided = { numbers, has: (key) => this.#listed?.undecided.has(key) ?? this.#answer(key) === 2, listed: () => this.#list().undecided };
  }

  #answer(key: number): number {
    const known = this.#answers.get(key);
    if (known !== undefined) return known;
    this.#probe ??= this.#optOuts.probe();
    const state = this.#probe.state(key);
    const answer = state === 'opted-out' ? 1 : state === 'undecided' ? 2 : 0;
    this.#answers.addValued(key, answer);
    return answer;
  }

  #list(): { readonly optedOut: NumberSet; readonly undecided: NumberSet } {
    if (this.#listed === undefined) {
      const optedOut = new NumberSet(Math.max(16, this.#optOuts.capacity));
      // The digits straight from the indexes (a number in both stores is added twice, kept once):
      // a key is what numberKey makes of the number.
      this.#optOuts.keys((key) => optedOut.add(key));
      const pending = this.#optOuts.pending();
      const undecided = new NumberSet(Math.max(16, pending.length));
      for (const p of pending) undecided.add(numberKey(p.number));
      this.#listed = { optedOut, undecided };
    }
    return this.#listed;
  }

  /** Lets go of the indexes held open to be asked (asked again, they are opened again). */
  release(): void {
    this.#probe?.close();
    this.#probe = undefined;
  }
}

/**
 * The numbers of the file's rows the preflight left out as opted out (its "O" verdicts whose
 * number the store had: a possible opt-out's rows are "O" too): what a new run keeps of the store
 * beside its journal, not the whole store (docs/optouts.md: "Sending"; why: docs/design.md:
 * "Choices", its bullet on opt-outs in a run).
 */
export async function optedOutRows(spool: SpoolSource, store: KeyProbe): Promise<NumberSet> {
  const set = new NumberSet(1024);
  await spool((kind, _line, number) => {
    if (kind !== 'O') return;
    const key = numberKey(number);
    if (store.has(key)) set.add(key);
  });
  return set;
}

/**
 * The numbers of the rows a resume could send (the preflight's "S" verdicts) that are in the store
 * now but were not left out at the start: opted out since, left out of the batches not sent yet.
 * Only the file's numbers: the store may hold millions that this run never sends to.
 */
export async function storeAddedSince(spool: SpoolSource, start: KeyProbe, now: KeyProbe): Promise<NumberSet> {
  const added = new NumberSet(1024);
  await spool((kind, _line, number) => {
    if (kind !== 'S') return;
    const key = numberKey(number);
    if (!start.has(key) && !added.has(key) && now.has(key)) added.add(key);
  });
  return added;
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

/**
 * Keeps a source's numbers as the run starts (one E.164 number a line), written aside, flushed and
 * renamed; returns their digest (copyDigest), for the journal's header.
 */
export function keepAtStart(journalPath: string, source: Pick<OptOutSource, 'id'>, set: NumberSet): string {
  const path = snapshotPath(journalPath, source);
  const tmp = `${path}.new`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    const { slots } = set.export();
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
  return copyDigest(set);
}

/**
 * A copy's numbers, in order, hashed: the same numbers give the same digest however they were
 * written, and a copy cut short, edited or swapped for another gives another.
 */
export function copyDigest(set: NumberSet): string {
  const keys: number[] = [];
  set.forEach((key) => keys.push(key));
  keys.sort((a, b) => a - b);
  const hash = createHash('sha256');
  for (const key of keys) hash.update(`+${key}\n`);
  return hash.digest('hex').slice(0, 32);
}

/**
 * The copy of the opt-out store a run kept as it started (`header.optOuts`): its numbers; `gone`
 * when it kept one and it is not there; `changed` when it is not the copy the run kept (its digest
 * is another). A copy kept by an earlier msgr has no digest to check. An empty store at the start
 * kept none: no numbers.
 */
export function storeCopy(journalPath: string, optOuts: NonNullable<RunHeader['optOuts']>): NumberSet | 'gone' | 'changed' {
  if (optOuts.numbers === 0) return new NumberSet(1);
  const start = readSnapshot(journalPath, STORE_SOURCE);
  if (start === undefined) return 'gone';
  if (optOuts.copy !== undefined && copyDigest(start) !== optOuts.copy) return 'changed';
  return start;
}

/** The snapshots go with the run: once nothing is left to resume, nothing reads them (but those kept for `msgr runs report`). */
export function dropSnapshots(journalPath: string, sources: ReadonlyArray<Pick<OptOutSource, 'id' | 'keep'>>, all = false): void {
  for (const s of sources) if (all || s.keep !== true) rmSync(snapshotPath(journalPath, s), { force: true });
}

/** The numbers of a snapshot, or undefined when the run kept none. */
export function readSnapshot(journalPath: string, source: Pick<OptOutSource, 'id'>): NumberSet | undefined {
  let text: string;
  try {
    text = readFileSync(snapshotPath(journalPath, source), 'utf8');
  } catch {
    return undefined;
  }
  const set = new NumberSet(1024);
  for (const line of text.split('\n')) if (line !== '') set.add(numberKey(line));
  return set;
}

/**
 * The list now (`now`: the --exclude list, read whole) against its snapshot; undefined when the
 * run kept none (a run of an earlier msgr: the caller refuses any change, as that msgr did).
 * Numbers taken off the list since the run started are refused, named.
 */
export function sinceStart(journalPath: string, source: OptOutSource, now: NumberSet, runId: string): SinceStart | undefined {
  const start = readSnapshot(journalPath, source);
  if (start === undefined) return undefined;
  const removed: string[] = [];
  // keepAtStart wrote each number as `+<key>`.
  start.forEach((key) => {
    if (!now.has(key)) removed.push(`+${key}`);
  });
  if (removed.length > 0 && source.removals === 'refused') {
    const shown = removed.slice(0, 5).join(', ');
    throw new UsageError(`${FLAG.resume}: ${removed.length} number${removed.length === 1 ? ' was' : 's were'} taken off ${source.name} since run ${runId} started (${shown}${removed.length > 5 ? ', …' : ''}); nothing was sent`, {
      hint: `The run was started not to message them, and a resume sends what it started with: put them back on the list and resume, or start a new run with ${FLAG.restart} (it reads the list as it is then, and leaves out what this run accepted).`,
    });
  }
  const added = new NumberSet(1024);
  for (const key of now.export().slots) if (key !== 0 && !start.has(key)) added.add(key);
  return { start, added };
}

/** What the numbers that went on a list since the run started mean for this resume. */
export interface AddedEffect {
  /** Rows to send of theirs that no batch has settled yet: left out by this resume. */
  readonly leftOut: number;
  /** Of those numbers, the ones an accepted batch had already messaged (the first few, and how many). */
  readonly messaged: { readonly count: number; readonly first: readonly string[] };
  /** Those in a batch in doubt (they may have had the message). */
  readonly inDoubt: { readonly count: number; readonly first: readonly string[] };
  /** Those with rows in no batch settled yet: the ones this resume would send to (the first few). */
  readonly pending: { readonly count: number; readonly first: readonly string[] };
}

/**
 * Which of the numbers added since the start the run had already sent to (read from its
 * journal's "send" lines), and how many of their rows this resume leaves out: those the preflight
 * found to send (the spool), less those in batches already settled and those left out before.
 */
export async function addedEffect(journalPath: string, added: KeyProbe, spool: SpoolSource): Promise<AddedEffect> {
  const numbers = new Map<number, readonly string[]>();
  const loaded = await loadJournal(journalPath, {
    onSend: (rec) => {
      if (rec.numbers !== undefined) numbers.set(rec.batch, rec.numbers);
    },
  });
  const messaged: string[] = [];
  const doubt: string[] = [];
  let settledRows = 0;
  const settled = new Set<string>();
  loaded.states.forEach((state, b) => {
    if (state === BatchState.none || state === BatchState.notSent || state === BatchState.auth) return;
    for (const n of numbers.get(b) ?? []) {
      if (!added.has(numberKey(n))) continue;
      settledRows++;
      settled.add(n);
      if (state === BatchState.accepted && !messaged.includes(n)) messaged.push(n);
      else if (isInDoubt(state) && !doubt.includes(n)) doubt.push(n);
    }
  });
  let rows = 0;
  const pending: string[] = [];
  await spool((kind, _line, number) => {
    if (kind !== 'S' || !added.has(numberKey(number))) return;
    rows++;
    if (!settled.has(number) && !pending.includes(number)) pending.push(number);
  });
  const excludedBefore = loaded.excluded.reduce((sum, n, b) => sum + (loaded.states[b] !== BatchState.none && loaded.states[b] !== BatchState.notSent && loaded.states[b] !== BatchState.auth ? n : 0), 0);
  const SHOWN = 5;
  return {
    leftOut: Math.max(0, rows - settledRows - excludedBefore),
    messaged: { count: messaged.length, first: messaged.slice(0, SHOWN) },
    inDoubt: { count: doubt.length, first: doubt.slice(0, SHOWN) },
    pending: { count: pending.length, first: pending.slice(0, SHOWN) },
  };
}

/** A report row's error for a recipient left out because it went on the --exclude list since the run started. */
export const EXCLUDED_SINCE_START = `on the ${FLAG.exclude} list since the run started`;

/** A report row's error for a recipient left out because it went into the opt-out store since the run started. */
export const OPTED_OUT_SINCE_START = 'opted out since the run started';

/** A report row's error for a recipient the opt-out store had when the run started. */
export function optedOutError(optOuts: Pick<OptOuts, 'optedOutAt'>, number: string, at: Date): string {
  const entry = optOuts.optedOutAt(number, at);
  return entry !== undefined ? describeOptOut(entry) : 'opted out';
}

/**
 * A resume's numbers that went on a list since the run started, each valued with why (LEAVE_OUT),
 * and the report's error for each.
 */
export interface AddedSinceStart {
  readonly numbers: NumberSet;
  readonly why: (number: string, leaves: number) => string;
}

/** The numbers of several sources added since the run started, in one set (the --exclude list's first). */
export function addedSinceStart(added: ReadonlyArray<{ readonly source: OptOutSource; readonly added: NumberSet }>, optOuts: Pick<OptOuts, 'get'> | undefined): AddedSinceStart | undefined {
  const all = new NumberSet(1024);
  for (const a of added) a.added.forEach((key) => void all.addValued(key, a.source.leaves));
  if (all.size === 0) return undefined;
  return {
    numbers: all,
    why: (number, leaves) => {
      if (leaves !== LEAVE_OUT.optedOut) return EXCLUDED_SINCE_START;
      const entry = optOuts?.get(number);
      return `${OPTED_OUT_SINCE_START}${entry !== undefined ? `: ${describeOptOut(entry)}` : ''}`;
    },
  };
}

/** Recipients of a batch left out since the run started, by why. */
export interface LeftOut {
  readonly excluded: number;
  readonly optedOut: number;
}

/**
 * Leaves out of batch `b` the recipients that went on a list since the run started; returns how
 * many, by list. A batch never sent, or not processed (not sent, or the key refused: a resume
 * sends it), loses those in `added`. A batch whose request may have left keeps its Idempotency-Key:
 * if an earlier resume left recipients out of it, `journaled` (the numbers of its latest "send"
 * record) rebuilds it as it was, and the same rows are counted out again; otherwise it is left as
 * it is (`journaledOptedOut`: how many of those left out were opted out, as journaled). Sent again
 * (`resend`: --resend-in-doubt), it loses those in `added` too: they may have had the message, and
 * they do not want another (docs/reruns.md: "In doubt meets consent").
 */
export function leaveOutOfBatch(b: Batch, state: number, added: AddedSinceStart | undefined, journaled: readonly string[] | undefined, journaledOptedOut = 0, resend = false): LeftOut {
  let out: ((number: string) => boolean) | undefined;
  // Never sent, or its request was not processed (not sent; the key refused): a body still free to change.
  if (state === BatchState.none || state === BatchState.notSent || state === BatchState.auth) {
    if (added !== undefined) out = (n) => added.numbers.has(numberKey(n));
  } else if (journaled !== undefined) {
    const kept = new Set(journaled);
    out = resend && isInDoubt(state) && added !== undefined ? (n) => !kept.has(n) || added.numbers.has(numberKey(n)) : (n) => !kept.has(n);
  } else if (resend && isInDoubt(state) && added !== undefined) {
    out = (n) => added.numbers.has(numberKey(n));
  }
  if (out === undefined) return { excluded: 0, optedOut: 0 };
  // Why a number is out: the list it went on since the start (the --exclude list, when it is on none now).
  const leaves = (n: string): number => added?.numbers.get(numberKey(n)) ?? LEAVE_OUT.excluded;
  let dropped = 0;
  let optedOut = 0;
  // Not to be sent now (settled, or in doubt without --resend-in-doubt): counted from the record and the rows.
  const fromRecord = b.entries.length === 0;
  if (!fromRecord) {
    for (let i = b.entries.length - 1; i >= 0; i--) {
      const n = b.sendNumbers[i] as string;
      if (!out(n)) continue;
      b.entries.splice(i, 1);
      b.sendNumbers.splice(i, 1);
      b.sendLines.splice(i, 1);
      if (b.sendMessages.length > 0) b.sendMessages.splice(i, 1);
      dropped++;
      if (leaves(n) === LEAVE_OUT.optedOut) optedOut++;
    }
  } else if (journaled !== undefined) {
    dropped = Math.max(0, b.count - journaled.length);
    optedOut = Math.min(journaledOptedOut, dropped);
  }
  const rows = b.rows;
  if (rows !== undefined && dropped > 0) {
    let counted = 0;
    rows.numbers.forEach((n, i) => {
      if (rows.skips[i] !== undefined || !out(n)) return;
      const why = leaves(n);
      rows.skips[i] = why === LEAVE_OUT.optedOut ? 'suppressed' : 'excluded';
      rows.errors[i] = added?.why(n, why) ?? EXCLUDED_SINCE_START;
      if (why === LEAVE_OUT.optedOut) counted++;
    });
    if (fromRecord && journaledOptedOut === 0) optedOut = Math.min(counted, dropped);
  }
  b.count -= dropped;
  b.excluded = dropped;
  b.optedOut = optedOut;
  return { excluded: dropped - optedOut, optedOut };
}

/**
 * The spool with each opted-out row ("O", written by the preflight: bulk/preflight/range.ts)
 * saying why, for the report: the opt-out in force when the run started.
 */
export function withOptOutReasons(spool: SpoolSource, why: (number: string) => string): SpoolSource {
  return (onLine, afterChunk) =>
    spool((kind, line, number, payload) => {
      onLine(kind, line, number, kind === 'O' ? why(number) : payload);
    }, afterChunk);
}
