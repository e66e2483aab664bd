// The preflight pass (docs/campaign-input.md: "Preflight"), always before the first request: every row is
// read and checked before anything is sent; problems are counted by cause, with the first few
// rows of each kept; duplicates and opted-out numbers are set aside; the verdict per row, with the
// recipient's JSON, goes to the spool file for the send pass. Also hashes the file, so --resume
// can refuse a file that changed.
import { createHash, type Hash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { DataHash } from '../../csv/data-hash.js';
import { UsageError } from '../../errors.js';
import { planColumns, recipientJson, type ColumnOptions, type ColumnPlan } from '../input/columns.js';
import { Grouper } from '../compose/grouping.js';
import { planRowMessage, type MessageSource } from '../compose/personalise.js';
import { TextTotals } from '../../message/text-totals.js';
import type { NumberChecker } from '../input/number-check.js';
import { LEAVE_OUT, type LeaveOutProbe } from '../input/exclude.js';
import { DUPLICATE_KEYS, NumberSet, numberKey } from '../input/number-set.js';
import { duplicatePayload, messageHash, NumberRepeats, SEVERAL_SHOWN, type RepeatMode } from './repeats.js';
import { addToGroup, SAMPLES_PER_CAUSE, type ProblemGroup, type RowProblem } from './problems.js';
import { createRowChecker, csvUtf8Hint, ENCODING_CAUSES, type RowCheck, type RowChecker } from './row-check.js';
import type { SpoolWriter } from './spool.js';
import { messageKeyOf, ZONE_KEY_END, type RowZones } from '../../schedule/index.js';
import { isSimpleRange, readCsv, readSimpleCsv, type CsvFormat, type ReadResult } from '../../csv/reader.js';
import { formatCount } from '../../output/count.js';
import { FLAG } from '../flag-names.js';
import type { CostTally } from '../../pricing/estimate.js';
import { describeNumberType, NOT_MOBILE, numberType } from '../../number-types/number-type.js';

/** What every preflight pass, whole file or part, checks the rows with. */
export interface RowPassOptions {
  readonly path: string;
  readonly fileLabel: string;
  readonly format: CsvFormat;
  readonly columns: ColumnOptions;
  readonly checker: NumberChecker;
  /** A number on rows with different messages: a stop, each message, or the first (bulk/preflight/repeats.ts). */
  readonly repeats: RepeatMode;
  /** --fix-mojibake: text mangled by a spreadsheet round trip is repaired, not an invalid row. */
  readonly fixMojibake?: boolean | undefined;
  /**
   * Numbers not to message (bulk/input/exclude.ts whyLeftOut): LEAVE_OUT.excluded (the --exclude
   * list), LEAVE_OUT.optedOut (the opt-out store) or LEAVE_OUT.undecided, one question per row for
   * all: a set of them all (a worker's), or the lists asked in turn (LeaveOutRule).
   */
  readonly exclude?: LeaveOutProbe | undefined;
  /**
   * Numbers an earlier run accepted (--skip-sent, --restart: bulk/earlier/already-sent.ts): rows to send with one
   * are left out as already sent, before any row is grouped or counted.
   */
  readonly sent?: NumberSet | undefined;
  /**
   * With --allow-duplicates and rows that differ in their message: which of a number's messages
   * the earlier runs accepted, so only those rows are left out (bulk/earlier/already-sent.ts).
   * Absent: rows are left out by number.
   */
  readonly sentMessages?: SentMessages | undefined;
  /**
   * --delivered-only: the numbers the earlier runs' message did not reach, sent again. Those
   * among the rows to send are counted (`resent`), so that the line that says how many were not
   * delivered says in the same breath how many are sent again (bulk/earlier/already-sent.ts).
   */
  readonly resent?: NumberSet | undefined;
  readonly batchSize: number;
  /** Where the verdicts and recipient JSON go for the send pass; none for a dry run. */
  readonly spool?: SpoolWriter | undefined;
  /** Checked between chunks; throw to stop. */
  readonly checkpoint?: (() => void) | undefined;
  readonly maxProblems?: number | undefined;
  /** A message per row (bulk/compose/personalise.ts): rows are grouped by it, its parts counted. */
  readonly message?: MessageSource | undefined;
  /** How many of the first rows to send to keep, with their message (--preview, --sample-to). */
  readonly keepFirst?: number | undefined;
  /** --price-file: each row to send is priced at its parts (one shared text: `sharedParts` each). */
  readonly cost?: CostTally | undefined;
  readonly sharedParts?: number | undefined;
  /** --mobile-only: rows whose number is typed other than mobile are left out (`F`). */
  readonly mobileOnly?: boolean | undefined;
  /**
   * Send windows on each row's clock (src/schedule/): each row's zones, from its number or its
   * column; rows are grouped by them as by a message, and a row with none known, or never open,
   * is invalid.
   */
  readonly rowZones?: RowZoneCheck | undefined;
}

/** Each row's zones (src/schedule/ rowZoneChecker), and the column they come from (--tz column:NAME). */
export interface RowZoneCheck {
  readonly check: (e164: string, cell: string | undefined) => RowZones;
  readonly column: string | undefined;
  /** The flag that names the column, for a file without it. */
  readonly flag: string;
}

/** What earlier runs accepted of each number's messages (bulk/preflight/repeats.ts messageHash). */
export interface SentMessages {
  /** The number-and-message hash of each recipient of an accepted batch that journaled them. */
  readonly messages: NumberSet;
  /** Numbers accepted by a batch that journaled numbers only: which message they had is unknown. */
  readonly numbersOnly: NumberSet;
}

/** One of the first rows to send, as the send pass will send it. */
export interface FirstRow {
  readonly line: number;
  readonly e164: string;
  /** Its `recipients[]` entry. */
  readonly recipient: string;
  /** Its message's grouping key (bulk/compose/personalise.ts); undefined with one shared message. */
  readonly key: string | undefined;
}

export interface PreflightOptions extends RowPassOptions {
  /** The file's size in bytes, to size the duplicate set once instead of growing it. */
  readonly fileBytes?: number;
}

export interface PreflightResult {
  readonly columns: ColumnPlan;
  readonly rows: number;
  readonly valid: number;
  readonly invalid: number;
  readonly duplicates: number;
  /**
   * Numbers on rows with different messages (bulk/preflight/repeats.ts): a stop unless --allow-duplicates
   * (each message is sent) or --first-per-number (the later rows are among the duplicates).
   */
  readonly differentMessages: number;
  /** Those numbers, for the refusal to find their lines. */
  readonly several: NumberSet;
  readonly excluded: number;
  /** Left out because the number is in the opt-out store (docs/optouts.md). */
  readonly suppressed: number;
  /** Rows whose number has a possible opt-out no one has decided on: the run stops (docs/optouts.md). */
  readonly undecided: { readonly count: number; readonly rows: ReadonlyArray<{ readonly line: number; readonly number: string }> };
  /** Left out because an earlier run accepted the number (not in toSend). */
  readonly alreadySent: number;
  /** Numbers of `resent` among the rows to send (each number once). */
  readonly resent: number;
  /**
   * With --allow-duplicates, rows of a number an earlier run accepted that has several messages
   * in this file, where that run's journal does not say which message it had (it journaled
   * numbers only): the run stops rather than guess (stages/checking.ts). `keys`: the first numbers.
   */
  readonly alreadySentOthers: { readonly count: number; readonly lines: readonly number[]; readonly keys: readonly number[] };
  /** Possible numbers outside the known numbering plan, sent as --allow-unlisted-numbers says. */
  readonly outsidePlan: number;
  /** Rows to send whose number is a fixed line by its numbering plan (SMS to it usually fails). */
  readonly landlines: number;
  readonly landlineSamples: ReadonlyArray<{ line: number; number: string }>;
  /** Valid rows with a value under a header with no name: the value is not sent (a warning). */
  readonly unnamedValues: UnnamedValues;
  readonly toSend: number;
  readonly requests: number;
  readonly problems: readonly RowProblem[];
  /** Every invalid row counted under its cause. */
  readonly groups: readonly ProblemGroup[];
  readonly outsideSamples: ReadonlyArray<{ line: number; number: string }>;
  /** The first request's recipients (for --dry-run). */
  readonly firstBatch: readonly string[];
  /** The first request's message (its grouping key) when rows have messages of their own. */
  readonly firstKey: string | undefined;
  /** The parts of the messages to send, when rows have messages of their own. */
  readonly totals: TextTotals | undefined;
  readonly firstRows: readonly FirstRow[];
  /** sha256 of the bytes read (after any BOM). */
  readonly hash: string;
  /** The hash of the data those bytes hold, however saved (csv/data-hash.ts). */
  readonly dataHash: string;
  readonly bytes: number;
  /** Numbers that had a duplicate row (up to DUPLICATE_KEYS of them): the send pass names the line each repeats. */
  readonly duplicateKeys: readonly number[];
  /** --mobile-only: the rows left out by their number's type. */
  readonly filtered?: Filtered;
}

/** --mobile-only's rows left out, by type (libphonenumber-js names); `kept`: rows typed "fixed line or mobile", sent. */
export interface Filtered {
  count: number;
  kept: number;
  byType: Partial<Record<string, number>>;
  samples: Array<{ line: number; number: string; type: string }>;
}

/**
 * What to do about invalid rows: each cause's own hint, and --skip-invalid only when it would
 * send something (never when every row is invalid, a duplicate or excluded), and never for rows
 * that fail on the file's encoding (not valid UTF-8, or mangled by a spreadsheet): leaving them
 * out would leave out exactly the people with accented names.
 */
export function invalidRowsHint(pre: PreflightResult): string {
  const hints = [...new Set(pre.groups.flatMap((g) => (g.hint !== undefined ? [g.hint] : [])))];
  const encoding = pre.groups.filter((g) => ENCODING_CAUSES.has(g.cause));
  const garbled = garbledRows(pre);
  const others = `${formatCount(pre.toSend)} other recipient${pre.toSend === 1 ? '' : 's'}`;
  let skip: string;
  if (garbled === 0) {
    skip = pre.toSend > 0 ? `Fix the rows, or add ${FLAG.skipInvalid} to send the ${others} and list these in the summary and ${FLAG.report}.` : 'Fix the rows and run again: no row could be sent as the file is.';
  } else {
    const rows = `${formatCount(garbled)} row${garbled === 1 ? '' : 's'}`;
    const mendable = encoding.every((g) => g.cause === 'mojibake');
    // Mangled text --fix-mojibake repairs: the rest can then be skipped; not valid UTF-8: the file first.
    skip =
      garbled < pre.invalid && mendable
        ? `${FLAG.skipInvalid} alone is not offered: it would leave out the ${rows} whose text the spreadsheet garbled, people with accented names. Fix the rows, or add ${FLAG.fixMojibake} ${FLAG.skipInvalid} to send those repaired and leave out the ${formatCount(pre.invalid - garbled)} other invalid row${pre.invalid - garbled === 1 ? '' : 's'}.`
        : `${FLAG.skipInvalid} is not offered: it would leave out the ${rows} whose text the file's encoding garbled, people with accented names; fix the encoding${garbled < pre.invalid ? ', and the other rows,' : ''} first.`;
  }
  return [...hints, skip].join('\n      ');
}

/**
 * Invalid rows that fail on the file's encoding (not valid UTF-8, or mangled by a spreadsheet):
 * --skip-invalid does not leave these out, as it would leave out exactly the people with accented
 * names; the run stops until the command says what to do with them (--fix-mojibake, or the file's
 * --encoding).
 */
export function garbledRows(pre: Pick<PreflightResult, 'groups'>): number {
  return pre.groups.filter((g) => ENCODING_CAUSES.has(g.cause)).reduce((n, g) => n + g.count, 0);
}

/** Why a run would send nothing (every row invalid, excluded or a duplicate; no rows), or undefined. */
export function nothingToSend(pre: PreflightResult, fileLabel: string): { message: string; hint: string } | undefined {
  if (pre.rows === 0) {
    return { message: `${fileLabel} has no rows to send to, only its header; nothing was sent`, hint: 'Check that you exported the right sheet, or that the file was written completely.' };
  }
  // Rows left out as already sent were sent: "nothing left to send" is the run's summary, not an error.
  if (pre.toSend > 0 || pre.alreadySent > 0) return undefined;
  const why = [
    pre.invalid > 0 ? `${formatCount(pre.invalid)} invalid` : '',
    pre.excluded > 0 ? `${formatCount(pre.excluded)} excluded` : '',
    pre.suppressed > 0 ? `${formatCount(pre.suppressed)} opted out` : '',
    pre.duplicates > 0 ? `${formatCount(pre.duplicates)} duplicate${pre.duplicates === 1 ? '' : 's'}` : '',
  ].filter((x) => x !== '');
  return {
    message: `nothing to send: every one of the ${formatCount(pre.rows)} row${pre.rows === 1 ? '' : 's'} of ${fileLabel} is invalid, excluded${pre.suppressed > 0 ? ', opted out' : ''} or a duplicate (${why.join(', ')}); nothing was sent`,
    hint: pre.invalid > 0 ? invalidRowsHint(pre) : pre.suppressed > 0 ? `Check that this is the right file${pre.excluded > 0 ? ` and ${FLAG.exclude} list` : ''}; the opted-out numbers are listed by \`msgr optout list\`.` : `Check that this is the right file and ${FLAG.exclude} list.`,
  };
}

export async function runPreflight(o: PreflightOptions): Promise<PreflightResult> {
  const estimate = o.format.lineBytes > 0 && o.fileBytes !== undefined ? Math.ceil((o.fileBytes / o.format.lineBytes) * 1.05) : 0;
  const r = await preflightRange({ ...o, setCapacity: estimate, hash: true });
  return finishPreflight(r, o.batchSize, o.fileLabel);
}

/** The totals of a preflight, from the pass over the whole file (or the parts merged). */
export function finishPreflight(r: RangeResult, batchSize: number, fileLabel: string): PreflightResult {
  if (r.columns === undefined) {
    throw new UsageError(`${fileLabel} is empty: it has no header row`, { hint: 'The first line names the columns, for example: msisdn,name' });
  }
  return {
    columns: r.columns,
    rows: r.rows,
    valid: r.rows - r.invalid,
    invalid: r.invalid,
    duplicates: r.duplicates,
    differentMessages: r.several.size,
    several: r.several,
    excluded: r.excluded,
    suppressed: r.suppressed,
    undecided: r.undecided,
    alreadySent: r.alreadySent,
    resent: r.resent,
    alreadySentOthers: r.alreadySentOthers,
    outsidePlan: r.outsidePlan,
    landlines: r.landlines,
    landlineSamples: r.landlineSamples,
    unnamedValues: r.unnamedValues,
    toSend: r.toSend,
    requests: r.requests ?? Math.ceil(r.toSend / batchSize),
    problems: r.problems,
    groups: r.groups,
    outsideSamples: r.outsideSamples,
    firstBatch: r.firstBatch,
    firstKey: r.firstKey,
    totals: r.totals,
    firstRows: r.firstRows ?? [],
    hash: r.hash ?? '',
    dataHash: r.dataHash ?? '',
    bytes: r.bytes,
    duplicateKeys: r.duplicateKeys,
    ...(r.filtered !== undefined ? { filtered: r.filtered } : {}),
  };
}

export interface RangeOptions extends RowPassOptions {
  /** Numbers expected (sizes the duplicate set once instead of growing it). */
  readonly setCapacity?: number;
  /** Start here (a record boundary), with the header already read. */
  readonly start?: { readonly offset: number; readonly line: number; readonly header: readonly string[] } | undefined;
  /** Stop at this byte offset (a record boundary). */
  readonly end?: number | undefined;
  /** The line end of the rows after `start`, for the fast path (isSimpleRange checks it). */
  readonly recordDelimiter?: string | undefined;
  /** Hash the bytes: from the start of the range to the end of the file (not just to `end`). */
  readonly hash?: boolean;
  /** Keep the numbers of the first batch's recipients (to drop ones another part has). */
  readonly firstNumbers?: boolean;
}

/** Rows of numbers with possible opt-outs named by line (the count is of all of them). */
export const UNDECIDED_SHOWN = 20;

/** Landline rows named by line (the count is of all of them). */
export const LANDLINE_SAMPLES = 10;

/** One pass over the file or a part of it, as `runPreflight` does it, with the raw figures. */
export interface RangeResult {
  readonly columns: ColumnPlan | undefined;
  readonly rows: number;
  readonly invalid: number;
  readonly duplicates: number;
  readonly excluded: number;
  readonly suppressed: number;
  readonly undecided: { readonly count: number; readonly rows: ReadonlyArray<{ readonly line: number; readonly number: string }> };
  readonly alreadySent: number;
  readonly resent: number;
  readonly alreadySentOthers: { count: number; lines: number[]; keys: number[] };
  readonly outsidePlan: number;
  readonly landlines: number;
  readonly landlineSamples: Array<{ line: number; number: string }>;
  readonly unnamedValues: UnnamedValues;
  readonly toSend: number;
  readonly problems: RowProblem[];
  readonly groups: ProblemGroup[];
  readonly outsideSamples: Array<{ line: number; number: string }>;
  /** With `firstNumbers`: the numbers counted in `outsidePlan` and `landlines` (8 bytes each), for the join of a split. */
  readonly outsideKeys: number[];
  readonly landlineKeys: number[];
  /** With `firstNumbers`: the numbers counted in `resent`, for the join of a split. */
  readonly resentKeys: number[];
  readonly firstBatch: string[];
  readonly firstKey?: string | undefined;
  /** Requests, when rows were grouped by their message (else one per batch-size rows). */
  readonly requests?: number | undefined;
  readonly totals?: TextTotals | undefined;
  readonly firstRows?: FirstRow[] | undefined;
  /** The numbers of `firstBatch`, when asked for. */
  readonly firstNumbers: number[];
  readonly hash: string | undefined;
  readonly dataHash: string | undefined;
  readonly bytes: number;
  readonly nextLine: number;
  /** The numbers that passed (to send, or already sent), with their first message's fingerprint. */
  readonly seen: NumberSet;
  /** Numbers with rows of different messages (bulk/preflight/repeats.ts). */
  readonly several: NumberSet;
  /** Rows could differ in their message: `seen` holds each number's first message's fingerprint. */
  readonly fingerprinted: boolean;
  /** Numbers that had a duplicate row (up to DUPLICATE_KEYS of them), for the report's "same number as line N". */
  readonly duplicateKeys: number[];
  readonly filtered?: Filtered;
}

/**
 * Rows with a value in a column whose header is empty: how many, the first line and its column,
 * and every such column that had a value (1-based, ascending), so the warning names them all.
 */
export interface UnnamedValues {
  readonly count: number;
  readonly first: { readonly line: number; readonly column: number } | undefined;
  readonly columns: readonly number[];
}

/** The columns of both lists, ascending, each once. */
export function mergeColumns(a: readonly number[], b: readonly number[]): number[] {
  return [...new Set([...a, ...b])].sort((x, y) => x - y);
}

export async function preflightRange(o: RangeOptions): Promise<RangeResult> {
  const maxProblems = o.maxProblems ?? 20;
  let hash = o.hash === true ? new FileHashes(o.format.delimiter) : undefined;
  // Rows differ in their message when they have variables or messages of their own.
  let repeats: NumberRepeats | undefined;
  const capacity = Math.min(Math.max(o.setCapacity ?? 0, 1024), 1 << 24);
  const problems: RowProblem[] = [];
  const groups: ProblemGroup[] = [];
  const outsideSamples: Array<{ line: number; number: string }> = [];
  const outsideKeys: number[] = [];
  const landlineSamples: Array<{ line: number; number: string }> = [];
  const landlineKeys: number[] = [];
  const resentKeys: number[] = [];
  // Only for a send (a spool), whose report may name the line a duplicate repeats.
  const duplicateKeys = new Set<number>();
  const firstBatch: string[] = [];
  const firstNumbers: number[] = [];
  const keepNumbers = o.firstNumbers === true;
  const utf8Hint = csvUtf8Hint(o.format);
  const keepFirst = o.keepFirst ?? 0;
  const firstRows: FirstRow[] = [];
  // Rows with messages of their own: grouped as the send pass will group them, to count requests.
  const personal = o.message;
  const totals = personal !== undefined ? new TextTotals() : undefined;
  // Rows are grouped by their message and, with send windows on each row's clock, their zones.
  const zoned = o.rowZones;
  let zoneColumn = -1;
  let firstKey: string | undefined;
  let firstGroup: string | undefined;
  const grouper =
    personal !== undefined || zoned !== undefined
      ? new Grouper<undefined>(
          o.batchSize,
          (b) => {
            if (b.index === 0) {
              firstGroup = b.key;
              // The first request's message (none with one shared text).
              firstKey = personal !== undefined ? messageKeyOf(b.key) : undefined;
              firstCount = b.count;
            }
          },
          undefined,
          true,
        )
      : undefined;
  // The first request's recipients, kept until it is known which message it sends.
  const firstOf = new Map<string, string[]>();
  let firstCount = 0;
  let columns: ColumnPlan | undefined;
  let rows = 0;
  let invalid = 0;
  let duplicates = 0;
  let excluded = 0;
  let suppressed = 0;
  const undecided = { count: 0, rows: [] as Array<{ line: number; number: string }> };
  let alreadySent = 0;
  let resent = 0;
  let outsidePlan = 0;
  let landlines = 0;
  let toSend = 0;
  let unnamedValues: UnnamedValues = { count: 0, first: undefined, columns: [] };
  const filtered: Filtered = { count: 0, kept: 0, byType: {}, samples: [] };

  const problem = (line: number, raw: string, r: RowCheck): void => {
    invalid++;
    const p: RowProblem = { line, column: r.column ?? '', message: r.reason ?? 'is not a phone number' };
    if (problems.length < maxProblems) problems.push(p);
    addToGroup(groups, r.cause ?? 'invalid', p, r.hint);
    o.spool?.invalid(line, raw, p.column !== '' ? `${p.column}: ${p.message}` : p.message);
  };
  let checkRow: RowChecker | undefined;
  // The journal names each recipient's message (bulk/preflight/repeats.ts messageHash) when a
  // number may get several: --allow-duplicates with rows that differ in their message.
  let byMessage = false;
  const planFor = (header: readonly string[]): void => {
    // A header name with U+FFFD would become a column, a placeholder's did-you-mean and a variable
    // named with the replacement character: the file's encoding is wrong, so say that instead.
    if (utf8Hint !== undefined && header.some((h) => h.includes('\uFFFD'))) {
      throw new UsageError(`${o.fileLabel}: the header is not valid UTF-8 text; nothing was sent`, { hint: utf8Hint });
    }
    columns = planColumns(header, o.columns, o.fileLabel, o.format.delimiter, !o.format.detected ? 'flag' : o.format.firstLine > 1 ? 'sep' : 'detected');
    repeats = new NumberRepeats(o.repeats, capacity, personal !== undefined || columns.vars.length > 0);
    byMessage = repeats.mode === 'each' && repeats.fingerprinted;
    const message = personal !== undefined ? planRowMessage(columns.header, personal, o.fileLabel) : undefined;
    checkRow = createRowChecker(columns, o.checker, utf8Hint, message, o.fixMojibake === true);
    if (zoned?.column !== undefined) {
      zoneColumn = columns.header.indexOf(zoned.column);
      if (zoneColumn === -1) throw new UsageError(`${zoned.flag} column:${zoned.column}: ${o.fileLabel} has no column "${zoned.column}"; nothing was sent`, { hint: `Its columns: ${columns.header.join(', ')}.` });
    }
  };
  if (o.start !== undefined) planFor(o.start.header);

  // A number on several rows (bulk/preflight/repeats.ts): the same message again is a duplicate; another
  // message stops the run, or with --first-per-number is left out as a duplicate too, or with
  // --allow-duplicates is sent (`more`: a further message to the number).
  const alreadySentOthers = { count: 0, lines: [] as number[], keys: [] as number[] };
  const onRecord = (raw: string[], _index: number, line: number): void => {
      rows++;
      const plan = columns as ColumnPlan;
      const r = (checkRow as RowChecker)(raw);
      if (r.verdict === 'invalid') {
        problem(line, (raw[plan.msisdn] ?? '').trim(), r);
        return;
      }
      // --mobile-only: before the lists and the duplicates, as an invalid row would be.
      if (o.mobileOnly === true && r.verdict !== 'outside') {
        const type = r.verdict === 'landline' ? 'FIXED_LINE' : numberType(r.e164);
        if (type === 'FIXED_LINE_OR_MOBILE') filtered.kept++;
        else if (type !== undefined && NOT_MOBILE.has(type)) {
          filtered.count++;
          filtered.byType[type] = (filtered.byType[type] ?? 0) + 1;
          if (filtered.samples.length < LANDLINE_SAMPLES) filtered.samples.push({ line, number: r.e164, type });
          o.spool?.skip('F', line, r.e164, `${describeNumberType(type)} (${FLAG.mobileOnly})`);
          return;
        }
      }
      // With mangled text repaired (--fix-mojibake), the row as it is sent.
      const fields = r.fields ?? raw;
      let zoneKey = '';
      if (zoned !== undefined) {
        const z = zoned.check(r.e164, zoneColumn >= 0 ? fields[zoneColumn] : undefined);
        if ('error' in z) {
          problem(line, (raw[plan.msisdn] ?? '').trim(), { verdict: 'invalid', e164: '', cause: z.cause, column: z.cause === 'zone' && zoned.column !== undefined ? zoned.column : plan.msisdnName, reason: z.error, hint: z.cause === 'zone' ? 'Give each row an IANA zone (Europe/Paris), or send to these numbers with --tz NAME.' : 'These rows can never be sent inside the window: widen --window, or send them with --tz naming the zone meant.' });
          return;
        }
        zoneKey = z.key + ZONE_KEY_END;
      }
      if (plan.unnamed.length > 0) {
        const filled = plan.unnamed.filter((i) => (fields[i] ?? '').trim() !== '').map((i) => i + 1);
        if (filled.length > 0) {
          const known = unnamedValues.columns;
          unnamedValues = {
            count: unnamedValues.count + 1,
            first: unnamedValues.first ?? { line, column: filled[0] as number },
            columns: filled.every((c) => known.includes(c)) ? known : mergeColumns(known, filled),
          };
        }
      }
      const key = numberKey(r.e164);
      const leftOut = o.exclude?.get(key);
      if (leftOut !== undefined) {
        if (leftOut === LEAVE_OUT.optedOut) {
          suppressed++;
          o.spool?.skip('O', line, r.e164);
        } else if (leftOut === LEAVE_OUT.undecided) {
          // The run stops at these (stages/checking.ts): named by line, the first few.
          undecided.count++;
          if (undecided.rows.length < UNDECIDED_SHOWN) undecided.rows.push({ line, number: r.e164 });
          o.spool?.skip('O', line, r.e164);
        } else {
          excluded++;
          o.spool?.skip('X', line, r.e164);
        }
        return;
      }
      const seen = repeats as NumberRepeats;
      const verdict = seen.check(key, plan, fields, r.message?.key);
      if (verdict === 'same' || verdict === 'other') {
        duplicates++;
        if (o.spool !== undefined && duplicateKeys.size < DUPLICATE_KEYS) duplicateKeys.add(key);
        o.spool?.skip('D', line, r.e164, duplicatePayload(verdict, seen.mode, seen.fingerprinted ? seen.lastFingerprint : undefined, r.message?.key));
        return;
      }
      const otherMessage = verdict === 'more';
      const hash = byMessage ? messageHash(key, plan, fields, r.message?.key) : undefined;
      // After the duplicates, as a row to send: the first of a number's rows is "already sent",
      // the others duplicates. Before grouping, so batches are made of the rows that remain.
      // With a number's messages journaled, only the messages it had are (each number gets all
      // of its messages); without, a further message to it cannot be told from the one it had.
      const told = hash !== undefined && o.sentMessages !== undefined && !o.sentMessages.numbersOnly.has(key);
      if (o.sent?.has(key) === true && (!told || o.sentMessages?.messages.has(hash) === true)) {
        alreadySent++;
        if (otherMessage && !told) {
          alreadySentOthers.count++;
          if (alreadySentOthers.lines.length < SAMPLES_PER_CAUSE) alreadySentOthers.lines.push(line);
          if (alreadySentOthers.keys.length < SEVERAL_SHOWN && !alreadySentOthers.keys.includes(key)) alreadySentOthers.keys.push(key);
        }
        o.spool?.skip('A', line, r.e164);
        return;
      }
      toSend++;
      o.cost?.add(r.e164, r.message?.analysis?.parts ?? o.sharedParts ?? 1);
      if (!otherMessage && o.resent?.has(key) === true) {
        resent++;
        if (keepNumbers) resentKeys.push(key);
      }
      // Counted among the rows to send only: "sending anyway" must not name an opted-out number or
      // a duplicate (a split's join drops the second half's rows of numbers the first half has).
      if (r.verdict === 'outside') {
        outsidePlan++;
        // With a message per row a number can be sent more than once: named once.
        if (outsideSamples.length < 5 && !outsideSamples.some((x) => x.number === r.e164)) outsideSamples.push({ line, number: r.e164 });
        if (keepNumbers) outsideKeys.push(key);
      } else if (r.verdict === 'landline') {
        landlines++;
        if (landlineSamples.length < LANDLINE_SAMPLES) landlineSamples.push({ line, number: r.e164 });
        if (keepNumbers) landlineKeys.push(key);
      }
      if (r.message !== undefined || zoned !== undefined) {
        // A message of its own (its parts counted), or zones of its own: its request found by grouping.
        const group = zoneKey + (r.message?.key ?? '');
        const wanted = o.spool !== undefined || firstGroup === undefined || firstRows.length < keepFirst;
        const json = wanted ? recipientJson(plan, r.e164, fields) : '';
        if (r.message?.analysis !== undefined) totals?.add(r.message.analysis, line);
        if (firstGroup === undefined) {
          const list = firstOf.get(group);
          if (list === undefined) firstOf.set(group, [json]);
          else list.push(json);
        }
        grouper?.add(group, undefined);
        if (firstGroup !== undefined && firstBatch.length === 0) {
          firstBatch.push(...(firstOf.get(firstGroup) ?? []).slice(0, firstCount));
          firstOf.clear();
        }
        o.spool?.send(line, r.e164, `${json}\t${group}`, hash);
        if (firstRows.length < keepFirst) firstRows.push({ line, e164: r.e164, recipient: json, key: r.message?.key });
        return;
      }
      if (o.spool !== undefined || firstBatch.length < o.batchSize || firstRows.length < keepFirst) {
        const json = recipientJson(plan, r.e164, fields);
        o.spool?.send(line, r.e164, json, hash);
        if (firstBatch.length < o.batchSize) {
          firstBatch.push(json);
          if (keepNumbers) firstNumbers.push(key);
        }
        if (firstRows.length < keepFirst) firstRows.push({ line, e164: r.e164, recipient: json, key: undefined });
      }
    };

  // Where the data starts, for the fast path: the header as csv-parse reads it, then the rows.
  let head: { header: readonly string[]; offset: number; line: number; recordDelimiter: string | undefined } | undefined;
  if (o.start !== undefined) head = { ...o.start, recordDelimiter: o.recordDelimiter };
  else {
    const h = await readCsv(o.path, { format: o.format, stopAfterHeader: true, onRecord: () => undefined });
    if (h.header !== undefined) head = { header: h.header, offset: h.bytes, line: h.nextLine, recordDelimiter: h.recordDelimiter };
  }
  let result: ReadResult | undefined;
  if (head?.recordDelimiter !== undefined) {
    // Rows with no quotes and plain line ends are split by hand: csv-parse's result, 3-4x faster.
    const simpleHash = o.hash === true ? new FileHashes(o.format.delimiter) : undefined;
    const range = {
      format: o.format,
      offset: head.offset,
      line: head.line,
      end: o.end,
      recordDelimiter: head.recordDelimiter,
      hashFrom: o.start !== undefined ? o.start.offset : o.format.firstByte,
      ...(simpleHash !== undefined ? { onBytes: (chunk: Buffer) => simpleHash.update(chunk) } : {}),
    };
    if (await isSimpleRange(o.path, range)) {
      if (columns === undefined) planFor(head.header);
      hash = simpleHash;
      result = await readSimpleCsv(o.path, range, onRecord, o.checkpoint);
    }
  }
  result ??= await readCsv(o.path, {
    format: o.format,
    start: o.start !== undefined ? { offset: o.start.offset, line: o.start.line, record: 0, header: o.start.header } : undefined,
    end: o.end,
    ...(hash !== undefined ? { onBytes: (chunk: Buffer) => hash?.update(chunk) } : {}),
    onHeader: (fields) => planFor(fields),
    onRecord,
    afterChunk: o.checkpoint,
  });
  if (hash !== undefined && o.end !== undefined) await hashFrom(o.path, o.end, hash);
  grouper?.finish();
  if (firstGroup !== undefined && firstBatch.length === 0) firstBatch.push(...(firstOf.get(firstGroup) ?? []).slice(0, firstCount));
  firstOf.clear();
  return {
    columns,
    rows,
    invalid,
    duplicates,
    excluded,
    suppressed,
    undecided,
    alreadySent,
    resent,
    alreadySentOthers,
    outsidePlan,
    landlines,
    landlineSamples,
    unnamedValues,
    toSend,
    problems,
    groups,
    outsideSamples,
    outsideKeys,
    landlineKeys,
    resentKeys,
    firstBatch,
    firstKey,
    requests: grouper?.sealed,
    totals,
    firstRows,
    firstNumbers,
    hash: hash?.bytes.digest('hex'),
    dataHash: hash?.data.digest(),
    bytes: result.bytes,
    nextLine: result.nextLine,
    seen: repeats?.seen ?? new NumberSet(16),
    several: repeats?.several ?? new NumberSet(16),
    fingerprinted: repeats?.fingerprinted ?? false,
    duplicateKeys: [...duplicateKeys],
    ...(o.mobileOnly === true ? { filtered } : {}),
  };
}

/**
 * The file's bytes hashed (a resume checks that they are the bytes its run read) and the data they
 * hold (a run under a campaign key checks that an earlier one under another key did not read the
 * same: docs/reruns.md: "The same data under another key"), fed together.
 */
class FileHashes {
  readonly bytes: Hash = createHash('sha256');
  readonly data: DataHash;
  constructor(delimiter: string) {
    this.data = new DataHash(delimiter);
  }
  update(chunk: Buffer): void {
    this.bytes.update(chunk);
    this.data.update(chunk);
  }
}

/** Feeds the file from `offset` to its end into the hashes. */
async function hashFrom(path: string, offset: number, hash: FileHashes): Promise<void> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.allocUnsafeSlow(1024 * 1024);
    for (let position = offset; ; ) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, position);
      if (bytesRead === 0) break;
      hash.update(buf.subarray(0, bytesRead));
      position += bytesRead;
    }
  } finally {
    await fh.close();
  }
}
