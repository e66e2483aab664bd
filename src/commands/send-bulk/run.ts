// `msgr send-bulk`: options → settings → run state (journal, lock) → preflight pass → send pass
// → journal and report → summary → exit code (style.md: "rows → validated recipients → batches
// → requests → outcomes → journal and report").
//
// Two passes (issue: "Scale"): the preflight reads the CSV, checks every row and writes one
// line per row to the spool file (the verdict, and the recipient's JSON when it is to be sent);
// the send pass reads the spool and joins those lines into request bodies, so neither the CSV
// parse nor the number checks run twice. Batch k is always the k-th group of --batch-size rows
// to send, so a resumed run rebuilds the same batches (same bodies, same Idempotency-Keys) from
// the same file, and skips the ones the journal says are done.
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { CountryCode } from 'libphonenumber-js/max';
import type { Context } from '../../context.js';
import { AuthError, InterruptedError, MsgrError, PartialError, UsageError } from '../../errors.js';
import type { MessagesClient } from '../../http/client.js';
import type { Outcome } from '../../http/outcome.js';
import { parseCountry } from '../../message/numbers.js';
import { buildRequest, parseKeyValue, type KeyValues, type MessageDraft } from '../../message/request.js';
import { maskSecret, redact, stripControl } from '../../output/sanitize.js';
import { createUi, type Ui } from '../../output/ui.js';
import { resolveSettings, type Resolved, type Settings } from '../../settings/resolve.js';
import { resolveTarget } from '../../settings/target.js';
import { asciiJson, type ColumnPlan } from '../../bulk/columns.js';
import { loadExcludes, type ExcludeList } from '../../bulk/exclude.js';
import { BatchState, Journal, JournalError, loadJournal, type BatchOutcome, type LoadedJournal, type RunHeader, type RunShape } from '../../bulk/journal.js';
import { Gate, RateLimiter, Window } from '../../bulk/limiter.js';
import { acquireLock, type Lock } from '../../bulk/lock.js';
import { createNumberChecker } from '../../bulk/number-check.js';
import { NumberSet, numberKey } from '../../bulk/number-set.js';
import { PARALLEL_MIN_BYTES, runParallelPreflight } from '../../bulk/parallel.js';
import { parseBulkOptions, DEFAULT_BATCH_SIZE, type BulkOptions } from './options.js';
import { createRowChecker, runPreflight, type PreflightResult, type RowChecker } from '../../bulk/preflight.js';
import { createProgress, fmt, formatDuration, type Progress } from '../../bulk/progress.js';
import { CsvInputError, detectFormat, readCsv, type CsvFormat } from '../../bulk/reader.js';
import { reportFormat, ReportWriter, type RowOutcome } from '../../bulk/report.js';
import { readSpool, removeSpool, SpoolWriter } from '../../bulk/spool.js';
import { analyseText, describeChar, type TextAnalysis } from '../../bulk/segments.js';
import { ensureDir, ensureParent, idempotencyKey, newRunId, runDirFor, stateDir, stdinRunDir } from '../../bulk/state.js';

/** Consecutive batches that failed without an answer (in doubt or not sent) before the run stops. */
export const MAX_CONSECUTIVE_FAILURES = 5;
/** 429 retries per request: they are always safe, so bulk allows more than `send`. */
const BULK_MAX_ATTEMPTS = 8;
const PLACEHOLDER_NUMBER = '+447911123456';

type Raw = Readonly<Record<string, unknown>>;
type StopReason = 'interrupted' | 'auth' | 'failing';

export async function runSendBulk(ctx: Context, file: string | undefined, raw: Raw): Promise<void> {
  const opts = parseBulkOptions(file, raw);
  const ui = createUi(ctx, { quiet: opts.quiet, verbose: opts.verbose });
  // First Ctrl-C: finish what is in flight and write everything down (issue: "Nothing lost").
  ctx.enableGracefulInterrupt();
  const cleanups: Array<() => void> = [];
  try {
    await run(ctx, opts, ui, cleanups);
  } finally {
    for (const fn of cleanups.reverse()) {
      try {
        fn();
      } catch {
        // Cleanup must not hide the outcome.
      }
    }
  }
}

const interrupted = (): InterruptedError =>
  new InterruptedError('interrupted before anything was sent', { hint: 'Nothing was sent; run the same command again.' });

async function run(ctx: Context, opts: BulkOptions, ui: Ui, cleanups: Array<() => void>): Promise<void> {
  const checkpoint = (): void => {
    if (ctx.interrupt.aborted) throw interrupted();
  };
  const settings = await resolveSettings(
    ctx,
    { profile: opts.profile, baseUrl: opts.baseUrl, account: opts.account, apiKeyFile: opts.apiKeyFile, apiKeyStdin: opts.apiKeyStdin, from: opts.from, channel: opts.channel },
    { profileOptional: opts.sandbox },
  );

  // ---- where the run lives
  const state = stateDir(ctx.env, ctx.cwd);
  const fileAbs = opts.file !== undefined && opts.file !== '-' ? resolve(ctx.cwd, opts.file) : undefined;
  let journalPath: string;
  let runId: string;
  let previous: LoadedJournal | undefined;
  if (opts.resume) {
    if (opts.journal !== undefined) journalPath = resolve(ctx.cwd, opts.journal);
    else if (fileAbs !== undefined) journalPath = join(runDirFor(state, fileAbs), 'journal.jsonl');
    else throw new UsageError('--resume of a run that read stdin needs its --journal PATH', { hint: 'The path was printed when the run started, and in its summary.' });
    if (!existsSync(journalPath)) {
      throw new UsageError(`nothing to resume: there is no journal at ${journalPath}`, { hint: 'Run the command without --resume to start sending.' });
    }
    runId = '';
  } else {
    runId = newRunId(ctx.now());
    if (opts.journal !== undefined) journalPath = resolve(ctx.cwd, opts.journal);
    else if (fileAbs !== undefined) journalPath = join(runDirFor(state, fileAbs), 'journal.jsonl');
    else journalPath = join(stdinRunDir(state, runId), 'journal.jsonl');
  }

  let lock: Lock | undefined;
  if (!opts.dryRun) {
    ensureParent(journalPath);
    lock = acquireLock(`${journalPath}.lock`, describeCommand(opts), ctx.now());
    const l = lock;
    cleanups.push(() => l.release());
    ctx.onExit(() => l.release());
  }

  if (opts.resume) {
    try {
      previous = await loadJournal(journalPath);
    } catch (err) {
      if (err instanceof JournalError) throw new UsageError(`--resume: ${err.message}`, { hint: 'Give the journal path printed by the run you want to resume.' });
      throw err;
    }
    runId = previous.header.runId;
    if (fileAbs !== undefined && fileAbs !== previous.header.input.path && !previous.header.input.stdin) {
      throw new UsageError(`--resume: the journal ${journalPath} belongs to ${previous.header.input.path}, not ${fileAbs}`);
    }
    if (previous.badLines > 0) ui.warn(`the journal had ${previous.badLines} unreadable line${previous.badLines === 1 ? '' : 's'} (a write cut short); the batches they named count as in doubt`);
  } else if (!opts.dryRun && existsSync(journalPath)) {
    const old = await loadJournal(journalPath).catch(() => undefined);
    if (old !== undefined && !isFinished(old)) {
      if (!opts.restart) {
        throw new UsageError(`an unfinished run of this file exists (run ${old.header.runId}, started ${old.header.createdAt})`, {
          hint: `Continue it with --resume (rows already accepted are not sent again), or abandon it with --restart. Journal: ${journalPath}`,
        });
      }
      const archived = journalPath.replace(/\.jsonl$/, '') + `.${old.header.runId}.abandoned.jsonl`;
      renameSync(journalPath, archived);
      ui.info(`abandoned run ${old.header.runId}; its journal is kept as ${archived}`);
    }
  }

  // Opened now, under the lock, so a bad path fails before anything else and before a journal
  // exists; a dry run writes one only when the preflight stops it.
  const reportPath = opts.report !== undefined ? resolve(ctx.cwd, opts.report) : undefined;
  let report: ReportWriter | undefined;
  if (reportPath !== undefined) {
    if (opts.dryRun) reportFormat(reportPath);
    else {
      const r = new ReportWriter(reportPath);
      report = r;
      cleanups.push(() => r.close());
    }
  }

  // ---- the input file (stdin is spooled so it can be read twice and resumed)
  let inputPath: string;
  let inputIsStdin: boolean;
  let spoolKept = false;
  if (previous !== undefined) {
    inputPath = previous.header.input.path;
    inputIsStdin = previous.header.input.stdin;
  } else if (opts.file === '-') {
    const dir = opts.dryRun ? mkdtempSync(join(tmpdir(), 'msgr-bulk-')) : dirname(journalPath);
    ensureDir(dir);
    inputPath = join(dir, opts.dryRun ? 'stdin.csv' : `${runId}.stdin.csv`);
    // Kept only once a journal refers to it (see below).
    const spool = inputPath;
    cleanups.push(() => {
      if (opts.dryRun) rmSync(dir, { recursive: true, force: true });
      else if (!spoolKept) rmSync(spool, { force: true });
    });
    await spoolStdin(ctx, inputPath);
    inputIsStdin = true;
  } else {
    inputPath = fileAbs as string;
    inputIsStdin = false;
  }
  const fileLabel = inputIsStdin ? 'stdin' : (opts.file ?? inputPath);
  const identity = statInput(inputPath, fileLabel);
  if (previous !== undefined) {
    const was = previous.header.input;
    if (identity.size !== was.size || identity.quickHash !== was.quickHash) {
      throw new UsageError(`--resume: ${fileLabel} changed since run ${runId} started (${fmt(was.size)} bytes then, ${fmt(identity.size)} now)`, {
        hint: 'A resumed run must read the same file, or rows could be skipped or sent twice. Restore the file, or start a new run with --restart.',
      });
    }
  }

  // ---- message and batch shape: from the flags, or exactly as journaled
  let message: Record<string, unknown>;
  let shape: RunShape;
  if (previous !== undefined) {
    message = previous.header.message;
    shape = previous.header.shape;
    checkResumeFlags(opts, previous.header, ui, ctx.cwd);
    // Another msgr may normalise numbers differently (newer numbering data) and so build other
    // batches under the same Idempotency-Keys.
    if (previous.header.msgr !== ctx.version) {
      throw new UsageError(`--resume: run ${runId} was started by msgr ${previous.header.msgr}; this is msgr ${ctx.version}`, {
        hint: 'Finish it with the msgr that started it, or start a new run with --restart.',
      });
    }
    const validity = typeof message.validity === 'string' ? Date.parse(message.validity) : undefined;
    if (validity !== undefined && validity <= ctx.now().getTime()) {
      throw new UsageError(`--resume: run ${runId}'s validity (${String(message.validity)}) has passed; the remaining rows would not be delivered`, {
        hint: 'Start a new run with --restart and a new --validity.',
      });
    }
  } else {
    message = await buildMessage(ctx, opts, settings);
    shape = {
      batchSize: opts.batchSize ?? DEFAULT_BATCH_SIZE,
      encoding: opts.encoding ?? '',
      delimiter: opts.delimiter ?? '',
      msisdnColumn: opts.msisdnColumn ?? '',
      varColumns: opts.varColumns ?? [],
      metaColumns: opts.metaColumns ?? [],
      defaultCountry: opts.defaultCountry ?? null,
      allowDuplicates: opts.allowDuplicates,
      skipInvalid: opts.skipInvalid,
      exclude: opts.exclude !== undefined ? { path: resolve(ctx.cwd, opts.exclude), hash: '' } : null,
    };
  }
  let country: CountryCode | undefined;
  if (shape.defaultCountry !== null) {
    country = parseCountry(shape.defaultCountry);
    if (country === undefined) throw new UsageError(`--default-country: "${shape.defaultCountry}" is not a country code`, { hint: 'Use a two-letter ISO code such as GB, US or DE.' });
  }
  const checker = createNumberChecker(country);
  let exclude: ExcludeList | undefined;
  if (shape.exclude !== null) {
    exclude = await loadExcludes(shape.exclude.path, checker);
    if (previous !== undefined && exclude.hash !== shape.exclude.hash) {
      throw new UsageError(`--resume: the exclude file ${shape.exclude.path} changed since run ${runId} started`, {
        hint: 'Rows it now excludes (or no longer excludes) would shift every batch. Restore it, or start a new run with --restart.',
      });
    }
    if (previous === undefined) shape = { ...shape, exclude: { path: shape.exclude.path, hash: exclude.hash } };
    if (exclude.firstUnreadable !== undefined) {
      ui.warn(`--exclude: ${exclude.unreadable} line${exclude.unreadable === 1 ? ' is' : 's are'} not a number and ${exclude.unreadable === 1 ? 'was' : 'were'} ignored (first: line ${exclude.firstUnreadable.line}: ${exclude.firstUnreadable.reason})`);
    }
  }

  // ---- where to send: resolved before the preflight, so a missing key or base URL fails at once
  // rather than after a pass over millions of rows (a dry run needs neither)
  const target = opts.dryRun ? undefined : await resolveTarget(ctx, ui, settings, opts.sandbox);
  // The HTTP client (undici) loads while the preflight runs, not after it.
  const clientModule = opts.dryRun ? undefined : import('../../http/client.js');
  clientModule?.catch(() => undefined);

  // ---- preflight pass
  let format: CsvFormat;
  try {
    format = await detectFormat(inputPath, {
      encoding: shape.encoding !== '' ? (shape.encoding as CsvFormat['encoding']) : undefined,
      delimiter: shape.delimiter !== '' ? shape.delimiter : undefined,
    });
  } catch (err) {
    throw new UsageError(`cannot read ${fileLabel} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  const columnOptions = {
    msisdnColumn: shape.msisdnColumn !== '' ? shape.msisdnColumn : undefined,
    varColumns: previous !== undefined || opts.varColumns !== undefined ? shape.varColumns : undefined,
    metaColumns: shape.metaColumns,
  };
  const spoolPath = `${journalPath}.spool`;
  if (!opts.dryRun) {
    cleanups.push(() => {
      removeSpool(spoolPath);
      removeSpool(`${spoolPath}.2`);
    });
  }
  let pre: PreflightResult;
  let spoolParts: readonly string[] = [spoolPath];
  let dropFromSecond: NumberSet | undefined;
  const started = performance.now();
  // Two cores when the file is big enough and safe to split (bulk/parallel.ts), else one pass.
  const split = parallelMinBytes(ctx.env) !== undefined
    ? await runParallelPreflight({
        path: inputPath,
        fileLabel,
        format,
        columns: columnOptions,
        country,
        allowDuplicates: shape.allowDuplicates,
        exclude: exclude?.set,
        batchSize: shape.batchSize,
        fileBytes: identity.size,
        spoolPath: opts.dryRun ? undefined : spoolPath,
        signal: ctx.interrupt,
        minBytes: parallelMinBytes(ctx.env),
      })
    : undefined;
  checkpoint();
  if (split !== undefined) {
    pre = split;
    spoolParts = split.spoolParts;
    dropFromSecond = split.dropFromSecond;
    ui.debug(`preflight: two threads, the second from line ${split.splitLine}`);
  } else {
    const spool = opts.dryRun ? undefined : new SpoolWriter(spoolPath);
    removeSpool(`${spoolPath}.2`);
    try {
      pre = await runPreflight({
        path: inputPath,
        fileLabel,
        format,
        columns: columnOptions,
        checker,
        allowDuplicates: shape.allowDuplicates,
        exclude: exclude?.set,
        batchSize: shape.batchSize,
        fileBytes: identity.size,
        spool,
        checkpoint,
      });
    } catch (err) {
      if (err instanceof CsvInputError) throw new UsageError(`${fileLabel} ${err.message}; nothing was sent`, { hint: 'Fix the file and run again.' });
      throw err;
    } finally {
      spool?.close();
    }
  }
  if (previous === undefined) {
    // Resolved now, so a resume uses the same columns whatever the header detection would say.
    shape = {
      ...shape,
      encoding: format.encoding,
      delimiter: format.delimiter,
      msisdnColumn: pre.columns.msisdnName,
      varColumns: pre.columns.vars.map((i) => pre.columns.header[i] ?? ''),
      metaColumns: pre.columns.meta.map((i) => pre.columns.header[i] ?? ''),
    };
  } else if (pre.hash !== previous.header.input.hash) {
    throw new UsageError(`--resume: ${fileLabel} changed since run ${runId} started (its content hash differs)`, {
      hint: 'A resumed run must read the same file, or rows could be skipped or sent twice. Restore the file, or start a new run with --restart.',
    });
  } else if (pre.rows !== previous.header.totals.rows || pre.toSend !== previous.header.totals.toSend) {
    // The same bytes, read with the same flags and msgr version, must give the same verdicts; if
    // they do not, the batches would not line up with the journal's, so nothing is sent.
    const was = previous.header.totals;
    throw new UsageError(`--resume: ${fileLabel} is unchanged, but its preflight now gives ${fmt(pre.rows)} rows and ${fmt(pre.toSend)} to send where run ${runId} had ${fmt(was.rows)} and ${fmt(was.toSend)}; nothing was sent`, {
      hint: 'This is a bug in msgr; please report it. Running again with MSGR_BULK_PARALLEL_MIN_BYTES=off reads the file in one pass.',
    });
  }
  const text = typeof (message.body as { text?: unknown } | undefined)?.text === 'string' ? analyseText((message.body as { text: string }).text) : undefined;
  const base: Summary = {
    runId: opts.dryRun ? null : runId,
    file: inputIsStdin ? '-' : inputPath,
    journal: opts.dryRun ? null : journalPath,
    report: opts.report !== undefined ? resolve(ctx.cwd, opts.report) : null,
    dryRun: opts.dryRun,
    rows: pre.rows,
    valid: pre.valid,
    invalid: pre.invalid,
    duplicates: pre.duplicates,
    excluded: pre.excluded,
    outsidePlan: pre.outsidePlan,
    toSend: pre.toSend,
    requests: pre.requests,
    batchSize: shape.batchSize,
    text: text === undefined ? null : { encoding: text.encoding, partsPerMessage: text.parts, parts: text.parts * pre.toSend, forcing: text.forcing.map(describeChar) },
    problems: pre.problems.map((p) => ({ line: p.line, column: p.column, message: p.message })),
  };
  printPreflight(ui, pre, text, fileLabel, ((performance.now() - started) / 1000).toFixed(1));

  if (pre.invalid > 0 && !shape.skipInvalid) {
    const shown = pre.problems.slice(0, 10).map((p) => `  line ${p.line}${p.column !== '' ? `, ${p.column}` : ''}: ${p.message}`);
    const more = pre.invalid > shown.length ? `\n  … and ${fmt(pre.invalid - shown.length)} more` : '';
    let reportHint = '';
    if (reportPath !== undefined) {
      // Every problem, not just the first ones: the report lists each row with its verdict.
      const writer = report ?? new ReportWriter(reportPath);
      try {
        await writePreflightReport(inputPath, format, pre.columns, createRowChecker(pre.columns, checker, format.encoding === 'utf8'), writer);
      } finally {
        writer.close();
      }
      reportHint = ` Every invalid row is listed in ${reportPath}.`;
    }
    throw new UsageError(`${fileLabel}: ${fmt(pre.invalid)} invalid row${pre.invalid === 1 ? '' : 's'}; nothing was sent:\n${shown.join('\n')}${more}`, {
      hint: `Fix the rows, or add --skip-invalid to send the valid rows and list the others in the summary and --report.${reportHint}`,
      json: { ...base, exitCode: 2, stopped: 'preflight' },
    });
  }

  const prefixSuffix = requestFrame(message);
  if (opts.dryRun) {
    const first = pre.firstBatch.length > 0 ? (JSON.parse(`${prefixSuffix.prefix}${pre.firstBatch.join(',')}${prefixSuffix.suffix}`) as unknown) : null;
    if (opts.json) ctx.stdout.write(`${JSON.stringify({ ...base, firstRequest: first }, null, 2)}\n`);
    else if (first !== null) ctx.stdout.write(`${JSON.stringify(first, null, 2)}\n`);
    ui.info(`dry run: ${fmt(pre.toSend)} recipient${pre.toSend === 1 ? '' : 's'} in ${fmt(pre.requests)} request${pre.requests === 1 ? '' : 's'} would be sent; nothing was sent`);
    return;
  }

  // ---- where to send (resolved before the preflight)
  if (target === undefined) throw new Error('send-bulk: no target outside a dry run');
  const { endpoint, direct } = target;
  const apiKey = target.apiKey;
  if (!opts.sandbox && pre.toSend > 0) {
    const { confirmSend } = await import('../../settings/confirm.js');
    const accountRef = String(message.accountReference);
    const account: Resolved<string | undefined> = accountRef === settings.account.value ? settings.account : { value: accountRef, source: 'flag', origin: `journal of run ${runId}` };
    await confirmSend(ctx, settings, { recipients: pre.toSend, yes: opts.yes, account });
  }
  checkpoint();

  // ---- journal (only once everything the client needs has been checked: a bad --ca-file must
  // not leave a journal that looks like an unfinished run)
  const { createClient, readCaFile } = await (clientModule ?? import('../../http/client.js'));
  if (opts.caFile !== undefined) readCaFile(opts.caFile);
  let journal: Journal;
  if (previous === undefined) {
    const header: RunHeader = {
      type: 'run',
      version: 1,
      runId,
      createdAt: ctx.now().toISOString(),
      msgr: ctx.version,
      input: { path: inputPath, stdin: inputIsStdin, size: identity.size, mtimeMs: identity.mtimeMs, quickHash: identity.quickHash, hash: pre.hash },
      shape,
      message,
      totals: { rows: pre.rows, toSend: pre.toSend, requests: pre.requests },
    };
    journal = Journal.create(journalPath, header);
    spoolKept = true;
  } else {
    journal = Journal.append(journalPath);
  }
  cleanups.push(() => journal.close());
  ui.info(`${previous !== undefined ? 'resuming' : 'run'} ${runId}; journal ${journalPath}`);

  const key = apiKey;
  const sender = new Sender(ctx, ui, opts, {
    runId,
    journal,
    states: previous?.states,
    prefix: prefixSuffix.prefix,
    suffix: prefixSuffix.suffix,
    batchSize: shape.batchSize,
    toSend: pre.toSend,
    requests: pre.requests,
  });
  const client = createClient({
    endpoint,
    apiKey: key,
    userAgent: `msgr/${ctx.version} node/${process.version}`,
    timeoutMs: opts.timeoutMs,
    caFile: opts.caFile,
    connections: opts.concurrency,
    maxAttempts: BULK_MAX_ATTEMPTS,
    // Message ids are only needed for the report.
    readSuccessBody: opts.report !== undefined,
    env: ctx.env,
    direct,
    ...(ui.verbose ? { debug: (line: string) => ui.debug(redact(line, key)) } : {}),
    onRetry: (info) => sender.onRetry(info),
  });
  ctx.onExit(() => client.close());
  ui.debug(`sending to ${endpoint.toString()} with key ${maskSecret(key)} (${settings.apiKey.origin ?? settings.apiKey.source})`);

  const progress = await createProgress(ctx, { quiet: opts.quiet, verbose: opts.verbose });
  cleanups.push(() => progress.stop());
  const t0 = performance.now();
  await sender.sendAll(client, { spoolParts, dropFromSecond, report, progress, key });
  progress.stop();
  report?.close();
  const seconds = (performance.now() - t0) / 1000;

  // ---- summary and exit code
  const r = sender.result();
  const resumeCommand = buildResumeCommand(opts, fileAbs, inputIsStdin, journalPath, opts.journal !== undefined);
  const resumable = r.notSent + r.inDoubt > 0;
  journal.stop(r.stopped ?? 'finished');
  journal.close();
  if (!resumable && inputIsStdin) rmSync(inputPath, { force: true });
  const summary: Summary & Record<string, unknown> = {
    ...base,
    accepted: r.accepted,
    acceptedEarlier: r.acceptedEarlier,
    rejected: r.rejected,
    inDoubt: r.inDoubt,
    notSent: r.notSent,
    inDoubtBatches: r.inDoubtBatches,
    stopped: r.stopped ?? null,
    seconds: Math.round(seconds * 10) / 10,
    resume: resumable ? resumeCommand : null,
  };
  printSummary(ui, summary, r, seconds);
  const inDoubtHint = r.inDoubt > 0 ? `\n      In-doubt batches may have been accepted: check first, then add --resend-in-doubt to send them again with their original Idempotency-Key.` : '';
  const resumeHint = resumable ? `Resume with: ${resumeCommand}${inDoubtHint}` : undefined;
  if (r.stopped === 'auth') {
    throw new AuthError(`the API refused the key or the account (HTTP ${r.authStatus ?? 401}): ${clean(ctx, r.authMessage ?? '', key)}; the run stopped`, {
      hint: `Check the API key and account (msgr profile show tells where each came from).${resumeHint !== undefined ? ` ${resumeHint}` : ''}`,
      json: { ...summary, exitCode: 3 },
    });
  }
  if (r.stopped === 'interrupted') {
    throw new InterruptedError(`interrupted: ${fmt(r.accepted)} of ${fmt(pre.toSend)} recipients accepted`, {
      ...(resumeHint !== undefined ? { hint: resumeHint } : {}),
      json: { ...summary, exitCode: 130 },
    });
  }
  if (r.stopped === 'failing') {
    throw new PartialError(`stopped early: ${MAX_CONSECUTIVE_FAILURES} batches in a row got no answer (last: ${clean(ctx, r.lastFailure ?? '?', key)}); ${fmt(r.accepted)} of ${fmt(pre.toSend)} recipients accepted`, {
      ...(resumeHint !== undefined ? { hint: resumeHint } : {}),
      json: { ...summary, exitCode: 7 },
    });
  }
  if (r.accepted < pre.toSend) {
    const parts = [r.rejected > 0 ? `${fmt(r.rejected)} rejected` : '', r.inDoubt > 0 ? `${fmt(r.inDoubt)} in doubt` : '', r.notSent > 0 ? `${fmt(r.notSent)} not sent` : ''].filter((s) => s !== '');
    throw new PartialError(`${fmt(pre.toSend - r.accepted)} of ${fmt(pre.toSend)} recipients were not accepted (${parts.join(', ')})`, {
      hint: [report !== undefined ? `Every row's outcome is in ${report.path}.` : 'Add --report FILE to get every row\'s outcome.', resumeHint].filter((s) => s !== undefined).join('\n      '),
      json: { ...summary, exitCode: 7 },
    });
  }
  if (opts.json) ctx.stdout.write(`${JSON.stringify({ ...summary, exitCode: 0 }, null, 2)}\n`);
}

// ------------------------------------------------------------------------------------------
// Sending

interface SenderConfig {
  readonly runId: string;
  readonly journal: Journal;
  readonly states: Uint8Array | undefined;
  readonly prefix: string;
  readonly suffix: string;
  readonly batchSize: number;
  readonly toSend: number;
  readonly requests: number;
}

interface SendInput {
  /** The spool, in one file or in the two parts of a split preflight, in row order. */
  readonly spoolParts: readonly string[];
  /** `S` lines of the second part with one of these numbers are duplicates (bulk/parallel.ts). */
  readonly dropFromSecond: NumberSet | undefined;
  readonly report: ReportWriter | undefined;
  readonly progress: Progress;
  readonly key: string;
}

/** Report rows of one segment of the file: the rows skipped before a batch, then its recipients. */
interface ReportRows {
  readonly lines: number[];
  readonly numbers: string[];
  /** undefined: a recipient of the batch; else why the row was not sent. */
  readonly skips: Array<RowOutcome | undefined>;
  readonly errors: Array<string | undefined>;
}

interface Batch {
  readonly seq: number;
  /** The batch number (journal, Idempotency-Key); -1 for a segment with no recipients. */
  readonly index: number;
  readonly first: number;
  readonly firstLine: number;
  /** Recipient JSON; left empty for a batch an earlier run finished (it is not sent). */
  entries: string[];
  count: number;
  readonly rows: ReportRows | undefined;
  outcome?: RowOutcome;
  status?: number | undefined;
  error?: string | undefined;
  ids?: Array<string | undefined>;
}

export interface SendResult {
  accepted: number;
  acceptedEarlier: number;
  rejected: number;
  inDoubt: number;
  notSent: number;
  inDoubtBatches: Array<{ batch: number; idempotencyKey: string; firstLine: number; recipients: number }>;
  stopped: StopReason | undefined;
  authStatus?: number;
  authMessage?: string;
  lastFailure?: string;
  throttled: number;
}

class StopReading extends Error {}

class Sender {
  readonly #ctx: Context;
  readonly #ui: Ui;
  readonly #opts: BulkOptions;
  readonly #cfg: SenderConfig;
  readonly #gate = new Gate();
  readonly #window: Window;
  readonly #limiter: RateLimiter | undefined;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #completed = new Map<number, Batch>();
  #nextReportSeq = 0;
  #report: ReportWriter | undefined;
  #progress: Progress | undefined;
  #stopped: StopReason | undefined;
  #consecutiveFailures = 0;
  #done = 0;
  #failed = 0;
  #lastThrottleNote = 0;
  #warmedUp = false;
  readonly #result: SendResult = { accepted: 0, acceptedEarlier: 0, rejected: 0, inDoubt: 0, notSent: 0, inDoubtBatches: [], stopped: undefined, throttled: 0 };

  constructor(ctx: Context, ui: Ui, opts: BulkOptions, cfg: SenderConfig) {
    this.#ctx = ctx;
    this.#ui = ui;
    this.#opts = opts;
    this.#cfg = cfg;
    this.#window = new Window(opts.concurrency);
    this.#limiter = opts.rate !== undefined ? new RateLimiter(opts.rate) : undefined;
  }

  /** The client is about to wait before retrying: 429/503 slow the whole run down. */
  onRetry(info: { attempt: number; delayMs: number; reason: string; status?: number }): void {
    this.#gate.pauseFor(info.delayMs);
    if (info.status === 429 || info.status === 503) {
      this.#result.throttled++;
      this.#window.throttled();
      this.#limiter?.slowDown(0.8);
      const now = performance.now();
      if (now - this.#lastThrottleNote > 5_000) {
        this.#lastThrottleNote = now;
        this.#progress?.log(`the server asked to slow down (HTTP ${info.status}): pausing ${(info.delayMs / 1000).toFixed(1)} s, ${this.#window.limit} request${this.#window.limit === 1 ? '' : 's'} in flight from now on`);
      }
    } else {
      this.#ui.debug(`retrying a batch in ${(info.delayMs / 1000).toFixed(1)} s (${info.reason})`);
    }
  }

  result(): SendResult {
    const r = this.#result;
    r.stopped = this.#stopped;
    r.notSent = this.#cfg.toSend - r.accepted - r.rejected - r.inDoubt;
    return r;
  }

  async sendAll(client: MessagesClient, input: SendInput): Promise<void> {
    this.#report = input.report;
    this.#progress = input.progress;
    const { batchSize } = this.#cfg;
    const withReport = input.report !== undefined;
    const queue: Batch[] = [];
    let seq = 0;
    let batchIndex = 0;
    let current: Batch | undefined;
    const newSegment = (first: number, line: number): Batch => ({
      seq: seq++,
      index: -1,
      first,
      firstLine: line,
      entries: [],
      count: 0,
      rows: withReport ? { lines: [], numbers: [], skips: [], errors: [] } : undefined,
    });
    const onAbort = (): void => {
      if (this.#stopped === undefined) {
        this.#stopped = 'interrupted';
        const n = this.#inFlight.size;
        this.#progress?.log(`interrupted: sending no new batches${n > 0 ? `, waiting for ${n} in flight` : ''}; Ctrl-C again to quit at once (the journal stays consistent)`);
      }
    };
    this.#ctx.interrupt.addEventListener('abort', onAbort, { once: true });
    if (this.#ctx.interrupt.aborted) onAbort();

    const states = this.#cfg.states;
    const resendInDoubt = this.#opts.resendInDoubt;
    const sendable = (batch: number): boolean => {
      const st = states?.[batch] ?? BatchState.none;
      if (st === BatchState.accepted || st === BatchState.rejected) return false;
      return resendInDoubt || (st !== BatchState.started && st !== BatchState.inDoubt);
    };
    const seal = (b: Batch): void => {
      (b as { index: number }).index = batchIndex++;
      queue.push(b);
    };

    let index = 0;
    let drop: NumberSet | undefined;
    try {
      for (let part = 0; part < input.spoolParts.length; part++) {
        drop = part === 1 ? input.dropFromSecond : undefined;
        await readSpool(
          input.spoolParts[part] as string,
          (spooled, line, number, payload) => {
            // A number the first part of a split preflight sends already: a duplicate here.
            const kind = spooled === 'S' && drop?.has(numberKey(number)) === true ? 'D' : spooled;
            current ??= newSegment(index, line);
            index++;
            if (kind === 'S') {
              // Batch `batchIndex` is the one being filled: an earlier run's batches are not sent.
              if (sendable(batchIndex)) current.entries.push(payload);
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
              current.rows.skips.push(kind === 'D' ? 'duplicate' : kind === 'X' ? 'excluded' : 'invalid');
              current.rows.errors.push(kind === 'I' ? (JSON.parse(payload) as string) : undefined);
            }
          },
          async () => {
            await this.#pump(queue, client);
            if (this.#stopped !== undefined && !withReport) throw new StopReading();
          },
        );
      }
    } catch (err) {
      if (!(err instanceof StopReading)) throw err;
    }
    if (current !== undefined) {
      if (current.count > 0) seal(current);
      else this.#complete(current);
    }
    await this.#pump(queue, client);
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
    this.#ctx.interrupt.removeEventListener('abort', onAbort);
    this.#progress.update(this.#stats());
  }

  async #pump(queue: Batch[], client: MessagesClient): Promise<void> {
    while (queue.length > 0) {
      const b = queue.shift() as Batch;
      const state = this.#cfg.states?.[b.index] ?? BatchState.none;
      const count = b.count;
      if (state === BatchState.accepted || state === BatchState.rejected) {
        // Done by an earlier run of this journal: never sent again.
        b.outcome = state === BatchState.accepted ? 'accepted' : 'rejected';
        b.error = 'in an earlier run';
        if (state === BatchState.accepted) {
          this.#result.accepted += count;
          this.#result.acceptedEarlier += count;
        } else {
          this.#result.rejected += count;
        }
        this.#done += count;
        this.#complete(b);
        continue;
      }
      if ((state === BatchState.started || state === BatchState.inDoubt) && !this.#opts.resendInDoubt) {
        this.#markInDoubt(b, 'in doubt since an earlier run: not sent again without --resend-in-doubt');
        this.#complete(b);
        continue;
      }
      if (this.#stopped !== undefined || !(await this.#window.acquire(this.#ctx.interrupt))) {
        b.outcome = 'not-sent';
        b.error = this.#stopReasonText();
        this.#complete(b);
        continue;
      }
      await this.#gate.wait(this.#ctx.interrupt);
      await this.#limiter?.take(count, this.#ctx.interrupt);
      await this.#gate.wait(this.#ctx.interrupt);
      if (this.#stopped !== undefined) {
        this.#window.release();
        b.outcome = 'not-sent';
        b.error = this.#stopReasonText();
        this.#complete(b);
        continue;
      }
      const p = this.#send(b, client).finally(() => {
        this.#inFlight.delete(p);
      });
      this.#inFlight.add(p);
      if (this.#limiter !== undefined && !this.#warmedUp) {
        // The first request pays for the connection and cold code paths and reaches the server
        // late; batches scheduled meanwhile would arrive bunched behind it. Under --rate, let it
        // finish and start the schedule from there.
        this.#warmedUp = true;
        await p;
        this.#limiter.restart();
      }
    }
  }

  #stopReasonText(): string {
    switch (this.#stopped) {
      case 'interrupted':
        return 'interrupted before it was sent';
      case 'auth':
        return 'not sent: the API refused the key or the account';
      case 'failing':
        return 'not sent: the run stopped after repeated failures';
      default:
        return 'not sent';
    }
  }

  #markInDoubt(b: Batch, error: string): void {
    b.outcome = 'in-doubt';
    b.error = error;
    const count = b.count;
    this.#result.inDoubt += count;
    this.#result.inDoubtBatches.push({ batch: b.index, idempotencyKey: idempotencyKey(this.#cfg.runId, b.index), firstLine: b.firstLine, recipients: count });
    this.#failed += count;
    this.#done += count;
  }

  async #send(b: Batch, client: MessagesClient): Promise<void> {
    const key = idempotencyKey(this.#cfg.runId, b.index);
    const count = b.count;
    const body = this.#cfg.prefix + b.entries.join(',') + this.#cfg.suffix;
    b.entries = [];
    let outcome: Outcome;
    try {
      // On disk before the request leaves: a crash after this point leaves the batch in doubt.
      await this.#cfg.journal.startedDurably({ batch: b.index, first: b.first, count, key });
      outcome = await client.sendRaw(body, { idempotencyKey: key });
    } catch (err) {
      outcome = { kind: 'unknown', message: err instanceof Error ? err.message : String(err), attempts: 1 };
    }
    let journaled: BatchOutcome;
    switch (outcome.kind) {
      case 'accepted':
        journaled = 'accepted';
        b.outcome = 'accepted';
        b.status = outcome.status;
        if (b.rows !== undefined) b.ids = extractMessageIds(outcome.body, b.rows.numbers.filter((_, i) => b.rows?.skips[i] === undefined));
        this.#result.accepted += count;
        this.#done += count;
        this.#consecutiveFailures = 0;
        this.#window.succeeded();
        break;
      case 'rejected':
        b.status = outcome.status;
        b.error = outcome.message;
        if (outcome.status === 409) {
          // Idempotency-Key still being processed from an earlier attempt: not a verdict.
          journaled = 'in-doubt';
          this.#markInDoubt(b, `HTTP 409: ${outcome.message}`);
        } else {
          journaled = 'rejected';
          b.outcome = 'rejected';
          this.#result.rejected += count;
          this.#failed += count;
          this.#done += count;
        }
        this.#consecutiveFailures = 0;
        break;
      case 'auth':
        journaled = 'auth';
        b.outcome = 'not-sent';
        b.status = outcome.status;
        b.error = `HTTP ${outcome.status}: ${outcome.message}`;
        this.#result.authStatus = outcome.status;
        this.#result.authMessage = outcome.message;
        this.#stop('auth');
        break;
      case 'not-sent':
        journaled = 'not-sent';
        b.outcome = 'not-sent';
        b.status = outcome.status;
        b.error = outcome.message;
        this.#failure(outcome.status !== undefined ? `HTTP ${outcome.status}: ${outcome.message}` : outcome.message);
        break;
      case 'unknown':
        journaled = 'in-doubt';
        b.status = outcome.status;
        this.#markInDoubt(b, outcome.status !== undefined ? `HTTP ${outcome.status}: ${outcome.message}` : outcome.message);
        this.#failure(b.error ?? outcome.message);
        break;
    }
    this.#cfg.journal.done({
      batch: b.index,
      outcome: journaled,
      ...(b.status !== undefined ? { status: b.status } : {}),
      ...(b.error !== undefined ? { error: b.error.slice(0, 500) } : {}),
    });
    this.#window.release();
    this.#complete(b);
    this.#progress?.update(this.#stats());
  }

  #failure(text: string): void {
    this.#result.lastFailure = text;
    this.#consecutiveFailures++;
    if (this.#consecutiveFailures >= MAX_CONSECUTIVE_FAILURES) this.#stop('failing');
  }

  #stop(reason: StopReason): void {
    if (this.#stopped === undefined) this.#stopped = reason;
  }

  #stats(): { done: number; total: number; failed: number; inFlight: number; note?: string } {
    const paused = this.#gate.pausedFor;
    return { done: this.#done, total: this.#cfg.toSend, failed: this.#failed, inFlight: this.#inFlight.size, ...(paused > 0 ? { note: `paused ${formatDuration(paused / 1000)} (429)` } : {}) };
  }

  /** Report lines go out in input order: a finished batch waits for the ones before it. */
  #complete(b: Batch): void {
    if (this.#report === undefined) return;
    this.#completed.set(b.seq, b);
    for (let next = this.#completed.get(this.#nextReportSeq); next !== undefined; next = this.#completed.get(this.#nextReportSeq)) {
      this.#completed.delete(this.#nextReportSeq);
      this.#nextReportSeq++;
      this.#writeRows(next);
    }
  }

  #writeRows(b: Batch): void {
    const report = this.#report;
    const rows = b.rows;
    if (report === undefined || rows === undefined) return;
    let j = 0;
    for (let i = 0; i < rows.lines.length; i++) {
      const skip = rows.skips[i];
      const line = rows.lines[i] as number;
      const number = rows.numbers[i] as string;
      if (skip !== undefined) {
        report.write({ line, number, outcome: skip, error: rows.errors[i] });
        continue;
      }
      const outcome = b.outcome ?? 'not-sent';
      report.write({
        line,
        number,
        outcome,
        status: b.status,
        messageId: outcome === 'accepted' ? b.ids?.[j] : undefined,
        error: outcome === 'accepted' && b.error === undefined ? undefined : b.error,
      });
      j++;
    }
  }
}

/**
 * Message ids from a 2xx body, per recipient, tolerating shapes the real API might use (its
 * response is not specified): an array of entries (top level, or under messages / recipients /
 * results / data) matched by msisdn, else by position when the count matches.
 */
export function extractMessageIds(body: unknown, numbers: readonly string[]): Array<string | undefined> {
  const ids: Array<string | undefined> = new Array<string | undefined>(numbers.length).fill(undefined);
  if (body === null || typeof body !== 'object') return ids;
  const o = body as Record<string, unknown>;
  const list = Array.isArray(body) ? (body as unknown[]) : [o.messages, o.recipients, o.results, o.data].find((v): v is unknown[] => Array.isArray(v));
  const idOf = (e: unknown): string | undefined => {
    if (e === null || typeof e !== 'object') return undefined;
    const r = e as Record<string, unknown>;
    const v = r.id ?? r.messageId ?? r.message_id ?? r.messageID;
    return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
  };
  if (list === undefined) {
    if (numbers.length === 1) ids[0] = idOf(body);
    return ids;
  }
  // The usual shape: one entry per recipient, in request order (the sandbox's). Checked, not assumed.
  if (list.length === numbers.length) {
    let inOrder = true;
    for (let i = 0; i < list.length && inOrder; i++) {
      const e = list[i];
      const msisdn = e !== null && typeof e === 'object' ? (e as Record<string, unknown>).msisdn : undefined;
      if (msisdn !== undefined && msisdn !== numbers[i]) inOrder = false;
    }
    if (inOrder) {
      for (let i = 0; i < list.length; i++) ids[i] = idOf(list[i]);
      return ids;
    }
  }
  const byNumber = new Map<string, string[]>();
  for (const e of list) {
    const id = idOf(e);
    const msisdn = e !== null && typeof e === 'object' ? (e as Record<string, unknown>).msisdn ?? (e as Record<string, unknown>).to : undefined;
    if (id !== undefined && typeof msisdn === 'string') {
      const q = byNumber.get(msisdn);
      if (q === undefined) byNumber.set(msisdn, [id]);
      else q.push(id);
    }
  }
  if (byNumber.size > 0) {
    for (let i = 0; i < numbers.length; i++) ids[i] = byNumber.get(numbers[i] as string)?.shift();
    return ids;
  }
  return ids;
}

// ------------------------------------------------------------------------------------------
// Pieces

interface Summary {
  runId: string | null;
  file: string;
  journal: string | null;
  report: string | null;
  dryRun: boolean;
  rows: number;
  valid: number;
  invalid: number;
  duplicates: number;
  excluded: number;
  outsidePlan: number;
  toSend: number;
  requests: number;
  batchSize: number;
  text: { encoding: string; partsPerMessage: number; parts: number; forcing: string[] } | null;
  problems: Array<{ line: number; column: string; message: string }>;
}

function clean(ctx: Context, text: string, key: string): string {
  return redact(ctx.stderr.isTTY === true ? stripControl(text) : text, key);
}

/** The request as a string frame around the recipients, in the spec's field order. */
export function requestFrame(message: Record<string, unknown>): { prefix: string; suffix: string } {
  const { metaData, addressBook: _addressBook, recipients: _recipients, ...rest } = message;
  // ASCII only, like the recipients (columns.ts, asciiJson): the same JSON value.
  const head = asciiJson(JSON.stringify(rest));
  return {
    prefix: `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"recipients":[`,
    suffix: `]${metaData !== undefined ? `,"metaData":${asciiJson(JSON.stringify(metaData))}` : ''}}`,
  };
}

function keyValues(flag: string, values: readonly string[] | undefined): KeyValues | undefined {
  if (values === undefined || values.length === 0) return undefined;
  const out: KeyValues = {};
  for (const v of values) {
    const kv = parseKeyValue(v);
    if (kv === undefined || kv.key === '') throw new UsageError(`${flag}: "${v}" is not key=value`, { hint: `For example ${flag} campaign=spring` });
    out[kv.key] = kv.value;
  }
  return out;
}

/** The request without recipients, validated as `send` validates it (validity made absolute). */
async function buildMessage(ctx: Context, opts: BulkOptions, settings: Settings): Promise<Record<string, unknown>> {
  let text = opts.text;
  if (opts.textFile !== undefined) {
    try {
      text = (await readFile(resolve(ctx.cwd, opts.textFile), 'utf8')).replace(/\r?\n$/, '');
    } catch (err) {
      throw new UsageError(`--text-file: cannot read ${opts.textFile} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  if (text === undefined && opts.template === undefined) {
    throw new UsageError('no message: give --text, --text-file or --template', { hint: 'For example --text "Your order is ready" or --template order_ready (with the CSV columns as variables).' });
  }
  const draft: MessageDraft = {
    accountReference: settings.account.value ?? (opts.sandbox ? 'SANDBOX' : undefined),
    name: opts.name,
    characterSet: opts.characterSet,
    channel: settings.channel.value,
    from: settings.from.value,
    validity: opts.validity,
    messageType: opts.messageType,
    text,
    templateId: opts.template,
    recipients: [{ msisdn: PLACEHOLDER_NUMBER }],
    metaData: keyValues('--meta', opts.meta),
  };
  const built = buildRequest(draft, ctx.now());
  if (!built.ok) {
    const problems = built.problems.filter((p) => !p.field.startsWith('--to'));
    const lines = problems.map((p) => `  ${p.field}: ${p.message}`);
    const hints = problems.flatMap((p) => (p.hint !== undefined ? [p.hint] : []));
    throw new UsageError(`the message is not valid; nothing was sent:\n${lines.join('\n')}`, hints.length > 0 ? { hint: hints.join('\n      ') } : {});
  }
  const { recipients: _r, ...message } = built.request;
  return message;
}

/** The report of a run that stopped at the preflight: invalid rows with why, the rest not sent. */
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

function isFinished(j: LoadedJournal): boolean {
  return j.states.every((s) => s === BatchState.accepted || s === BatchState.rejected);
}

interface InputStat {
  size: number;
  mtimeMs: number;
  quickHash: string;
}

/** Size, mtime and a hash of size + first and last MiB: a cheap check that the file is the same. */
function statInput(path: string, label: string): InputStat {
  let st;
  try {
    st = statSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${label} (${code === 'ENOENT' ? 'no such file' : (code ?? 'error')})`);
  }
  if (st.isDirectory()) throw new UsageError(`${label} is a folder, not a CSV file`);
  const hash = createHash('sha256').update(String(st.size));
  const fd = openSync(path, 'r');
  try {
    const mib = 1024 * 1024;
    const head = Buffer.alloc(Math.min(mib, st.size));
    readSync(fd, head, 0, head.length, 0);
    hash.update(head);
    if (st.size > mib) {
      const tail = Buffer.alloc(Math.min(mib, st.size - mib));
      readSync(fd, tail, 0, tail.length, st.size - tail.length);
      hash.update(tail);
    }
  } finally {
    closeSync(fd);
  }
  return { size: st.size, mtimeMs: st.mtimeMs, quickHash: hash.digest('hex') };
}

async function spoolStdin(ctx: Context, path: string): Promise<void> {
  if (ctx.stdin.isTTY === true) {
    throw new UsageError('send-bulk -: stdin is a terminal', { hint: 'Pipe the CSV in: `cat recipients.csv | msgr send-bulk - ...`, or give the file name.' });
  }
  const fd = openSync(path, 'w', 0o600);
  try {
    for await (const chunk of ctx.stdin) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      let off = 0;
      while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    }
  } finally {
    closeSync(fd);
  }
}

function printPreflight(ui: Ui, pre: PreflightResult, text: TextAnalysis | undefined, label: string, seconds: string): void {
  const skipped = [
    pre.invalid > 0 ? `${fmt(pre.invalid)} invalid` : '',
    pre.duplicates > 0 ? `${fmt(pre.duplicates)} duplicate${pre.duplicates === 1 ? '' : 's'}` : '',
    pre.excluded > 0 ? `${fmt(pre.excluded)} excluded` : '',
  ].filter((s) => s !== '');
  ui.info(`preflight: ${label}: ${fmt(pre.rows)} row${pre.rows === 1 ? '' : 's'}, ${fmt(pre.valid)} valid${skipped.length > 0 ? `, ${skipped.join(', ')}` : ''} (${seconds} s)`);
  ui.info(`  to send: ${fmt(pre.toSend)} recipient${pre.toSend === 1 ? '' : 's'} in ${fmt(pre.requests)} request${pre.requests === 1 ? '' : 's'}`);
  if (text !== undefined) {
    const forcing = text.forcing.length > 0 ? ` (forced by ${text.forcing.slice(0, 8).map(describeChar).join(', ')}${text.forcing.length > 8 ? ', …' : ''})` : '';
    ui.info(`  text: ${text.encoding}${forcing}, ${text.units} ${text.encoding === 'GSM-7' ? 'septets' : 'characters'}: ${text.parts} SMS part${text.parts === 1 ? '' : 's'} per message, ${fmt(text.parts * pre.toSend)} in total`);
  }
  if (pre.outsidePlan > 0) {
    const samples = pre.outsideSamples.map((s) => `${s.number} (line ${s.line})`).join(', ');
    ui.warn(`${fmt(pre.outsidePlan)} number${pre.outsidePlan === 1 ? ' is' : 's are'} possible but outside the known numbering plan; sending anyway: ${samples}${pre.outsidePlan > pre.outsideSamples.length ? ', …' : ''}`);
  }
  if (pre.invalid > 0) {
    for (const p of pre.problems.slice(0, 10)) ui.warn(`line ${p.line}${p.column !== '' ? `, ${p.column}` : ''}: ${p.message}`);
    if (pre.invalid > 10) ui.warn(`… and ${fmt(pre.invalid - 10)} more invalid rows`);
  }
}

function printSummary(ui: Ui, s: Summary & Record<string, unknown>, r: SendResult, seconds: number): void {
  const rate = seconds > 0 ? Math.round((r.accepted - r.acceptedEarlier) / seconds) : 0;
  const earlier = r.acceptedEarlier > 0 ? ` (${fmt(r.acceptedEarlier)} in an earlier run)` : '';
  const line = `${fmt(r.accepted)} of ${fmt(s.toSend)} recipient${s.toSend === 1 ? '' : 's'} accepted${earlier} in ${seconds.toFixed(1)} s (${fmt(rate)}/s); accepted is not yet delivered`;
  if (r.accepted === s.toSend && r.stopped === undefined) ui.success(line);
  else ui.info(line);
  const notAccepted = [
    r.rejected > 0 ? `${fmt(r.rejected)} rejected` : '',
    r.inDoubt > 0 ? `${fmt(r.inDoubt)} in doubt` : '',
    r.notSent > 0 ? `${fmt(r.notSent)} not sent` : '',
  ].filter((x) => x !== '');
  if (notAccepted.length > 0) ui.info(`  not accepted: ${notAccepted.join(', ')}`);
  const skipped = [s.invalid > 0 ? `${fmt(s.invalid)} invalid` : '', s.duplicates > 0 ? `${fmt(s.duplicates)} duplicates` : '', s.excluded > 0 ? `${fmt(s.excluded)} excluded` : ''].filter((x) => x !== '');
  if (skipped.length > 0) ui.info(`  skipped before sending: ${skipped.join(', ')}`);
  if (r.throttled > 0) ui.info(`  the server throttled ${fmt(r.throttled)} time${r.throttled === 1 ? '' : 's'} (429/503); the run slowed down`);
  for (const b of r.inDoubtBatches.slice(0, 10)) {
    ui.info(`  in doubt: batch ${b.batch} (${b.recipients} recipients from line ${b.firstLine}, Idempotency-Key ${b.idempotencyKey})`);
  }
  if (r.inDoubtBatches.length > 10) ui.info(`  … and ${r.inDoubtBatches.length - 10} more batches in doubt`);
  if (s.journal !== null) ui.info(`  journal: ${s.journal}`);
  if (s.report !== null) ui.info(`  report: ${s.report}`);
}

/** The flags given on a resume must not change what the run sends. */
function checkResumeFlags(opts: BulkOptions, header: RunHeader, ui: Ui, cwd: string): void {
  const shape = header.shape;
  const msg = header.message;
  const body = (msg.body ?? {}) as { text?: string; templateId?: string };
  const differs = (flag: string, was: unknown): never => {
    throw new UsageError(`--resume: ${flag} differs from run ${header.runId}, which sends ${JSON.stringify(was)}`, {
      hint: 'A resumed run sends exactly what it started with: drop the flag, or start a new run with --restart.',
    });
  };
  const same = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x.toLowerCase() === b[i]?.toLowerCase());
  if (opts.batchSize !== undefined && opts.batchSize !== shape.batchSize) differs('--batch-size', shape.batchSize);
  if (opts.msisdnColumn !== undefined && opts.msisdnColumn.trim().toLowerCase() !== shape.msisdnColumn.toLowerCase()) differs('--msisdn-column', shape.msisdnColumn);
  if (opts.varColumns !== undefined && !same(opts.varColumns, shape.varColumns)) differs('--var-columns', shape.varColumns.join(','));
  if (opts.metaColumns !== undefined && !same(opts.metaColumns, shape.metaColumns)) differs('--meta-columns', shape.metaColumns.join(','));
  if (opts.defaultCountry !== undefined && opts.defaultCountry.trim().toUpperCase() !== (shape.defaultCountry ?? '').toUpperCase()) differs('--default-country', shape.defaultCountry);
  if (opts.allowDuplicates && !shape.allowDuplicates) differs('--allow-duplicates', false);
  if (opts.skipInvalid && !shape.skipInvalid) differs('--skip-invalid', false);
  if (opts.text !== undefined && opts.text !== body.text) differs('--text', body.text ?? null);
  if (opts.template !== undefined && opts.template !== body.templateId) differs('--template', body.templateId ?? null);
  if (opts.from !== undefined && opts.from !== msg.from) differs('--from', msg.from);
  if (opts.channel !== undefined && opts.channel.trim().toUpperCase() !== msg.channel) differs('--channel', msg.channel);
  if (opts.account !== undefined && opts.account !== msg.accountReference) differs('--account', msg.accountReference);
  if (opts.name !== undefined && opts.name !== msg.name) differs('--name', msg.name ?? null);
  if (opts.characterSet !== undefined && opts.characterSet !== msg.characterSet) differs('--character-set', msg.characterSet ?? null);
  if (opts.messageType !== undefined && opts.messageType !== msg.messageType) differs('--message-type', msg.messageType ?? null);
  if (opts.meta !== undefined) {
    const meta = Object.fromEntries(opts.meta.map((m) => {
      const kv = parseKeyValue(m);
      return [kv?.key ?? m, kv?.value ?? ''];
    }));
    if (JSON.stringify(meta) !== JSON.stringify(msg.metaData ?? {})) differs('--meta', msg.metaData ?? null);
  }
  if (opts.exclude !== undefined && resolve(cwd, opts.exclude) !== shape.exclude?.path) differs('--exclude', shape.exclude?.path ?? null);
  if (opts.encoding !== undefined && opts.encoding !== shape.encoding) differs('--encoding', shape.encoding);
  if (opts.delimiter !== undefined && opts.delimiter !== shape.delimiter) differs('--delimiter', shape.delimiter);
  if (opts.validity !== undefined) ui.warn(`--resume: run ${header.runId} keeps its validity (${typeof msg.validity === 'string' ? msg.validity : 'none'}); --validity is ignored`);
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`;
}

function describeCommand(opts: BulkOptions): string {
  return `msgr send-bulk ${opts.file ?? ''}${opts.resume ? ' --resume' : ''}`.trim();
}

/** The exact command that continues this run. */
function buildResumeCommand(opts: BulkOptions, fileAbs: string | undefined, stdin: boolean, journalPath: string, explicitJournal: boolean): string {
  const args = ['msgr', 'send-bulk'];
  if (!stdin && fileAbs !== undefined) args.push(shellQuote(opts.file ?? fileAbs));
  args.push('--resume');
  if (stdin || explicitJournal) args.push('--journal', shellQuote(journalPath));
  if (opts.profile !== undefined) args.push('-p', shellQuote(opts.profile));
  if (opts.baseUrl !== undefined) args.push('--base-url', shellQuote(opts.baseUrl));
  if (opts.apiKeyFile !== undefined) args.push('--api-key-file', shellQuote(opts.apiKeyFile));
  if (opts.caFile !== undefined) args.push('--ca-file', shellQuote(opts.caFile));
  if (opts.sandbox) args.push('--sandbox');
  if (opts.concurrency !== 4) args.push('--concurrency', String(opts.concurrency));
  if (opts.rate !== undefined) args.push('--rate', shellQuote(opts.rate.text));
  if (opts.report !== undefined) args.push('--report', shellQuote(opts.report));
  if (opts.yes) args.push('--yes');
  return args.join(' ');
}

export { MsgrError };
