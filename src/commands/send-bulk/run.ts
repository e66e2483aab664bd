// `msgr send-bulk`: settings → run state (journal, lock) → plan → preflight pass → confirm →
// send pass → summary → exit code. Each stage is a module of src/bulk/ (README: "Design notes").
//
// Two passes: the preflight reads the CSV, checks every row and writes one line per row to the
// spool (the verdict, and the recipient's JSON when it is to be sent); the send pass reads the
// spool and joins those lines into request bodies, so neither the CSV parse nor the number checks
// run twice. Batch k is always the k-th batch the grouping closes (with one shared message, the
// k-th group of --batch-size rows to send), so a resumed run
// rebuilds the same batches (same bodies, same Idempotency-Keys) from the same file, and skips
// the ones the journal says are done (docs/bulk.md: Scale, and Nothing lost, nothing sent twice).
import { rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Context } from '../../context.js';
import { InterruptedError, UsageError } from '../../errors.js';
import { caFileSource } from '../../http/ca-file.js';
import type { Channel } from '../../message/channel.js';
import { maskSecret, redact, stripControl } from '../../output/sanitize.js';
import { createUi, type Ui } from '../../output/ui.js';
import { DiskReserve, isNoSpace } from '../../bulk/journal.js';
import { stateDir } from '../../bulk/state.js';
import { resolveSettings, type Resolved } from '../../settings/resolve.js';
import { resolveTarget } from '../../settings/target.js';
import { Gate, RateLimiter, Window } from '../../bulk/limiter.js';
import { messageText, requestFrame } from '../../bulk/message.js';
import { planRun, settledShape } from '../../bulk/plan.js';
import { preflightPass, reportInvalidRows } from '../../bulk/preflight-pass.js';
import { createProgress, fmt } from '../../bulk/progress.js';
import { reportFormat, ReportWriter } from '../../bulk/report.js';
import { checkSamePreflight, noSpaceError, openInput, openJournal, openRunState, spaceToResume, type Where } from '../../bulk/run-state.js';
import { announceResume, journaledTarget } from '../../bulk/run-target.js';
import { findRun, outcomeRecords } from '../../bulk/runs.js';
import { describeSkipped, sentNumbersFor, skipSentRecord, withSentIds } from '../../bulk/sent.js';
import { analyseText } from '../../message/segments.js';
import { frameForKey, isPersonal, planRowMessage, type MessageSource } from '../../bulk/personalise.js';
import { singleBraceColumns } from '../../message/placeholders.js';
import { formatPreview, previewEntries, shortRequestView } from '../../bulk/preview.js';
import { runSamples } from '../../bulk/sample.js';
import { newRunId } from '../../bulk/state.js';
import { Sender } from '../../bulk/sender.js';
import { buildResumeCommand, invalidRowsError, nothingToSendError, preflightSummary, printPreflight, printSummary, sentSummary, successDocument, summaryError } from '../../bulk/summary.js';
import type { BulkOptions } from './options.js';
import { userAgent } from '../../http/endpoint.js';

/** 429 retries per request: they are always safe, so bulk allows more than `send`. */
const BULK_MAX_ATTEMPTS = 8;

export async function runSendBulk(ctx: Context, opts: BulkOptions): Promise<void> {
  const ui = createUi(ctx, { quiet: opts.quiet, verbose: opts.verbose });
  // First Ctrl-C: finish what is in flight and write everything down.
  ctx.enableGracefulInterrupt();
  const cleanups: Array<() => void> = [];
  const where: Where = {};
  try {
    await run(ctx, opts, ui, (fn) => cleanups.push(fn), where);
  } catch (err) {
    // A full disk wherever it was met (the spool, the journal's header, the reserve, the
    // report): an environment error that stops the run, never a stack trace.
    if (isNoSpace(err)) {
      // Before the run's folder is known, the file that failed says where (the lock, a folder).
      const path = (err as NodeJS.ErrnoException).path;
      where.folder ??= path !== undefined ? dirname(path) : stateDir(ctx.env, ctx.cwd);
      throw noSpaceError(where);
    }
    throw err;
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

async function run(ctx: Context, opts: BulkOptions, ui: Ui, defer: (cleanup: () => void) => void, where: Where): Promise<void> {
  const checkpoint = (): void => {
    if (ctx.interrupt.aborted) throw interrupted();
  };
  const settings = await resolveSettings(
    ctx,
    { profile: opts.profile, baseUrl: opts.baseUrl, account: opts.account, apiKeyFile: opts.apiKeyFile, apiKeyStdin: opts.apiKeyStdin, from: opts.from, channel: opts.channel, caFile: opts.caFile, defaultCountry: opts.defaultCountry },
    { profileOptional: opts.sandbox },
  );

  // Runs named by --skip-sent, found before this run moves its file's last journal aside.
  const named = (opts.skipSent ?? []).map((ref) => findRun(stateDir(ctx.env, ctx.cwd), ctx.cwd, ref, '--skip-sent'));
  // A preview or a sample is no run of the campaign: no journal, no lock, like a dry run.
  const trial = opts.preview !== undefined || opts.sampleTo !== undefined;
  const noJournal = opts.dryRun || trial;
  const state = await openRunState(ctx, ui, { ...opts, dryRun: noJournal }, defer);
  const { runId, journalPath, previous } = state;
  where.folder = dirname(journalPath);
  if (previous !== undefined) where.resume = buildResumeCommand(opts, state.fileAbs, previous.header.input.stdin, journalPath);
  // Room for the answers of the batches in flight should the disk fill (docs/bulk.md: Stopping).
  // Taken before the preflight: a disk too full for it stops the run before any work.
  let reserve: DiskReserve | undefined;
  if (!noJournal) {
    const r = DiskReserve.take(`${journalPath}.reserve`);
    reserve = r;
    defer(() => r.release());
  }
  // Opened now, under the lock, so a bad path fails before anything else and before a journal
  // exists; a dry run writes one only when the preflight stops it.
  const reportPath = opts.report !== undefined ? resolve(ctx.cwd, opts.report) : undefined;
  let report: ReportWriter | undefined;
  if (reportPath !== undefined) {
    if (trial) throw new UsageError(`--report cannot be used with ${opts.preview !== undefined ? '--preview' : '--sample-to'}: nothing of the campaign is sent`);
    if (opts.dryRun) reportFormat(reportPath);
    else {
      const r = new ReportWriter(reportPath);
      report = r;
      defer(() => r.close());
    }
  }
  const input = await openInput(ctx, { ...opts, dryRun: noJournal }, state, defer);
  where.inputBytes = input.identity.size;
  const plan = await planRun(ctx, ui, opts, settings, previous);
  // A message per row (README: "Personalised messages"), as the journal says on a resume.
  const spec = plan.shape.personal;
  const source: MessageSource | undefined =
    spec !== undefined ? { text: messageText(plan.message), textFlag: opts.textFile !== undefined ? '--text-file' : '--text', channel: plan.message.channel as Channel, spec } : undefined;
  const personal = source !== undefined && isPersonal(source) ? source : undefined;
  const sharedText = messageText(plan.message);
  if (personal === undefined && sharedText !== undefined && spec?.maxParts != null) {
    const parts = analyseText(sharedText).parts;
    if (parts > spec.maxParts) throw new UsageError(`the text takes ${parts} SMS parts, more than --max-parts ${spec.maxParts}; nothing was sent`, { hint: 'Shorten the text, or raise --max-parts.' });
  }
  // The sample numbers are checked before the file is read.
  const sampleTo = opts.sampleTo?.map((n) => {
    const r = plan.checker.check(n);
    if (r.verdict === 'invalid') throw new UsageError(`--sample-to: ${n} ${r.reason ?? 'is not a phone number'}`, r.needsCountry === true ? { hint: 'Write it as +<country code><number>, or add --default-country.' } : {});
    return r.e164;
  });

  // Where to send: resolved before the preflight, so a missing key or base URL fails at once
  // rather than after a pass over millions of rows (a dry run needs neither).
  const offline = opts.dryRun || opts.preview !== undefined;
  const target = offline ? undefined : await resolveTarget(ctx, ui, settings, opts.sandbox);
  const runTarget = target === undefined ? undefined : journaledTarget({
    endpoint: target.endpoint,
    apiKey: target.apiKey,
    sandbox: target.sandbox,
    profile: settings.profile.value,
    // A resumed run's requests carry the journal's account: one given now is what it is checked against.
    account: previous !== undefined ? (settings.account.value ?? stringOrUndefined(plan.message.accountReference)) : stringOrUndefined(plan.message.accountReference),
  });
  // Before the preflight: a resume against another target stops before anything is read or sent.
  if (previous !== undefined && runTarget !== undefined) announceResume(ui, runId, previous.header, runTarget, plan.message, settings.account.value !== undefined);
  const sent = await sentNumbersFor(ui, { includeSent: opts.includeSent, named }, state, { message: plan.message, personal: plan.shape.personal }, runTarget, reportPath !== undefined);
  // The HTTP client (undici) loads while the preflight runs, not after it.
  const clientModule = offline ? undefined : import('../../http/client.js');
  clientModule?.catch(() => undefined);

  const pass = await preflightPass({
    path: input.path,
    fileLabel: input.label,
    fileBytes: input.identity.size,
    shape: plan.shape,
    varColumnsGiven: previous !== undefined || opts.varColumns !== undefined,
    country: plan.country,
    checker: plan.checker,
    exclude: plan.exclude?.set,
    // Rows an earlier run accepted are left out here, before anything is grouped, counted,
    // journaled or confirmed (bulk/sent.ts).
    sent: sent?.accepted,
    spoolPath: noJournal ? undefined : `${journalPath}.spool`,
    env: ctx.env,
    signal: ctx.interrupt,
    checkpoint,
    debug: (line) => ui.debug(line),
    defer,
    message: personal,
    keepFirst: opts.preview ?? (sampleTo !== undefined ? opts.sample : 0),
  });
  const { format, seconds: preflightSeconds, pre } = pass;
  const alreadySent = pre.alreadySent;
  const spool = sent !== undefined && pass.spool !== undefined ? withSentIds(pass.spool, sent) : pass.spool;
  // A new run journals the format and columns the preflight settled on; a resumed one must have
  // found what its journal says.
  if (previous !== undefined) checkSamePreflight(previous, pre, input.label);
  const shape = previous === undefined ? settledShape(plan.shape, format, pre) : plan.shape;
  const message = plan.message;
  // One shared text: its parts once; messages of their own: counted per row by the preflight.
  const textAnalysis = personal === undefined && sharedText !== undefined ? analyseText(sharedText) : undefined;
  const base = preflightSummary(
    { runId: noJournal ? null : runId, file: input.stdin ? '-' : input.path, journal: previous !== undefined ? journalPath : null, report: reportPath ?? null, dryRun: opts.dryRun || opts.preview !== undefined, batchSize: shape.batchSize },
    pre,
    textAnalysis,
    pre.totals,
  );
  const excludeList = plan.exclude !== undefined ? { label: opts.exclude ?? shape.exclude?.path ?? '', numbers: plan.exclude.numbers } : undefined;
  printPreflight(ui, pre, textAnalysis, input.label, preflightSeconds, { skipInvalid: shape.skipInvalid, exclude: excludeList, totals: pre.totals });
  if (sent !== undefined) ui.info(`  ${describeSkipped(alreadySent, sent)}`);
  if (sent !== undefined && sent.inDoubt > 0) {
    const ids = sent.runs.map((r) => r.runId);
    ui.warn(`${fmt(sent.inDoubt)} number${sent.inDoubt === 1 ? ' was' : 's were'} in doubt in run ${ids.join(', ')} (sent, no answer): they are not left out, so they may get this message twice; see them with: msgr runs report ${ids[0] ?? ''} --report in-doubt.csv`);
  }
  if (sharedText !== undefined && spec?.render === true) {
    for (const name of singleBraceColumns(sharedText, pre.columns.header)) ui.warn(`${source?.textFlag ?? '--text'}: {${name}} is sent as written; write {{${name}}} to put each row's ${name} in the text`);
  }

  if (opts.preview !== undefined) {
    const entries = previewEntries(message, pre.firstRows);
    if (opts.json) ctx.stdout.write(`${JSON.stringify({ ...base, preview: entries }, null, 2)}\n`);
    else if (entries.length > 0) ctx.stdout.write(`${formatPreview(entries)}\n`);
    ui.info(`preview: the first ${fmt(entries.length)} of ${fmt(pre.toSend)} message${pre.toSend === 1 ? '' : 's'}; nothing was sent`);
  }
  if (pre.invalid > 0 && !shape.skipInvalid) {
    const rowMessage = personal !== undefined ? planRowMessage(pre.columns.header, personal, input.label) : undefined;
    if (reportPath !== undefined) await reportInvalidRows(input.path, format, { columns: pre.columns, checker: plan.checker, message: rowMessage }, report ?? new ReportWriter(reportPath));
    throw invalidRowsError(base, pre, input.label, reportPath);
  }
  const nothing = nothingToSendError(base, pre, input.label);
  if (nothing !== undefined) throw nothing;
  if (opts.preview !== undefined) return;

  const frame = requestFrame(message);
  if (opts.dryRun) {
    const firstFrame = pre.firstKey !== undefined ? frameForKey(message, pre.firstKey) : frame;
    const first = pre.firstBatch.length > 0 ? (JSON.parse(`${firstFrame.prefix}${pre.firstBatch.join(',')}${firstFrame.suffix}`) as Record<string, unknown>) : null;
    if (opts.json) ctx.stdout.write(`${JSON.stringify({ ...base, firstRequest: first }, null, 2)}\n`);
    // On a terminal, a person reads it: the first recipients, not hundreds of lines.
    else if (first !== null) ctx.stdout.write(`${ctx.stdout.isTTY === true ? shortRequestView(first) : JSON.stringify(first, null, 2)}\n`);
    ui.info(`dry run: ${fmt(pre.toSend)} recipient${pre.toSend === 1 ? '' : 's'} in ${fmt(pre.requests)} request${pre.requests === 1 ? '' : 's'} would be sent; nothing was sent`);
    return;
  }

  if (target === undefined) throw new Error('send-bulk: no target outside a dry run');
  const { endpoint, direct, apiKey: key } = target;
  const samples = sampleTo !== undefined ? pre.firstRows.length * sampleTo.length : 0;
  const recipients = sampleTo !== undefined ? samples : pre.toSend;
  if (!opts.sandbox && recipients > 0) {
    const { confirmSend } = await import('../../settings/confirm.js');
    const accountRef = String(message.accountReference);
    const account: Resolved<string | undefined> = accountRef === settings.account.value ? settings.account : { value: accountRef, source: 'flag', origin: `journal of run ${runId}` };
    await confirmSend(ctx, settings, { recipients, yes: opts.yes, account });
  }
  checkpoint();

  // The journal only once everything the client needs has been checked: a bad --ca-file must not
  // leave a journal that looks like an unfinished run.
  const { createClient, readCaFile } = await (clientModule ?? import('../../http/client.js'));
  const caFile = settings.caFile.value;
  if (caFile !== undefined) readCaFile(caFile, caFileSource(settings.caFile));
  // The client of a sample (one connection) or of the campaign: one construction for both.
  const newClient = (extra: { connections: number; maxAttempts?: number; readSuccessBody?: boolean; onRetry?: Parameters<typeof createClient>[0]['onRetry'] }): ReturnType<typeof createClient> => {
    const client = createClient({
      endpoint,
      apiKey: key,
      userAgent: userAgent(ctx),
      timeoutMs: opts.timeoutMs,
      caFile,
      caFileSource: caFileSource(settings.caFile),
      nodeVersion: ctx.nodeVersion,
      profile: settings.profile.value,
      env: ctx.env,
      direct,
      ...(ui.verbose ? { debug: (line: string) => ui.debug(redact(line, key)) } : {}),
      ...extra,
    });
    ctx.onExit(() => client.close());
    return client;
  };
  const clean = (s: string): string => redact(ctx.stderr.isTTY === true ? stripControl(s) : s, key);
  if (sampleTo !== undefined) {
    if (pre.firstRows.length === 0) throw new UsageError(`--sample-to: ${input.label} has no row to send, so there is nothing to sample`);
    await runSamples(ctx, ui, { client: newClient({ connections: 1 }), runId: `sample-${newRunId(ctx.now())}`, message, rows: pre.firstRows, to: sampleTo, json: opts.json, clean });
    return;
  }
  if (spool === undefined) throw new Error('send-bulk: no spool outside a dry run');
  const journal = openJournal(ctx, state, input, shape, message, pre, {
    target: runTarget ?? journaledTarget({ endpoint, apiKey: key, sandbox: opts.sandbox, profile: settings.profile.value, account: stringOrUndefined(message.accountReference) }),
    skipSent: sent !== undefined ? skipSentRecord(sent) : [],
    alreadySent,
  });
  defer(() => journal.close());
  if (reserve !== undefined) journal.useReserve(reserve);
  where.resume = buildResumeCommand(opts, state.fileAbs, input.stdin, journalPath);
  ui.info(`${previous !== undefined ? 'resuming' : 'run'} ${runId}; journal ${journalPath}`);

  // Message ids go to the journal (msgr runs report), not only to --report.
  const client = newClient({ connections: opts.concurrency, maxAttempts: BULK_MAX_ATTEMPTS, readSuccessBody: true, onRetry: (info) => sender.onRetry(info) });
  ui.debug(`sending to ${endpoint.toString()} with key ${maskSecret(key)} (${settings.apiKey.origin ?? settings.apiKey.source})`);

  const progress = await createProgress(ctx, { quiet: opts.quiet, verbose: opts.verbose, everyMs: opts.progressEveryMs });
  defer(() => progress.stop());
  const sender = new Sender({
    runId,
    journal,
    states: previous?.states,
    frame,
    frameOf: personal !== undefined ? (k: string) => frameForKey(message, k) : undefined,
    batchSize: shape.batchSize,
    toSend: pre.toSend,
    resendInDoubt: opts.resendInDoubt,
    window: new Window(opts.concurrency),
    limiter: opts.rate !== undefined ? new RateLimiter(opts.rate) : undefined,
    gate: new Gate(),
    report,
    progress,
    client,
    signal: ctx.interrupt,
    debug: (line) => ui.debug(line),
    earlier: previous !== undefined && report !== undefined ? await outcomeRecords(journalPath) : undefined,
  });
  const t0 = performance.now();
  where.sending = true;
  await sender.sendAll(spool);
  // Answers that found no room even in the reserve: written as soon as there is some.
  await journal.settle((folder, n) => ui.warn(`no room in ${folder} to record the answers of ${n} batch${n === 1 ? '' : 'es'}: waiting for space (free some there; Ctrl-C twice quits, leaving them in doubt)`));
  progress.stop();
  report?.close();
  const seconds = (performance.now() - t0) / 1000;

  const r = sender.result();
  const summary = sentSummary({ ...base, journal: journalPath }, r, seconds, buildResumeCommand(opts, state.fileAbs, input.stdin, journalPath));
  journal.stop(r.stopped ?? 'finished');
  journal.close();
  if (summary.resume === null && input.stdin) rmSync(input.path, { force: true });
  printSummary(ui, summary, r, seconds);
  const err = summaryError(summary, r, { reportPath: report?.path, clean, spaceNeeded: spaceToResume(journalPath, input.identity.size, Math.ceil(r.notSent / shape.batchSize)) });
  if (err !== undefined) throw err;
  if (opts.json) ctx.stdout.write(`${JSON.stringify(successDocument(summary), null, 2)}\n`);
}

function stringOrUndefined(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

