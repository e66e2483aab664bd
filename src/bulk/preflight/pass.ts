// src/bulk/preflight/: every row checked before anything is sent. pass.ts (this file) runs it, on
// one core (range.ts) or two (parallel.ts, with src/workers/preflight-part.ts); row-check.ts is one
// row's verdict, repeats.ts a number on several rows, problems.ts the invalid rows by cause,
// spool.ts the verdicts kept on disk for the send pass. It imports input/, compose/, report/ and
// journal/.
//
// The preflight pass of a bulk run: the file's format, then every row checked before anything is
// sent, on two cores when the file is big enough and safe to split (bulk/preflight/parallel.ts), else in one
// pass (bulk/preflight/range.ts). It hands the send pass one spool source, however it was written
// (docs/campaign-input.md: "Preflight", and Scale).
import type { CountryCode } from 'libphonenumber-js/max';
import type { Context } from '../../context.js';
import { fileHint, fileProblem, UsageError } from '../../errors.js';
import type { ColumnOptions, ColumnPlan } from '../input/columns.js';
import type { LeaveOutRule } from '../input/exclude.js';
import type { RunShape } from '../journal/records.js';
import type { NumberChecker } from '../input/number-check.js';
import type { NumberSet } from '../input/number-set.js';
import { messageColumnNames, type MessageSource, type RowMessagePlan } from '../compose/personalise.js';
import { repeatMode } from './repeats.js';
import { PARALLEL_MIN_BYTES, removeSplitSpools, runParallelPreflight, runWholeInWorker } from './parallel.js';
import { runPreflight, type PreflightResult, type RowZoneCheck, type SentMessages } from './range.js';
import { createRowChecker, csvUtf8Hint, type RowChecker } from './row-check.js';
import { CsvInputError, detectFormat, NotCsvError, readCsv, type CsvFormat } from '../../csv/reader.js';
import { windows1252 } from '../../message/text-file.js';
import { ReportWriter } from '../report/report-file.js';
import { removeSpool, spoolFile, SpoolWriter, type SpoolSource } from './spool.js';
import { FLAG } from '../flag-names.js';
import type { CostTally } from '../../pricing/estimate.js';

export interface PreflightPassConfig {
  readonly path: string;
  readonly fileLabel: string;
  readonly fileBytes: number;
  readonly shape: RunShape;
  /** The shape's --var-columns were given (or journaled): else every other column is a variable. */
  readonly varColumnsGiven: boolean;
  readonly country: CountryCode | undefined;
  readonly checker: NumberChecker;
  /** The numbers not to message (bulk/input/exclude.ts LeaveOutRule): asked row by row, or listed for worker threads. */
  readonly exclude: LeaveOutRule | undefined;
  /** Numbers an earlier run accepted: their rows are left out as already sent (bulk/earlier/already-sent.ts). */
  readonly sent?: NumberSet | undefined;
  /** With --allow-duplicates: which of their messages (bulk/preflight/range.ts SentMessages). */
  readonly sentMessages?: SentMessages | undefined;
  /** --delivered-only: the numbers not delivered, sent again (bulk/preflight/range.ts). */
  readonly resent?: NumberSet | undefined;
  /** Where the verdicts go for the send pass; undefined for a dry run. */
  readonly spoolPath: string | undefined;
  readonly env: Context['env'];
  readonly signal: AbortSignal;
  /** Throws when the run was interrupted. */
  readonly checkpoint: () => void;
  readonly debug: (line: string) => void;
  readonly defer: (cleanup: () => void) => void;
  /** Registers a tidy-up for a signal that quits at once (Context.atQuit). */
  readonly atQuit?: ((tidy: () => void) => void) | undefined;
  /** Rows have messages of their own (bulk/compose/personalise.ts). */
  readonly message?: MessageSource | undefined;
  /** How many of the first rows to send to keep (--preview, --sample-to). */
  readonly keepFirst?: number | undefined;
  /** --price-file: the rows to send priced (in one pass on this thread: the tally is this thread's). */
  readonly cost?: CostTally | undefined;
  readonly sharedParts?: number | undefined;
  /** Send windows on each row's clock: each row's zones (bulk/preflight/range.ts RowZoneCheck). */
  readonly rowZones?: RowZoneCheck | undefined;
}

export interface PreflightPass {
  readonly pre: PreflightResult;
  readonly format: CsvFormat;
  /** The verdicts in row order; undefined for a dry run. */
  readonly spool: SpoolSource | undefined;
  /** How long the pass took, for people. */
  readonly seconds: string;
}

export async function preflightPass(c: PreflightPassConfig): Promise<PreflightPass> {
  let format: CsvFormat;
  try {
    format = await detectFormat(c.path, {
      encoding: c.shape.encoding !== '' ? (c.shape.encoding as CsvFormat['encoding']) : undefined,
      delimiter: c.shape.delimiter !== '' ? c.shape.delimiter : undefined,
      noHeader: c.shape.noHeader,
    });
  } catch (err) {
    if (err instanceof NotCsvError) throw new UsageError(`${c.fileLabel} ${err.message}; nothing was sent`, { hint: err.hint });
    throw new UsageError(`cannot read ${c.fileLabel} (${fileProblem(err)})`, { hint: fileHint(err) });
  }
  if (format.utf8Text !== undefined) {
    const { line, text } = format.utf8Text;
    throw new UsageError(`${c.fileLabel}: ${FLAG.encoding} latin1 was given, but the file is UTF-8 text: line ${line} has "${text}", which latin1 would send as "${windows1252(Buffer.from(text, 'utf8').toString('latin1'))}"; nothing was sent`, {
      hint: `Leave out ${FLAG.encoding} latin1: msgr reads UTF-8 (with or without a BOM) by itself.`,
    });
  }
  const columns = {
    msisdnColumn: c.shape.msisdnColumn !== '' ? c.shape.msisdnColumn : undefined,
    varColumns: c.varColumnsGiven ? c.shape.varColumns : undefined,
    metaColumns: c.shape.metaColumns,
    ...(c.message !== undefined ? { messageColumns: messageColumnNames(c.message) } : {}),
  };
  const spoolPath = c.spoolPath;
  if (spoolPath !== undefined) {
    const remove = (): void => {
      removeSpool(spoolPath);
      removeSplitSpools(spoolPath);
    };
    c.defer(remove);
    // Quitting at once (a second Ctrl-C) leaves no spool either: a resume writes it again.
    c.atQuit?.(remove);
  }
  const started = performance.now();
  try {
    return await passOf(c, format, columns, spoolPath, started);
  } finally {
    // The store's index, held open while the rows were asked of it.
    c.exclude?.release();
  }
}

/** The fewest bytes a row takes (`+4479111234`, a line end): the most rows a file of unknown lines holds. */
const MIN_ROW_BYTES = 12;

/** Where the pass runs: on this thread, or in worker threads when the file is big enough. */
function threadsOf(c: PreflightPassConfig): { personal: boolean; here: boolean; threshold: number | undefined } {
  return {
    // Rows with messages of their own are read in one pass: the split would count the parts of
    // rows it later finds to be duplicates across its halves, and cannot group rows across them.
    // So are --allow-duplicates runs: a number's further messages are sent, and which of the
    // second half's are new to it depends on every message the first half gave it.
    personal: c.message !== undefined || (c.keepFirst ?? 0) > 0 || c.shape.allowDuplicates || c.rowZones !== undefined,
    // A cost estimate and --mobile-only's types are tallied on this thread, in one pass (the split's
    // join would have to take the duplicates across its halves out of them again).
    here: c.cost !== undefined || c.shape.mobileOnly === true,
    // Rows grouped by their zones are read on this thread: the worker is not given the zones' rule.
    threshold: c.rowZones !== undefined ? undefined : parallelMinBytes(c.env),
  };
}

/**
 * The pass may run in worker threads (a file of PARALLEL_MIN_BYTES or more, split or whole): they
 * are given the numbers not to message listed in one set, whose making then costs little against
 * the file's; a pass on this thread asks each row's number instead (bulk/input/exclude.ts
 * LeaveOutRule: a small run over a large opt-out store costs what it does over an empty one).
 */
function mayUseWorkers(c: PreflightPassConfig): boolean {
  const { personal, here, threshold } = threadsOf(c);
  return !here && threshold !== undefined && c.fileBytes >= threshold && (!personal || c.sentMessages === undefined);
}

async function passOf(c: PreflightPassConfig, format: CsvFormat, columns: ColumnOptions, spoolPath: string | undefined, started: number): Promise<PreflightPass> {
  const { personal, threshold } = threadsOf(c);
  // Worker threads are given the numbers not to message listed (none runs otherwise); this thread
  // asks them row by row, or lists them when that costs less (a small store, many rows).
  const workers = mayUseWorkers(c) && threshold !== undefined;
  c.exclude?.prepare(workers ? Infinity : format.lineBytes > 0 ? c.fileBytes / format.lineBytes : c.fileBytes / MIN_ROW_BYTES);
  // What a pass in a worker thread needs, split or whole.
  const job = {
    path: c.path,
    fileLabel: c.fileLabel,
    format,
    columns,
    country: c.country,
    allowUnlisted: c.shape.allowUnlisted === true,
    fixMojibake: c.shape.fixMojibake === true,
    repeats: repeatMode(c.shape),
    exclude: workers ? c.exclude?.listed() : undefined,
    sent: c.sent,
    resent: c.resent,
    batchSize: c.shape.batchSize,
    fileBytes: c.fileBytes,
    spoolPath,
    signal: c.signal,
    onFailure: (why: string) => c.debug(`preflight: a worker thread failed (${why}); the pass runs again on this thread`),
  };
  const split = workers && !personal ? await runParallelPreflight({ ...job, minBytes: threshold }) : undefined;
  c.checkpoint();
  let pre: PreflightResult;
  let spool: SpoolSource | undefined;
  if (split !== undefined) {
    pre = split;
    spool = split.spool;
    c.debug(`preflight: two threads, the second from line ${split.splitLine}`);
  } else {
    if (spoolPath !== undefined) removeSplitSpools(spoolPath);
    // Rows with messages of their own: the one pass in a worker when the file is big enough.
    // Not when a number's messages are left out one by one: the worker gets numbers only.
    const inWorker = workers && personal
      ? await runWholeInWorker({ ...job, message: c.message, keepFirst: c.keepFirst ?? 0 })
      : undefined;
    c.checkpoint();
    if (inWorker !== undefined) {
      c.debug('preflight: one worker thread');
      return { pre: inWorker, format, spool: spoolPath !== undefined ? spoolFile(spoolPath) : undefined, seconds: ((performance.now() - started) / 1000).toFixed(1) };
    }
    const writer = spoolPath !== undefined ? new SpoolWriter(spoolPath) : undefined;
    try {
      pre = await runPreflight({
        path: c.path,
        fileLabel: c.fileLabel,
        format,
        columns,
        checker: c.checker,
        repeats: repeatMode(c.shape),
        fixMojibake: c.shape.fixMojibake === true,
        exclude: c.exclude,
        sent: c.sent,
        sentMessages: c.sentMessages,
        resent: c.resent,
        batchSize: c.shape.batchSize,
        fileBytes: c.fileBytes,
        spool: writer,
        checkpoint: c.checkpoint,
        message: c.message,
        keepFirst: c.keepFirst,
        cost: c.cost,
        sharedParts: c.sharedParts,
        mobileOnly: c.shape.mobileOnly === true,
        rowZones: c.rowZones,
      });
    } catch (err) {
      if (err instanceof CsvInputError) throw new UsageError(`${c.fileLabel} ${err.message}; nothing was sent`, { hint: 'Fix the file and run again.' });
      throw err;
    } finally {
      writer?.close();
    }
    spool = spoolPath !== undefined ? spoolFile(spoolPath) : undefined;
  }
  return { pre, format, spool, seconds: ((performance.now() - started) / 1000).toFixed(1) };
}

/**
 * The smallest file the preflight splits over two workers; undefined: never.
 * MSGR_BULK_PARALLEL_MIN_BYTES changes it (tests; `off` turns the split off).
 */
function parallelMinBytes(env: Context['env']): number | undefined {
  const v = env.MSGR_BULK_PARALLEL_MIN_BYTES;
  if (v === undefined || v === '') return PARALLEL_MIN_BYTES;
  if (v === 'off') return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : PARALLEL_MIN_BYTES;
}

/**
 * The report of a run that stopped at the preflight: every invalid row with why (not just the
 * first ones), the rest not sent. Closes the writer.
 */
export async function reportInvalidRows(path: string, format: CsvFormat, pass: { columns: ColumnPlan; checker: NumberChecker; message?: RowMessagePlan | undefined; fixMojibake?: boolean | undefined }, report: ReportWriter): Promise<void> {
  try {
    await writePreflightReport(path, format, pass.columns, createRowChecker(pass.columns, pass.checker, csvUtf8Hint(format), pass.message, pass.fixMojibake === true), report);
  } catch (err) {
    report.discard();
    throw err;
  }
  report.close();
}

async function writePreflightReport(path: string, format: CsvFormat, columns: ColumnPlan, checkRow: RowChecker, report: ReportWriter): Promise<void> {
  await readCsv(path, {
    format,
    onRecord: (fields, _index, line) => {
      const r = checkRow(fields);
      if (r.verdict === 'invalid') {
        const number = (fields[columns.msisdn] ?? '').trim();
        report.write({ line, number, outcome: 'invalid', error: `${r.column !== undefined && r.column !== '' ? `${r.column}: ` : ''}${r.reason ?? 'invalid'}` });
      } else {
        report.write({ line, number: r.e164, outcome: 'not-sent', error: 'not sent: the file has invalid rows' });
      }
    },
  });
}
