// The preflight on two cores (docs/performance.md: "What each figure means"). The file is split at a line end near its
// middle and each part is checked by a worker thread running the very pass of the single-threaded
// preflight (preflightRange); the two results are merged in row order so that the run sees what a
// single pass would have given: the same verdicts, totals, problems (line numbers included), the
// same spool lines in the same order, duplicates across the split resolved as one pass resolves
// them (the first occurrence wins), the same hash of the whole file.
//
// Used only where splitting bytes is safe and pays: UTF-8 or Latin-1 (a 0x0A byte is a line feed
// and nothing else), LF or CRLF line ends, a split point outside quotes, a file of some size.
// Anything unexpected (a worker fails, the first part does not end where the split was computed
// to be) falls back to the single-threaded pass, which then gives its own verdict or error.
//
// Duplicates across the split: each worker dedups its own part. The first part's set of numbers
// to send comes back to this thread; a number the second part would send that the first part
// sends too is a duplicate. Their count is |first ∩ second| (each number the second part sends
// has exactly one `S` line there); the spool source this module hands the send pass turns those
// `S` lines into `D` while reading the second part's spool, so the send pass reads one spool.
// Numbers an earlier run accepted (--skip-sent) are `A` lines instead of `S` in either part, and
// are in its set of numbers all the same: a second part's `A` line whose number the first part has
// becomes `D` too, and is counted as a duplicate rather than as already sent.
import { availableParallelism } from 'node:os';
import { open, type FileHandle } from 'node:fs/promises';
import { startWorker } from '../../runtime/worker.js';
import type { ColumnOptions } from '../input/columns.js';
import { GROUP_WINDOW } from '../compose/grouping.js';
import { DUPLICATE_KEYS, NumberSet, numberKey, type ExportedSet } from '../input/number-set.js';
import { mergeSeveral, rejudged, settledPayload, type RepeatMode } from './repeats.js';
import type { MessageSource } from '../compose/personalise.js';
import { finishPreflight, LANDLINE_SAMPLES, mergeColumns, UNDECIDED_SHOWN, type PreflightResult, type RangeResult } from './range.js';
import { mergeGroups } from './problems.js';
import { TextTotals } from '../../message/text-totals.js';
import { countLineEnds, readCsv, type CsvFormat } from '../../csv/reader.js';
import { readSpool, removeSpool, type SpoolSource } from './spool.js';

/** Below this the workers' start-up (~50 ms each) is not worth it. */
export const PARALLEL_MIN_BYTES = 8 * 1024 * 1024;
/** How far past the middle a usable split point is looked for. */
const SPLIT_SEARCH_BYTES = 4 * 1024 * 1024;
/** The young generation of each worker: small, so garbage is collected early (peak RSS). */
const WORKER_YOUNG_MB = 8;
/**
 * The young generation of the one worker that checks rows with messages of their own
 * (runWholeInWorker), whose peak is the whole process's in a dry run. 1,000,000 rows, each with
 * its own message (`--dry-run`), Node 24: 139.0–143.3 MB at 2 against 144.4–151.3 MB at 8 (13
 * runs each, alternated); Node 26 140.5 against 154.5 MB, Node 20 116–117 against 128–129 MB; the
 * worker's scavenges take ~0.2 s more (docs/performance-history.md: "Personalised messages", the
 * worker's young generation, 2026-12-07). A send started again with `--max-semi-space-size`
 * (commands/send-bulk/heap.ts) has that flag's young generation in this worker instead: V8's flag
 * overrides a worker's limit.
 */
const WHOLE_YOUNG_MB = 2;
/**
 * The old generation of each worker, beyond what the grouping window's messages need
 * (workerOldMb). A pass keeps ~10–20 MB alive (its sets of numbers are typed arrays, outside this
 * heap), but without a limit V8 lets the old generation grow to 50–60 MB of garbage before it
 * compacts, and on Node 24 and 26 keeps ~25 MB of the freed pages. With the limit, 1,000,000 rows
 * with a message each (`--dry-run`) peak at 110 / 131 / 132 MB of RSS on Node 20 / 24 / 26,
 * against 134 / 159 / 164 MB without, for 0–8 % more time (docs/performance.md).
 */
const WORKER_OLD_MB = 64;

/** The file and row rules both a worker's job and the caller's options carry. */
interface PartFile {
  readonly path: string;
  readonly fileLabel: string;
  readonly format: CsvFormat;
  readonly columns: ColumnOptions;
  readonly country: string | undefined;
  /** --allow-unlisted-numbers: the number checker the worker makes accepts them. */
  readonly allowUnlisted?: boolean | undefined;
  /** --fix-mojibake */
  readonly fixMojibake?: boolean | undefined;
  /** A number on rows with different messages (bulk/preflight/repeats.ts); `each` is never split (bulk/preflight/pass.ts). */
  readonly repeats: RepeatMode;
  readonly batchSize: number;
}

/** What a worker does: one part of the file (workers/preflight-part.ts). */
export interface PartJob extends PartFile {
  readonly exclude: ExportedSet | undefined;
  /** Numbers an earlier run accepted (bulk/earlier/already-sent.ts). */
  readonly sent?: ExportedSet | undefined;
  /** --delivered-only: the numbers not delivered, counted among the rows to send (bulk/preflight/range.ts). */
  readonly resent?: ExportedSet | undefined;
  readonly setCapacity: number;
  readonly spoolPath: string | undefined;
  readonly maxProblems: number;
  readonly start: { offset: number; line: number; header: readonly string[] } | undefined;
  readonly end: number | undefined;
  readonly recordDelimiter: string | undefined;
  readonly hash: boolean;
  readonly firstNumbers: boolean;
  /**
   * Hand back the part's set of numbers (a split's join needs both): 12 bytes a slot that a
   * whole-file pass would only add to the send pass's memory until a collection frees it.
   */
  readonly keepSeen: boolean;
  /** A message per row (bulk/compose/personalise.ts): the whole file in one worker. */
  readonly message?: MessageSource | undefined;
  readonly keepFirst?: number | undefined;
}

export type PartResult = Omit<RangeResult, 'seen' | 'several'> & { seen: ExportedSet | undefined; several: ExportedSet };
export type PartMessage = { ok: true; result: PartResult } | { ok: false; error: string };

export interface ParallelOptions extends PartFile {
  readonly exclude?: NumberSet | undefined;
  /** Numbers an earlier run accepted: left out as already sent (bulk/earlier/already-sent.ts). */
  readonly sent?: NumberSet | undefined;
  readonly resent?: NumberSet | undefined;
  readonly fileBytes: number;
  /** The spool of the first part; the second part's is beside it (secondSpool). None for a dry run. */
  readonly spoolPath?: string | undefined;
  readonly maxProblems?: number;
  /** Stops the workers (Ctrl-C); the caller throws. */
  readonly signal?: AbortSignal;
  /** Smallest file worth splitting (tests lower it). */
  readonly minBytes?: number;
  /**
   * Each worker's old generation, instead of workerOldMb's (tests lower it; not below ~16 MB: with
   * too little to start, V8 aborts the whole process on Node 24, not just the worker).
   */
  readonly oldGenerationMb?: number;
  /** Why a worker failed (not a stop): said under --verbose, as the pass then runs again. */
  readonly onFailure?: ((why: string) => void) | undefined;
}

/** The preflight result, with where the send pass finds the spool. */
export interface SplitPreflight extends PreflightResult {
  /** Both parts' spools as one, in row order; none for a dry run. */
  readonly spool: SpoolSource | undefined;
  /** The line the second part starts on. */
  readonly splitLine: number;
}

export interface SplitPoint {
  /** Byte offset of the first byte of the second part. */
  readonly offset: number;
  /** Its line number (1-based: the file's own line numbers). */
  readonly line: number;
  readonly recordDelimiter: '\n' | '\r\n';
}

/** Where to split, or why not. */
export async function findSplit(path: string, format: CsvFormat, size: number, minBytes = PARALLEL_MIN_BYTES): Promise<SplitPoint | string> {
  if (format.encoding !== 'utf8' && format.encoding !== 'latin1') return `encoding ${format.encoding}`;
  if (size < minBytes) return 'small file';
  if (availableParallelism() < 2) return 'one core';
  const base = format.firstByte;
  const target = base + Math.floor((size - base) / 2);
  const limit = Math.min(size - 1, target + SPLIT_SEARCH_BYTES);
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.allocUnsafeSlow(1024 * 1024);
    const scan: SplitScan = { quotes: 0, newlines: 0, delimiter: 0, prev: -1 };
    let position = base;
    // One pass over every byte up to the split, counting lines to number the second part's rows.
    // The count is of one kind of line end: a file that mixes them, or ends lines with a bare CR,
    // is not split (the single pass runs, and reads every kind; src/csv/reader.ts, LINE_ENDS).
    while (position < limit) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, position);
      if (bytesRead === 0) break;
      // Keep one byte of look-ahead inside the chunk (CRLF, the byte after a split).
      const usable = Math.min(position + bytesRead >= size ? bytesRead : bytesRead - 1, limit - position);
      const at = scanChunk(scan, buf, bytesRead, usable, target - position);
      if (at === MIXED) return 'mixed line ends';
      if (at === BARE_CR) return 'CR line ends';
      if (at >= 0) return { offset: position + at + 1, line: scan.newlines + format.firstLine, recordDelimiter: scan.delimiter === 2 ? '\r\n' : '\n' };
      position += usable;
    }
    return 'no split point';
  } finally {
    await fh.close();
  }
}

interface SplitScan {
  quotes: number;
  newlines: number;
  /** 0: none met yet, 1: LF, 2: CRLF. */
  delimiter: 0 | 1 | 2;
  prev: number;
}
const NOT_YET = -1;
const MIXED = -2;
const BARE_CR = -3;

/**
 * Scans buf[0, usable) (buf[usable] is look-ahead when present). Returns the index of the LF that
 * ends the first record at or after `from`, NOT_YET, or why the file cannot be split.
 */
function scanChunk(s: SplitScan, chunk: Buffer, length: number, usable: number, from: number): number {
  // A plain Uint8Array view: V8 reads it faster in this loop than the Buffer subclass.
  const buf = new Uint8Array(chunk.buffer, chunk.byteOffset, length);
  let { quotes, newlines, prev } = s;
  for (let i = 0; i < usable; i++) {
    const c = buf[i] as number;
    if (c === 0x22) {
      quotes++;
    } else if (c === 0x0a) {
      newlines++;
      if ((quotes & 1) === 0) {
        const kind = prev === 0x0d ? 2 : 1;
        if (s.delimiter === 0) s.delimiter = kind;
        else if (s.delimiter !== kind) return MIXED;
        if (i >= from && i + 1 < length) {
          const next = buf[i + 1] as number;
          if (next !== 0x0a && next !== 0x0d) {
            s.newlines = newlines;
            return i;
          }
        }
      }
    } else if (c === 0x0d && (quotes & 1) === 0 && (i + 1 >= length || buf[i + 1] !== 0x0a)) {
      return BARE_CR;
    }
    prev = c;
  }
  s.quotes = quotes;
  s.newlines = newlines;
  s.prev = prev;
  return NOT_YET;
}

/** The header fields, read as the single pass reads them; undefined on any problem. */
async function readHeader(path: string, format: CsvFormat): Promise<string[] | undefined> {
  let header: string[] | undefined;
  const stop = new Error('header read');
  try {
    await readCsv(path, {
      format,
      onHeader: (fields) => {
        header = fields;
        throw stop;
      },
      onRecord: () => undefined,
    });
  } catch (err) {
    if (err !== stop) return undefined;
  }
  return header;
}

/**
 * Room for a pass: WORKER_OLD_MB, and the messages of the batches the grouping holds open (up to
 * GROUP_WINDOW of them, each about as long as a line plus the text: twice that in bytes should it
 * be UTF-16). A pass that needs more still (lines much longer than sampledLineBytes saw) runs out
 * of it: the worker fails and the caller runs the pass on its own thread, as for any worker failure.
 */
export function workerOldMb(job: Pick<PartJob, 'format' | 'message'>): number {
  const perMessage = job.format.lineBytes + (job.message?.text?.length ?? 0);
  return WORKER_OLD_MB + Math.ceil((2 * GROUP_WINDOW * perMessage) / (1024 * 1024));
}

const SAMPLE_BYTES = 64 * 1024;

/**
 * Bytes per line, the most of three samples: the file's first 64 KiB (`format.lineBytes`), its
 * middle and its end. A file whose first rows are short and later ones long (a test batch on top,
 * the campaign below) would otherwise get a heap sized for the short ones, outgrow it, and have
 * its preflight run twice.
 */
export async function sampledLineBytes(path: string, size: number, format: CsvFormat): Promise<number> {
  let most = format.lineBytes;
  let fh: FileHandle | undefined;
  try {
    fh = await open(path, 'r');
    const buf = Buffer.allocUnsafe(SAMPLE_BYTES);
    for (const at of [Math.floor(size / 2), Math.max(0, size - SAMPLE_BYTES)]) {
      const { bytesRead } = await fh.read(buf, 0, SAMPLE_BYTES, at);
      const ends = countLineEnds(buf.subarray(0, bytesRead));
      // Fewer than two line ends: a line at least as long as the sample.
      most = Math.max(most, ends > 1 ? bytesRead / ends : bytesRead);
    }
  } catch {
    // The first lines' figure stands.
  } finally {
    await fh?.close();
  }
  return most;
}

function runPart(job: PartJob, o: Pick<ParallelOptions, 'signal' | 'oldGenerationMb'> & { youngGenerationMb?: number }): { result: Promise<PartResult>; stop: () => Promise<void> } {
  // A stop that came while the file was being looked at (the split point, the header, the line
  // samples): an aborted signal fires no more, so a listener added now would never hear it and
  // the worker would run the whole pass before the caller's checkpoint noticed.
  if (o.signal?.aborted === true) return { result: Promise.reject(new Error('interrupted')), stop: () => Promise.resolve() };
  const worker = startWorker('preflight-part', {
    workerData: job,
    resourceLimits: { maxYoungGenerationSizeMb: o.youngGenerationMb ?? WORKER_YOUNG_MB, maxOldGenerationSizeMb: o.oldGenerationMb ?? workerOldMb(job) },
    stdout: false,
    stderr: false,
  });
  const result = new Promise<PartResult>((resolve, reject) => {
    let settled = false;
    const interrupted = (): void => reject(new Error('interrupted'));
    // The run's signal outlives the preflight: a listener left on it would keep this promise, and
    // with it the part's set of numbers (8 bytes a slot: 16 MB for 1,000,000 rows), for the
    // whole send.
    const settle = (): void => {
      settled = true;
      o.signal?.removeEventListener('abort', interrupted);
    };
    worker.once('message', (m: PartMessage) => {
      settle();
      if (m.ok) resolve(m.result);
      else reject(new Error(m.error));
    });
    worker.once('error', (err) => {
      settle();
      reject(err);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`preflight worker exited with code ${code}`));
      settle();
    });
    o.signal?.addEventListener('abort', interrupted, { once: true });
  });
  return { result, stop: async () => void (await worker.terminate()) };
}

/**
 * The preflight in two workers, or undefined when the file is not split (too small, an encoding
 * or line end that is not safe to split, a worker failed): then the caller runs the single pass.
 */
export async function runParallelPreflight(o: ParallelOptions): Promise<SplitPreflight | undefined> {
  const split = await findSplit(o.path, o.format, o.fileBytes, o.minBytes);
  if (typeof split === 'string') return undefined;
  const header = await readHeader(o.path, o.format);
  if (header === undefined) return undefined;
  const estimate = rowEstimate(o);
  const common = jobBase(o);
  const firstJob: PartJob = {
    ...common,
    setCapacity: Math.ceil(estimate * ((split.offset - o.format.firstByte) / Math.max(1, o.fileBytes - o.format.firstByte))),
    spoolPath: o.spoolPath,
    start: undefined,
    end: split.offset,
    recordDelimiter: undefined,
    hash: true,
    firstNumbers: false,
    keepSeen: true,
  };
  const secondJob: PartJob = {
    ...common,
    setCapacity: Math.ceil(estimate * ((o.fileBytes - split.offset) / Math.max(1, o.fileBytes - o.format.firstByte))),
    spoolPath: o.spoolPath !== undefined ? secondSpool(o.spoolPath) : undefined,
    start: { offset: split.offset, line: split.line, header },
    end: undefined,
    recordDelimiter: split.recordDelimiter,
    hash: false,
    firstNumbers: true,
    keepSeen: true,
  };
  let first: ReturnType<typeof runPart> | undefined;
  let second: ReturnType<typeof runPart> | undefined;
  try {
    first = runPart(firstJob, o);
    second = runPart(secondJob, o);
  } catch (err) {
    // No worker (a build without its file, a thread limit): one pass does it.
    await first?.stop();
    o.onFailure?.(failureOf(err));
    return undefined;
  }
  let a: PartResult;
  let b: PartResult;
  try {
    [a, b] = await Promise.all([first.result, second.result]);
  } catch (err) {
    await Promise.all([first.stop(), second.stop()]);
    if (o.signal?.aborted !== true) o.onFailure?.(failureOf(err));
    return undefined;
  }
  await Promise.all([first.stop(), second.stop()]);
  // The first part must end on the line the second was told it starts on.
  if (a.nextLine !== split.line || a.columns === undefined || a.seen === undefined || b.seen === undefined) return undefined;
  return merge({ ...a, seen: a.seen }, { ...b, seen: b.seen }, o.batchSize, o.fileLabel, common.maxProblems, o.spoolPath, split.line, o.sent);
}

/** What every worker job of this file is given, whichever part of it the worker reads. */
function jobBase(o: ParallelOptions): Pick<PartJob, 'path' | 'fileLabel' | 'format' | 'columns' | 'country' | 'allowUnlisted' | 'fixMojibake' | 'repeats' | 'exclude' | 'sent' | 'resent' | 'batchSize' | 'maxProblems'> {
  return {
    path: o.path,
    fileLabel: o.fileLabel,
    format: o.format,
    columns: o.columns,
    country: o.country,
    allowUnlisted: o.allowUnlisted === true,
    fixMojibake: o.fixMojibake === true,
    repeats: o.repeats,
    exclude: o.exclude?.export(),
    sent: o.sent?.export(),
    resent: o.resent?.export(),
    batchSize: o.batchSize,
    maxProblems: o.maxProblems ?? 20,
  };
}

/** Rows the file holds, from its first line's length, with 5 % to spare: sizes the number sets. */
function rowEstimate(o: ParallelOptions): number {
  return o.format.lineBytes > 0 ? Math.ceil((o.fileBytes / o.format.lineBytes) * 1.05) : 0;
}

/**
 * The whole preflight in one worker, for rows with messages of their own (not split: see
 * bulk/preflight/pass.ts). Rendering, counting parts and grouping allocate per row; in a worker
 * with a small young generation that garbage is collected early, which keeps peak RSS down.
 * Undefined when no worker could do it (`onFailure` says why): the caller runs the pass itself,
 * and gives its errors.
 */
export async function runWholeInWorker(o: ParallelOptions & { readonly message: MessageSource | undefined; readonly keepFirst: number }): Promise<PreflightResult | undefined> {
  const job: PartJob = {
    ...jobBase(o),
    setCapacity: rowEstimate(o),
    spoolPath: o.spoolPath,
    start: undefined,
    end: undefined,
    recordDelimiter: undefined,
    hash: true,
    firstNumbers: false,
    keepSeen: false,
    message: o.message,
    keepFirst: o.keepFirst,
  };
  const oldGenerationMb = o.oldGenerationMb ?? workerOldMb({ format: { ...o.format, lineBytes: await sampledLineBytes(o.path, o.fileBytes, o.format) }, message: o.message });
  let part: ReturnType<typeof runPart>;
  try {
    part = runPart(job, { signal: o.signal, oldGenerationMb, youngGenerationMb: WHOLE_YOUNG_MB });
  } catch (err) {
    o.onFailure?.(failureOf(err));
    return undefined;
  }
  let r: PartResult;
  try {
    r = await part.result;
  } catch (err) {
    await part.stop();
    // Said under --verbose: the pass runs again on the caller's thread, which takes its time.
    if (o.signal?.aborted !== true) o.onFailure?.(failureOf(err));
    return undefined;
  }
  await part.stop();
  // The totals arrive as plain data (structured clone): give them their methods back.
  const totals = r.totals !== undefined ? Object.assign(new TextTotals(), r.totals) : undefined;
  return finishPreflight({ ...r, totals, seen: new NumberSet(16), several: NumberSet.from(r.several) }, o.batchSize, o.fileLabel);
}

function failureOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function merge(a: PartResult & { seen: ExportedSet }, b: PartResult & { seen: ExportedSet }, batchSize: number, fileLabel: string, maxProblems: number, spoolPath: string | undefined, splitLine: number, sent: NumberSet | undefined): SplitPreflight | undefined {
  const seenA = NumberSet.from(a.seen);
  const seenB = NumberSet.from(b.seen);
  const shared = seenB.countShared(seenA);
  // Of those, the second part's `A` lines (an earlier run accepted the number), not `S` lines.
  const sharedSent = shared > 0 && sent !== undefined ? seenB.countShared(seenA, sent) : 0;
  // The second part's rows whose number the first part has are duplicates too (joinSpools).
  const across = shared > 0 ? seenB.sharedKeys(seenA, DUPLICATE_KEYS) : [];
  // Numbers with different messages: each part's own, and those whose first messages differ between the parts.
  const { several, across: otherFirst } = mergeSeveral({ seen: seenA, several: NumberSet.from(a.several) }, { seen: seenB, several: NumberSet.from(b.several) });
  let firstBatch = a.firstBatch;
  if (firstBatch.length < batchSize) {
    firstBatch = [...firstBatch];
    for (let i = 0; i < b.firstBatch.length && firstBatch.length < batchSize; i++) {
      if (shared === 0 || seenA?.has(b.firstNumbers[i] as number) !== true) firstBatch.push(b.firstBatch[i] as string);
    }
    // The second part kept only its first batch; with duplicates dropped from it, more might be
    // needed. Rare (the first part sends almost nothing): let the single pass answer.
    if (firstBatch.length < batchSize && b.toSend > b.firstBatch.length) return undefined;
  }
  const range: RangeResult = {
    columns: a.columns,
    rows: a.rows + b.rows,
    invalid: a.invalid + b.invalid,
    duplicates: a.duplicates + b.duplicates + shared,
    excluded: a.excluded + b.excluded,
    suppressed: a.suppressed + b.suppressed,
    undecided: { count: a.undecided.count + b.undecided.count, rows: [...a.undecided.rows, ...b.undecided.rows].slice(0, UNDECIDED_SHOWN) },
    alreadySent: a.alreadySent + b.alreadySent - sharedSent,
    resent: a.resent + b.resent - (shared > 0 ? b.resentKeys.filter((k) => seenA.has(k)).length : 0),
    // Messages of their own are never split (bulk/preflight/pass.ts): these stay at 0 here.
    alreadySentOthers: { count: a.alreadySentOthers.count + b.alreadySentOthers.count, lines: [...a.alreadySentOthers.lines, ...b.alreadySentOthers.lines], keys: [...a.alreadySentOthers.keys, ...b.alreadySentOthers.keys] },
    outsidePlan: a.outsidePlan + b.outsidePlan - (shared > 0 ? b.outsideKeys.filter((k) => seenA?.has(k) === true).length : 0),
    unnamedValues: { count: a.unnamedValues.count + b.unnamedValues.count, first: a.unnamedValues.first ?? b.unnamedValues.first, columns: mergeColumns(a.unnamedValues.columns, b.unnamedValues.columns) },
    toSend: a.toSend + b.toSend - (shared - sharedSent),
    problems: [...a.problems, ...b.problems].slice(0, maxProblems),
    groups: mergeGroups(a.groups, b.groups),
    outsideSamples: [...a.outsideSamples, ...b.outsideSamples.filter((x) => shared === 0 || seenA?.has(numberKey(x.number)) !== true)].slice(0, 5),
    outsideKeys: [],
    landlines: a.landlines + b.landlines - (shared > 0 ? b.landlineKeys.filter((k) => seenA?.has(k) === true).length : 0),
    landlineSamples: [...a.landlineSamples, ...b.landlineSamples.filter((x) => shared === 0 || seenA?.has(numberKey(x.number)) !== true)].slice(0, LANDLINE_SAMPLES),
    landlineKeys: [],
    resentKeys: [],
    firstBatch,
    firstNumbers: [],
    hash: a.hash,
    dataHash: a.dataHash,
    bytes: b.bytes,
    nextLine: b.nextLine,
    seen: seenA,
    several,
    fingerprinted: a.fingerprinted,
    duplicateKeys: [...new Set([...a.duplicateKeys, ...b.duplicateKeys, ...across])].slice(0, DUPLICATE_KEYS),
  };
  return {
    ...finishPreflight(range, batchSize, fileLabel),
    spool: spoolPath !== undefined ? joinSpools(spoolPath, shared > 0 ? { first: seenA, otherFirst, fingerprinted: a.fingerprinted } : undefined) : undefined,
    splitLine,
  };
}

/** The second part's spool, beside the first. */
function secondSpool(spoolPath: string): string {
  return `${spoolPath}.2`;
}

/** Removes the spools a split preflight wrote beside `spoolPath` (the first is the caller's). */
export function removeSplitSpools(spoolPath: string): void {
  removeSpool(secondSpool(spoolPath));
}

/**
 * Both parts in row order. `S` and `A` lines of the second part with a number the first part has
 * (`shared.first`) are read as duplicates: of another message when the parts' first messages of
 * it differ (`otherFirst`). The second part's duplicates of such a number are judged again against
 * the first part's first message. As one pass writes them (bulk/preflight/repeats.ts).
 */
function joinSpools(spoolPath: string, shared: { first: NumberSet; otherFirst: NumberSet; fingerprinted: boolean } | undefined): SpoolSource {
  return async (onLine, afterChunk) => {
    await readSpool(spoolPath, onLine, afterChunk);
    await readSpool(
      secondSpool(spoolPath),
      shared === undefined ? onLine : (kind, line, number, payload) => {
        const key = numberKey(number);
        const first = kind === 'S' || kind === 'A' || kind === 'D' ? shared.first.get(key) : undefined;
        if (first === undefined) onLine(kind, line, number, payload);
        else if (kind === 'D') onLine('D', line, number, rejudged(payload, first));
        else onLine('D', line, number, shared.fingerprinted ? settledPayload(shared.otherFirst.has(key) ? 'other' : 'same') : '');
      },
      afterChunk,
    );
  };
}
