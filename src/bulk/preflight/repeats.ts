// A number on several rows (docs/campaign-input.md: "Preflight"). Rows that repeat a number with the same
// message are duplicates, left out and counted. Rows that repeat it with another message (another
// text, sender or variables: two children's appointments for one parent's phone, or a name typed
// two ways) are a decision the file cannot make: the run stops and lists them unless the command
// says which way, `--allow-duplicates` (each number gets each of its messages once) or
// `--first-per-number` (each number gets its first row's message only).
//
// A row's message is known by a 32-bit fingerprint beside its number in the pass's NumberSet
// (4 bytes a slot more than the number alone; none when every row has the same message): two
// different messages share one by a chance of 1 in 4 billion, and would then be taken for one.
// With --allow-duplicates, a number's further messages are kept as 52-bit hashes of number and
// message together (8 bytes each). Numbers with different messages are kept in a set of their
// own, so a split preflight (bulk/preflight/parallel.ts) counts them exactly as one pass does; which lines
// they are on is read again from the file only for the refusal (findRepeatedLines).
import type { ColumnPlan } from '../input/columns.js';
import type { NumberChecker } from '../input/number-check.js';
import { NumberSet, numberKey, textHash52 } from '../input/number-set.js';
import type { RowMessagePlan } from '../compose/personalise.js';
import { readCsv, type CsvFormat } from '../../csv/reader.js';
import { createRowChecker, csvUtf8Hint } from './row-check.js';
import { phoneLineEnds } from '../../message/text-file.js';
import { FLAG } from '../flag-names.js';

/** What a number on rows with different messages gets: a stop (the default), each message, the first. */
export type RepeatMode = 'stop' | 'each' | 'first';

export function repeatMode(shape: { readonly allowDuplicates: boolean; readonly firstPerNumber?: boolean | undefined }): RepeatMode {
  return shape.allowDuplicates ? 'each' : shape.firstPerNumber === true ? 'first' : 'stop';
}

/**
 * A row's verdict: `new` to send (the number's first row, or with `each` a message it has not
 * had: `more`), `same` (a duplicate: the number has this message), `other` (another message,
 * left out: `first` and `stop`).
 */
export type RepeatVerdict = 'new' | 'more' | 'same' | 'other';

/** 32-bit FNV-1a of a row's message: its message key (text and sender, when rows have them) and variables, as sent. */
export function rowFingerprint(plan: ColumnPlan, fields: readonly string[], messageKey: string | undefined): number {
  let h = 0x811c9dc5;
  if (messageKey !== undefined) for (let i = 0; i < messageKey.length; i++) h = Math.imul(h ^ messageKey.charCodeAt(i), 0x01000193);
  const vars = plan.vars;
  for (let v = 0; v < vars.length; v++) {
    // A separator no cell holds, so ["ab", "c"] and ["a", "bc"] differ.
    h = Math.imul(h ^ 0xffff, 0x01000193);
    const value = fields[vars[v] as number] ?? '';
    for (let i = 0; i < value.length; i++) {
      let c = value.charCodeAt(i);
      // As sent (message/text-file.ts, phoneLineEnds): CR LF and a lone CR are one LF.
      if (c === 13) {
        if (value.charCodeAt(i + 1) === 10) continue;
        c = 10;
      }
      h = Math.imul(h ^ c, 0x01000193);
    }
  }
  return h >>> 0;
}

/** The whole message of a row as text (its key and variables), for the rarer further messages. */
function rowMessage(plan: ColumnPlan, fields: readonly string[], messageKey: string | undefined): string {
  return `${messageKey ?? ''}\u0000${plan.vars.map((i) => phoneLineEnds(fields[i] ?? '')).join('\u0000')}`;
}

/**
 * A row's number and message as one 52-bit hash: what `--allow-duplicates` journals for each
 * recipient (the "send" line's `messages`), so a later run leaves out exactly the messages a
 * number had, not every row of the number (bulk/earlier/already-sent.ts).
 */
export function messageHash(key: number, plan: ColumnPlan, fields: readonly string[], messageKey: string | undefined): number {
  return textHash52(`${key}\t${rowMessage(plan, fields, messageKey)}`);
}

/** One pass's view of the numbers it has seen (a part of a split, or the whole file). */
export class NumberRepeats {
  /** Every number that passed (to send or already sent), with its first message's fingerprint. */
  readonly seen: NumberSet;
  /** Numbers with rows of different messages (`stop` and `first`), and with `each`, those sent more than one. */
  readonly several = new NumberSet(16);
  /** With `each`: number-and-message hashes of each number's messages after its first. */
  readonly #more = new NumberSet(16);
  readonly #byMessage: boolean;

  constructor(
    readonly mode: RepeatMode,
    capacity: number,
    /** Rows can differ in their message (variables, or messages of their own): else one fingerprint for all. */
    readonly fingerprinted: boolean,
  ) {
    this.seen = new NumberSet(capacity);
    this.#byMessage = mode === 'each';
  }

  /** The verdict of a row with this number (numberKey) and message. */
  check(key: number, plan: ColumnPlan, fields: readonly string[], messageKey: string | undefined): RepeatVerdict {
    if (!this.fingerprinted) return this.seen.add(key) ? 'new' : 'same';
    const fp = rowFingerprint(plan, fields, messageKey);
    this.lastFingerprint = fp;
    const first = this.seen.addValued(key, fp);
    if (first === undefined) return 'new';
    if (first === fp) return 'same';
    this.several.add(key);
    if (!this.#byMessage) return 'other';
    return this.#more.add(messageHash(key, plan, fields, messageKey)) ? 'more' : 'same';
  }

  /** The fingerprint of the row check() saw last (0 when rows are not fingerprinted). */
  lastFingerprint = 0;
}

/**
 * A duplicate's spool payload (bulk/preflight/spool.ts), read back by the report (bulk/send-pass/batches.ts): `=` and
 * the row's fingerprint for the number's first message again, `F` and it for another message left
 * out by --first-per-number; with --allow-duplicates the message key (messages per row) or nothing.
 * The fingerprint lets a split preflight judge the second part's rows against the first part's.
 */
export function duplicatePayload(verdict: 'same' | 'other', mode: RepeatMode, fingerprint: number | undefined, messageKey: string | undefined): string {
  if (mode === 'each') return messageKey ?? '';
  // Every row has the same message: a number is all there is to repeat.
  if (fingerprint === undefined) return '';
  return `${verdict === 'same' ? '=' : 'F'}${fingerprint.toString(16)}`;
}

/** The payload of a duplicate judged for good (no fingerprint: it is never judged again). */
export function settledPayload(verdict: 'same' | 'other'): string {
  return verdict === 'same' ? '=' : 'F';
}

/** A duplicate's payload judged again against the number's first message (a split's second part). */
export function rejudged(payload: string, first: number): string {
  const kind = payload[0];
  if (kind !== '=' && kind !== 'F') return payload;
  const fp = Number.parseInt(payload.slice(1), 16);
  return `${fp === first ? '=' : 'F'}${payload.slice(1)}`;
}

/** What a duplicate's report line says, from its payload and the line of its number's first row. */
export function duplicateError(payload: string, line: number): string {
  if (payload.startsWith('F')) return `another message to the number of line ${line}: left out by ${FLAG.firstPerNumber}`;
  return payload === '' ? `same number as line ${line}` : `same number and message as line ${line}`;
}

/** Whether a payload names its number's first row by number alone (not by number and message). */
export function byNumber(payload: string): boolean {
  return payload === '' || payload.startsWith('=') || payload.startsWith('F');
}

/**
 * The numbers with different messages across a split: each part's own, and those both parts have
 * whose first messages differ (`across`: the second part's rows of them are another message).
 */
export function mergeSeveral(a: { seen: NumberSet; several: NumberSet }, b: { seen: NumberSet; several: NumberSet }): { several: NumberSet; across: NumberSet } {
  const several = new NumberSet(Math.max(16, a.several.size + b.several.size));
  const across = new NumberSet(16);
  a.several.forEach((k) => several.add(k));
  b.several.forEach((k) => several.add(k));
  b.seen.forEach((k, value) => {
    const first = a.seen.get(k);
    if (first !== undefined && first !== value) {
      across.add(k);
      several.add(k);
    }
  });
  return { several, across };
}

/** Numbers listed in the refusal, and lines of each. */
export const SEVERAL_SHOWN = 5;
const LINES_SHOWN = 5;

export interface RepeatedNumber {
  readonly number: string;
  readonly lines: number[];
  /** Its rows (valid, not excluded): more than `lines` when past LINES_SHOWN. */
  rows: number;
}

/**
 * The first SEVERAL_SHOWN numbers of `several` in the file, with their lines: a pass over the file
 * again, only for the refusal (the pass that found them keeps numbers, not lines).
 */
export async function findRepeatedLines(path: string, format: CsvFormat, columns: ColumnPlan, checker: NumberChecker, message: RowMessagePlan | undefined, several: NumberSet, fixMojibake: boolean): Promise<RepeatedNumber[]> {
  const check = createRowChecker(columns, checker, csvUtf8Hint(format), message, fixMojibake);
  const found = new Map<number, RepeatedNumber>();
  await readCsv(path, {
    format,
    onRecord: (fields, _index, line) => {
      const r = check(fields);
      if (r.verdict === 'invalid') return;
      const key = numberKey(r.e164);
      if (!several.has(key)) return;
      let n = found.get(key);
      if (n === undefined) {
        if (found.size >= SEVERAL_SHOWN) return;
        n = { number: r.e164, lines: [], rows: 0 };
        found.set(key, n);
      }
      n.rows++;
      if (n.lines.length < LINES_SHOWN) n.lines.push(line);
    },
  });
  return [...found.values()];
}
