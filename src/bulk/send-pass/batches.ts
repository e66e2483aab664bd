// The send pass's source of batches: reads the spool in row order and seals its rows into
// batches, as the preflight counted them (docs/campaigns.md: "Sending"). One shared message: a batch is
// the next `batchSize` rows to send, with the rows set aside before them (for the report). A
// message per row: rows are grouped by their message (bulk/compose/grouping.ts), and the rows set aside
// go to the report at their own position.
import { Grouper, ownCopy } from '../compose/grouping.js';
import { DUPLICATE_KEYS, numberKey, textHash52 } from '../input/number-set.js';
import type { ReportRow, RowOutcome } from '../report/report-file.js';
import { alreadySentRow, type ReportRows } from '../report/order.js';
import { byNumber, duplicateError } from '../preflight/repeats.js';
import { splitMessageHash, type SpoolKind, type SpoolSource } from '../preflight/spool.js';
import { messageKeyOf } from '../../schedule/index.js';
import { RowRing } from './row-ring.js';

export interface Batch {
  readonly seq: number;
  /** The batch number (journal, Idempotency-Key); -1 for a segment with no recipients. */
  readonly index: number;
  readonly first: number;
  readonly firstLine: number;
  /** Recipient JSON; left empty for a batch an earlier run finished (it is not sent). */
  entries: string[];
  count: number;
  /** The recipients' input lines and numbers, for the journal. */
  readonly sendLines: number[];
  readonly sendNumbers: string[];
  /** With --allow-duplicates, each recipient's number-and-message hash, for the journal (empty without). */
  readonly sendMessages: number[];
  readonly rows: ReportRows | undefined;
  /** Grouped runs: the message's key, and each recipient's position among all rows (report order). */
  readonly key?: string;
  readonly seqs?: number[];
  outcome?: RowOutcome;
  /** Recipients left out because they went on a list after the run started (bulk/send-pass/opt-outs.ts). */
  excluded?: number;
  /** Of those, how many went into the opt-out store. */
  optedOut?: number;
  /**
   * A batch in doubt sent again smaller than its first request (numbers left out since the run
   * started), under the same Idempotency-Key: an API that has the key with the first body refuses
   * this one (422), which tells that the first reached it, not that these rows were rejected.
   */
  resentSmaller?: boolean;
  status?: number | undefined;
  error?: string | undefined;
  ids?: Array<string | undefined>;
}

export interface BatchSource {
  readonly spool: SpoolSource;
  readonly batchSize: number;
  /** Rows have messages of their own: the spool carries each row's key, rows are grouped by it. */
  readonly grouped: boolean;
  /** Keep what the report needs of each row. */
  readonly withReport: boolean;
  /** Numbers that have duplicate rows (the preflight's): the report names the line each repeats. */
  readonly duplicateKeys?: readonly number[] | undefined;
  /** Whether batch k is to be sent (an earlier run's batches are not: their rows stay out). */
  readonly sendable: (batch: number) => boolean;
  /** A sealed batch, in batch order. */
  readonly onBatch: (b: Batch) => void;
  /** Rows set aside that belong to no batch (the end of the file; grouped runs: every one). */
  readonly onRows: (b: Batch) => void;
  readonly onRow: (seq: number, row: ReportRow) => void;
  /** Awaited between chunks of the spool (back-pressure); false stops the reading. */
  readonly afterChunk: () => Promise<boolean>;
}

class StopReading extends Error {}

/** Reads the whole spool (or up to a stop) into batches; returns once the last is sealed. */
export function readBatches(source: BatchSource): Promise<void> {
  return source.grouped ? readGrouped(source) : readSegments(source);
}

/** Reads the spool up to its end or a stop; what was read before a stop is sealed all the same. */
async function readSpool(source: BatchSource, onLine: Parameters<SpoolSource>[0]): Promise<void> {
  try {
    await source.spool(onLine, async () => {
      if (!(await source.afterChunk())) throw new StopReading();
    });
  } catch (err) {
    if (!(err instanceof StopReading)) throw err;
  }
}

/**
 * The first row of each number that has duplicate rows, as the spool is read in row order, so a
 * duplicate's report line says which line it repeats, or (--first-per-number) whose number it has
 * with another message (bulk/preflight/repeats.ts: the duplicate's spool payload says which). With
 * --allow-duplicates and messages of their own, a duplicate repeats a row with its number and
 * message: the first row of each pair is kept too, under a 52-bit hash of the two (8 bytes,
 * however long the message; a clash would only name another line). At most DUPLICATE_KEYS rows
 * are kept. With messages of their own, a duplicate of an already-sent row names no line there:
 * the spool's `A` lines do not carry the message.
 */
class RepeatedRows {
  readonly #keys: ReadonlySet<number>;
  readonly #first = new Map<number, number>();

  constructor(keys: readonly number[]) {
    this.#keys = new Set(keys);
  }

  /** A row to send (or already sent) with this number and, with messages of their own, message. */
  seen(number: string, line: number, messageKey = ''): void {
    if (this.#keys.size === 0 || this.#first.size >= DUPLICATE_KEYS) return;
    const key = numberKey(number);
    if (!this.#keys.has(key)) return;
    if (!this.#first.has(key)) this.#first.set(key, line);
    if (messageKey !== '') {
      const id = textHash52(`${key}\t${messageKey}`);
      if (!this.#first.has(id)) this.#first.set(id, line);
    }
  }

  /** The report's error of a duplicate row (its spool payload): the line it repeats, when known. */
  error(number: string, payload: string): string | undefined {
    if (this.#keys.size === 0) return undefined;
    const key = numberKey(number);
    if (!this.#keys.has(key)) return undefined;
    const line = this.#first.get(byNumber(payload) ? key : textHash52(`${key}\t${payload}`));
    return line !== undefined ? duplicateError(payload, line) : undefined;
  }
}

const skipOf = (kind: SpoolKind): RowOutcome => (kind === 'D' ? 'duplicate' : kind === 'X' ? 'excluded' : kind === 'O' ? 'suppressed' : kind === 'A' ? 'already-sent' : kind === 'F' ? 'filtered' : 'invalid');

/** One shared message: each batch is the rows skipped before it, then its recipients. */
async function readSegments(source: BatchSource): Promise<void> {
  const { batchSize, sendable } = source;
  let seq = 0;
  let batchIndex = 0;
  let index = 0;
  let current: Batch | undefined;
  const newSegment = (first: number, line: number): Batch => ({
    seq: seq++,
    index: -1,
    first,
    firstLine: line,
    entries: [],
    count: 0,
    sendLines: [],
    sendNumbers: [],
    sendMessages: [],
    rows: source.withReport ? { lines: [], numbers: [], skips: [], errors: [] } : undefined,
  });
  const seal = (b: Batch): void => {
    (b as { index: number }).index = batchIndex++;
    source.onBatch(b);
  };
  const repeated = new RepeatedRows(source.withReport ? (source.duplicateKeys ?? []) : []);
  await readSpool(source, (kind, line, number, payload) => {
    current ??= newSegment(index, line);
    index++;
    if (kind === 'S' || kind === 'A') repeated.seen(number, line);
    if (kind === 'S') {
      // Batch `batchIndex` is the one being filled: an earlier run's batches are not sent.
      if (sendable(batchIndex)) {
        const row = splitMessageHash(payload);
        current.entries.push(row.payload);
        current.sendLines.push(line);
        current.sendNumbers.push(number);
        if (row.hash !== undefined) current.sendMessages.push(row.hash);
      }
      current.count++;
      if (current.rows !== undefined) {
        current.rows.lines.push(line);
        current.rows.numbers.push(number);
        current.rows.skips.push(undefined);
        current.rows.errors.push(undefined);
      }
      if (current.count === batchSize) {
        seal(current);
        current = undefined;
      }
    } else if (current.rows !== undefined) {
      current.rows.lines.push(line);
      current.rows.numbers.push(number);
      current.rows.skips.push(skipOf(kind));
      current.rows.errors.push(kind === 'I' ? (JSON.parse(payload) as string) : kind === 'A' || kind === 'O' || kind === 'F' ? payload || undefined : kind === 'D' ? repeated.error(number, payload) : undefined);
    }
  });
  if (current !== undefined) {
    if (current.count > 0) seal(current);
    else source.onRows(current);
  }
}

/** Ring slot widths: a recipient's JSON (`{"msisdn":"+4915112345678"}` is 28) and an E.164 number. */
const RECIPIENT_BYTES = 64;
const NUMBER_BYTES = 20;

/** A message per row: batches as bulk/compose/grouping.ts seals them. */
async function readGrouped(source: BatchSource): Promise<void> {
  const { sendable, withReport } = source;
  // Each row to send is grouped by its position (a number, nothing allocated per row); what the
  // batch needs of it waits in rings, since a row is sealed at most a window after it was read.
  let size = 0;
  let json = new RowRing(0, 0);
  let lines = new Float64Array(0);
  let numbers = new RowRing(0, 0);
  let hashes = new Float64Array(0);
  let seqs = new Float64Array(0);
  const grouper = new Grouper<number>(source.batchSize, (sealed) => {
    const at = sealed.items.map((p) => p % size);
    const send = sendable(sealed.index);
    source.onBatch({
      seq: -1,
      index: sealed.index,
      first: sealed.first,
      firstLine: lines[at[0] as number] as number,
      entries: send ? at.map((i) => json.get(i)) : [],
      count: at.length,
      sendLines: send ? at.map((i) => lines[i] as number) : [],
      sendNumbers: send ? at.map((i) => numbers.get(i)) : [],
      sendMessages: send && hashes.length > 0 ? at.map((i) => hashes[i] as number) : [],
      rows: withReport ? { lines: at.map((i) => lines[i] as number), numbers: at.map((i) => numbers.get(i)), skips: at.map(() => undefined), errors: at.map(() => undefined) } : undefined,
      key: sealed.key,
      seqs: withReport ? at.map((i) => seqs[i] as number) : [],
    });
  });
  size = grouper.window + 2;
  json = new RowRing(size, RECIPIENT_BYTES);
  lines = new Float64Array(size);
  // Numbers always: the journal names each batch's numbers.
  numbers = new RowRing(size, NUMBER_BYTES);
  if (withReport) seqs = new Float64Array(size);
  let position = 0;
  let toSend = 0;
  const repeated = new RepeatedRows(withReport ? (source.duplicateKeys ?? []) : []);
  await readSpool(source, (kind, line, number, payload) => {
    const seq = position++;
    if (kind === 'S') {
      const row = splitMessageHash(payload);
      const tab = row.payload.indexOf('\t');
      const p = toSend++;
      const i = p % size;
      const key = row.payload.slice(tab + 1);
      json.set(i, row.payload.slice(0, tab));
      if (row.hash !== undefined) {
        if (hashes.length === 0) hashes = new Float64Array(size);
        hashes[i] = row.hash;
      }
      lines[i] = line;
      numbers.set(i, number);
      if (withReport) seqs[i] = seq;
      repeated.seen(number, line, messageKeyOf(key));
      grouper.add(key, p);
    } else if (withReport) {
      // Held by the report's order until the rows before it are written (up to a grouping
      // window back): copies, not slices that would keep their spool chunks alive (ownCopy).
      const error = kind === 'I' ? (JSON.parse(payload) as string) : kind === 'D' ? repeated.error(number, payload) : kind === 'O' || kind === 'F' ? (payload === '' ? undefined : ownCopy(payload)) : undefined;
      const kept = ownCopy(number);
      source.onRow(seq, kind === 'A' ? alreadySentRow(line, kept, payload) : { line, number: kept, outcome: skipOf(kind), error });
    }
  });
  grouper.finish();
}
