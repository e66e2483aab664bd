// argv → options for `send-bulk`. Commander gives strings, booleans and arrays; this checks
// them, naming the flag in every error, before anything is read or sent.
import { UsageError } from '../../errors.js';
import { bool as maybeBool, int, list, onceKey, str, type Raw } from '../shared/option-values.js';
import { parseConnectionOptions } from '../shared/connection.js';
import { checkIncludeOptedOut, parseMessageOptions } from '../shared/message-options.js';
import { parseEncoding, type FileEncoding } from '../../message/text-file.js';
import { DEFAULT_CONCURRENCY, parseRate, type Rate } from '../../bulk/campaign.js';
import { parseDelimiter } from '../../csv/reader.js';
import { parseMaxCost, type MaxCost } from '../../pricing/max-cost.js';


export const MAX_BATCH_SIZE = 10_000;
export const MAX_CONCURRENCY = 64;
/** Messages --preview shows unless it is given a number. */
export const DEFAULT_PREVIEW = 5;
/** Rows whose messages --sample-to sends, at most. */
export const MAX_SAMPLE = 20;

export interface BulkOptions {
  readonly file: string | undefined;
  // connection
  readonly profile?: string | undefined;
  readonly baseUrl?: string | undefined;
  readonly account?: string | undefined;
  readonly apiKeyFile?: string | undefined;
  readonly apiKeyStdin?: boolean | undefined;
  readonly timeoutMs: number;
  readonly caFile?: string | undefined;
  readonly sandbox: boolean;
  /** With --sandbox: where the emulator posts its events. */
  readonly webhookUrl?: string | undefined;
  readonly json: boolean;
  readonly quiet: boolean;
  readonly verbose: boolean;
  readonly yes: boolean;
  // message
  readonly channel?: string | undefined;
  readonly from?: string | undefined;
  readonly text?: string | undefined;
  readonly textFile?: string | undefined;
  readonly textEncoding?: FileEncoding | undefined;
  readonly template?: string | undefined;
  readonly meta?: readonly string[] | undefined;
  readonly name?: string | undefined;
  readonly characterSet?: string | undefined;
  readonly messageType?: string | undefined;
  readonly validity?: string | undefined;
  readonly defaultCountry?: string | undefined;
  readonly dryRun: boolean;
  // a message per row (docs/personalised.md: "Personalised messages")
  /** Send the text as written, placeholders and all (the columns go as variables). */
  readonly noRender: boolean;
  readonly textColumn?: string | undefined;
  readonly fromColumn?: string | undefined;
  readonly maxParts?: number | undefined;
  /** Print the first N rendered messages and send nothing. */
  readonly preview?: number | undefined;
  /** Send the first --sample rows' messages to these numbers instead, as a run of its own. */
  readonly sampleTo?: readonly string[] | undefined;
  readonly sample: number;
  // input
  readonly msisdnColumn?: string | undefined;
  readonly varColumns?: readonly string[] | undefined;
  readonly metaColumns?: readonly string[] | undefined;
  readonly delimiter?: string | undefined;
  readonly encoding?: FileEncoding | undefined;
  readonly skipInvalid: boolean;
  /** A number on several rows gets each of its different messages (default: a stop, exit 2). */
  readonly allowDuplicates: boolean;
  /** A number on several rows gets its first row's message only (default: a stop, exit 2). */
  readonly firstPerNumber: boolean;
  /** Possible numbers outside the known numbering plan are sent (default: invalid rows). */
  readonly allowUnlistedNumbers: boolean;
  /** Send to numbers in the account's opt-out store too (with --yes; default: left out). */
  readonly includeOptedOut?: boolean | undefined;
  /** Cells mangled by a spreadsheet round trip are sent repaired (default: invalid rows). */
  readonly fixMojibake: boolean;
  readonly exclude?: string | undefined;
  readonly excludeColumn?: string | undefined;
  /** The first line is a recipient, not a header (--no-header). */
  readonly noHeader: boolean;
  // sending
  readonly batchSize?: number | undefined;
  readonly concurrency: number;
  readonly rate?: Rate | undefined;
  // when (src/schedule/)
  readonly window?: readonly string[] | undefined;
  readonly tz?: string | undefined;
  readonly anyTime: boolean;
  readonly notBefore?: string | undefined;
  readonly stopAt?: string | undefined;
  readonly exitWhenClosed: boolean;
  // state
  readonly journal?: string | undefined;
  readonly resume: boolean;
  readonly resendInDoubt: boolean;
  readonly restart: boolean;
  readonly report?: string | undefined;
  /** --progress-every, milliseconds. */
  readonly progressEveryMs?: number | undefined;
  /**
   * Runs (id or journal) whose accepted numbers are left out; '' (the flag alone): the earlier
   * runs of this file that sent the same message (bulk/earlier/of-file.ts).
   */
  readonly skipSent?: readonly string[] | undefined;
  /** --delivered-only: of the runs --skip-sent leaves out, only numbers their receipts say were delivered. */
  readonly deliveredOnly?: boolean | undefined;
  /** Message again the numbers earlier runs of this file accepted, on purpose. */
  readonly again: boolean;
  /** Under --once: the same data as an earlier run under another key, on purpose. */
  readonly sameData: boolean;
  /** --once: the campaign key the run is known by (bulk/earlier/campaign-key.ts). */
  readonly once?: string | undefined;
  /** --restart: do not leave out what the abandoned run accepted. */
  readonly includeSent: boolean;
  readonly skipInDoubt: boolean;
  // canary and cost (docs/cost-and-canary.md)
  /** --limit: this command sends at most this many rows (whole requests), then stops. */
  readonly limit?: number | undefined;
  /** --gsm-safe: the text's look-alikes replaced with GSM-7 characters (lookalikes/gsm-safe.ts). */
  readonly gsmSafe: boolean;
  /** --mobile-only: numbers typed other than mobile (or fixed line or mobile) are left out. */
  readonly mobileOnly: boolean;
  /** --price-file: the user's prices per part, for the preflight's estimate. */
  readonly priceFile?: string | undefined;
  /** --max-cost: the estimate above which the run does not start. */
  readonly maxCost?: MaxCost | undefined;
}

const EVERY = /^(\d+(?:\.\d+)?)\s*(s|m|h)$/i;
const EVERY_UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000 };

/** `--progress-every 30s`: seconds, minutes or hours, at least one second. */
export function parseEvery(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const m = EVERY.exec(text.trim());
  const ms = m === null ? Number.NaN : Number(m[1]) * (EVERY_UNIT_MS[(m[2] ?? 's').toLowerCase()] ?? 1_000);
  if (!Number.isFinite(ms) || ms < 1_000 || ms > 24 * 3_600_000) {
    throw new UsageError(`--progress-every: "${text}" is not a duration from 1s to 24h`, { hint: 'For example --progress-every 30s, or 5m.' });
  }
  return Math.round(ms);
}

/** Boolean flags default to false here. */
function bool(raw: Raw, key: string): boolean {
  return maybeBool(raw, key) ?? false;
}

export function parseBulkOptions(fileArg: string | undefined, raw: Raw): BulkOptions {
  // `--preview [n]` takes the next word when it can: `--preview people.csv` means the file.
  let file = fileArg;
  let previewRaw = raw.preview;
  if (typeof previewRaw === 'string' && !/^\s*\d+\s*$/.test(previewRaw) && file === undefined) {
    file = previewRaw;
    previewRaw = true;
  }
  // `--skip-sent [run]` likewise: `--skip-sent today.csv` with no other file means the file.
  let skipSentRaw = raw.skipSent;
  if (file === undefined && Array.isArray(skipSentRaw) && typeof skipSentRaw[skipSentRaw.length - 1] === 'string' && skipSentRaw[skipSentRaw.length - 1] !== '') {
    file = skipSentRaw[skipSentRaw.length - 1] as string;
    skipSentRaw = [...(skipSentRaw as string[]).slice(0, -1), ''];
  }
  const encodingText = str(raw, 'encoding');
  const encoding = encodingText === undefined ? undefined : parseEncoding(encodingText);
  if (encodingText !== undefined && encoding === undefined) {
    throw new UsageError(`--encoding: "${encodingText}" is not supported`, { hint: 'Use utf8 (the default), latin1, utf16le or utf16be. Files with a byte-order mark are recognised by themselves.' });
  }
  const delimiterText = str(raw, 'delimiter');
  const delimiter = delimiterText === undefined ? undefined : parseDelimiter(delimiterText);
  if (delimiterText !== undefined && delimiter === undefined) {
    throw new UsageError(`--delimiter: "${delimiterText}" is not a delimiter`, { hint: "Use ',', ';', tab (or 'tab') or another single character." });
  }
  const rateText = str(raw, 'rate');
  const rate = rateText === undefined ? undefined : parseRate(rateText);
  if (rateText !== undefined && rate === undefined) {
    throw new UsageError(`--rate: "${rateText}" is not a rate`, { hint: 'Give recipients per second, minute or hour: 100/s, 3000/m, 50000/h.' });
  }
  const { timeout, sandbox, json, quiet, verbose, yes, ...connection } = parseConnectionOptions(raw);
  // Commander gives --no-header as header: false.
  const noHeader = raw.header === false;
  const excludeColumn = str(raw, 'excludeColumn');
  const opts: BulkOptions = {
    file,
    ...connection,
    timeoutMs: timeout,
    sandbox: sandbox === true,
    json: json === true,
    quiet: quiet === true,
    verbose: verbose === true,
    yes: yes === true,
    ...parseMessageOptions(raw),
    dryRun: bool(raw, 'dryRun'),
    noRender: raw.render === false,
    textColumn: str(raw, 'textColumn'),
    fromColumn: str(raw, 'fromColumn'),
    maxParts: int(raw, 'maxParts', 1, 255),
    preview: previewRaw === true ? DEFAULT_PREVIEW : int({ preview: previewRaw }, 'preview', 1, 1000),
    sampleTo: list(raw, 'sampleTo')?.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== ''),
    sample: int(raw, 'sample', 1, MAX_SAMPLE) ?? 1,
    // Without a header the columns are their positions: the number is the first unless named,
    // and no column is a variable unless named (they have no names to be sent under).
    msisdnColumn: str(raw, 'msisdnColumn') ?? (noHeader ? '1' : undefined),
    varColumns: splitColumns(str(raw, 'varColumns')) ?? (noHeader ? [] : undefined),
    metaColumns: splitColumns(str(raw, 'metaColumns')),
    delimiter,
    encoding,
    skipInvalid: bool(raw, 'skipInvalid'),
    allowDuplicates: bool(raw, 'allowDuplicates'),
    firstPerNumber: bool(raw, 'firstPerNumber'),
    allowUnlistedNumbers: bool(raw, 'allowUnlistedNumbers'),
    fixMojibake: bool(raw, 'fixMojibake'),
    exclude: str(raw, 'exclude'),
    excludeColumn,
    noHeader,
    batchSize: int(raw, 'batchSize', 1, MAX_BATCH_SIZE),
    concurrency: int(raw, 'concurrency', 1, MAX_CONCURRENCY) ?? DEFAULT_CONCURRENCY,
    rate,
    window: list(raw, 'window'),
    tz: str(raw, 'tz'),
    anyTime: bool(raw, 'anyTime'),
    notBefore: str(raw, 'notBefore'),
    stopAt: str(raw, 'stopAt'),
    exitWhenClosed: bool(raw, 'exitWhenClosed'),
    journal: str(raw, 'journal'),
    resume: bool(raw, 'resume'),
    resendInDoubt: bool(raw, 'resendInDoubt'),
    restart: bool(raw, 'restart'),
    report: str(raw, 'report'),
    progressEveryMs: parseEvery(str(raw, 'progressEvery')),
    skipSent: list({ skipSent: skipSentRaw }, 'skipSent')?.map((ref) => ref.trim()),
    deliveredOnly: bool(raw, 'deliveredOnly'),
    again: bool(raw, 'again'),
    sameData: bool(raw, 'sameData'),
    once: onceKey(raw),
    includeSent: bool(raw, 'includeSent'),
    skipInDoubt: bool(raw, 'skipInDoubt'),
    limit: int(raw, 'limit', 1, 1_000_000_000),
    gsmSafe: bool(raw, 'gsmSafe'),
    mobileOnly: bool(raw, 'mobileOnly'),
    priceFile: str(raw, 'priceFile'),
    maxCost: parseMaxCost(str(raw, 'maxCost')),
  };
  if (opts.gsmSafe && (opts.template !== undefined || opts.textColumn !== undefined)) throw new UsageError(`--gsm-safe needs the text: ${opts.template !== undefined ? "a template's text is the provider's" : "--text-column's cells are sent as they are"}`, { hint: 'Give the text with --text or --text-file.' });
  if (opts.priceFile !== undefined && opts.template !== undefined) throw new UsageError('--price-file needs the text: a template\'s length, and so its parts, is not known here');
  checkIncludeOptedOut(opts.includeOptedOut, opts.yes);
  if (opts.allowDuplicates && opts.firstPerNumber) {
    throw new UsageError('--allow-duplicates and --first-per-number cannot be used together', {
      hint: 'For a number on several rows with different messages: --allow-duplicates sends it each of them, --first-per-number only its first row\'s. Keep one.',
    });
  }
  if (opts.resume && opts.restart) throw new UsageError('--resume and --restart cannot be used together', { hint: '--resume continues the unfinished run; --restart abandons it and starts again.' });
  if (opts.resendInDoubt && !opts.resume && !opts.restart) throw new UsageError('--resend-in-doubt only makes sense with --resume or --restart');
  if (opts.skipInDoubt && !opts.restart) throw new UsageError('--skip-in-doubt only makes sense with --restart', { hint: 'A restart asks what to do with the rows the run it abandons left in doubt: --skip-in-doubt leaves them out, --resend-in-doubt sends to them again.' });
  if (opts.skipInDoubt && opts.resendInDoubt) throw new UsageError('--skip-in-doubt and --resend-in-doubt cannot be used together', { hint: 'Give the one you mean: leave the rows in doubt out, or send to them again.' });
  if (opts.resume && opts.dryRun) throw new UsageError('--dry-run cannot be used with --resume');
  if (opts.once !== undefined && opts.journal !== undefined) {
    throw new UsageError('--once and --journal cannot be used together', { hint: "A keyed run keeps its journal in the key's own folder, where every command with the key finds it; MSGR_CONFIG_DIR moves all of msgr's state." });
  }
  if (opts.sameData && opts.once === undefined) throw new UsageError('--same-data only makes sense with --once', { hint: '--same-data says that a run under a campaign key reads, on purpose, the same data as an earlier run under another key.' });
  if (opts.again && opts.skipSent !== undefined) {
    throw new UsageError('--again and --skip-sent cannot be used together', { hint: '--skip-sent leaves out the numbers earlier runs accepted; --again sends to them again. Give the one you mean.' });
  }
  if (opts.deliveredOnly === true && opts.skipSent === undefined) {
    throw new UsageError('--delivered-only needs --skip-sent: it says which of the numbers an earlier run accepted count as sent', { hint: 'For a follow-up to those an earlier run did not reach: --skip-sent RUN --delivered-only (RUN: its id, journal or CSV file).' });
  }
  if (opts.includeSent && !opts.restart) throw new UsageError('--include-sent only makes sense with --restart', { hint: '--restart leaves out the rows the abandoned run accepted; --include-sent sends to them again.' });
  if (file === undefined && !(opts.resume && opts.journal !== undefined)) {
    throw new UsageError('send-bulk needs a CSV file (or - for stdin)', { hint: 'For example: msgr send-bulk recipients.csv --from Acme --text "Hello {{name}}"' });
  }
  if (file === '-' && opts.apiKeyStdin === true) {
    throw new UsageError('--api-key-stdin cannot be used when the CSV comes from stdin', { hint: 'Give the key with MSGR_API_KEY, --api-key-file or a profile.' });
  }
  if (opts.text !== undefined && opts.textFile !== undefined) throw new UsageError('--text and --text-file cannot be used together');
  if (opts.textFile === '-' && (file === '-' || opts.apiKeyStdin === true)) {
    throw new UsageError(`--text-file - cannot be used with ${file === '-' ? 'the CSV from stdin' : '--api-key-stdin'}: stdin can carry only one of them`);
  }
  if (excludeColumn !== undefined && opts.exclude === undefined) throw new UsageError('--exclude-column needs --exclude FILE', { hint: 'For example --exclude optouts.csv --exclude-column "Phone Number"' });
  if (opts.textColumn !== undefined) {
    const other = opts.text !== undefined ? '--text' : opts.textFile !== undefined ? '--text-file' : opts.template !== undefined ? '--template' : undefined;
    if (other !== undefined) throw new UsageError(`--text-column and ${other} cannot be used together`, { hint: '--text-column takes each row\'s message from that column.' });
    if (opts.noRender) throw new UsageError('--no-render has no effect with --text-column: its cells are sent as they are');
  }
  if (opts.fromColumn !== undefined && opts.from !== undefined) {
    throw new UsageError('--from-column and --from cannot be used together', { hint: '--from-column takes each row\'s sender from that column; --from gives every row the same one. Keep one of them.' });
  }
  if (opts.template !== undefined && opts.noRender) throw new UsageError('--no-render has no effect with --template: a template\'s variables are the server\'s business');
  if (opts.template !== undefined && opts.maxParts !== undefined) throw new UsageError('--max-parts needs the text: a template\'s length is not known here');
  // `--sample-to ''` (an unset shell variable) would otherwise send the sample to no one.
  if (opts.sampleTo?.length === 0) throw new UsageError('--sample-to: no number given', { hint: 'For example --sample-to +447911123456' });
  if (raw.sample !== undefined && opts.sampleTo === undefined) throw new UsageError('--sample needs --sample-to NUMBER', { hint: 'For example --sample-to +447911123456 --sample 3' });
  const modes = [opts.preview !== undefined ? '--preview' : '', opts.sampleTo !== undefined ? '--sample-to' : '', opts.dryRun ? '--dry-run' : '', opts.resume ? '--resume' : ''].filter((m) => m !== '');
  if (opts.limit !== undefined && (opts.preview !== undefined || opts.sampleTo !== undefined)) {
    throw new UsageError(`--limit and ${opts.preview !== undefined ? '--preview' : '--sample-to'} cannot be used together`, { hint: '--limit sends the first rows for real; --preview prints them, --sample-to sends them to you.' });
  }
  if (modes.length > 1 && (opts.preview !== undefined || opts.sampleTo !== undefined)) throw new UsageError(`${modes[0]} and ${modes[1]} cannot be used together`);
  return opts;
}

/** `a,b , c` → [a, b, c]; an empty string → [] (no columns). */
export function splitColumns(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
