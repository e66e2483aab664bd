// `msgr send-bulk`, top to bottom: settings → run state (journal, lock, input) → plan (the
// message, from the flags or the journal) → where it sends → preflight pass (which leaves out the
// rows an earlier run accepted) → preflight lines (and a preview or a dry run, which stop there)
// → confirm → a sample, or the journal and the send pass → summary → exit code. Each stage is a
// module of src/bulk/ with a config of its own (README: "Design notes").
//
// Two passes: the preflight reads the CSV, checks every row and writes one line per row to the
// spool (the verdict, and the recipient's JSON when it is to be sent); the send pass reads the
// spool and joins those lines into request bodies, so neither the CSV parse nor the number checks
// run twice. Batch k is always the k-th batch the grouping closes (with one shared message, the
// k-th group of --batch-size rows to send), so a resumed run rebuilds the same batches (same
// bodies, same Idempotency-Keys) from the same file, and skips the ones the journal says are done
// (docs/bulk.md: Scale, and Nothing lost, nothing sent twice).
import { existsSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Context } from '../../context.js';
import { InterruptedError, PartialError, UsageError, type MsgrError } from '../../errors.js';
import { maskSecret, redact, stripControl } from '../../output/sanitize.js';
import { createUi, type Ui } from '../../output/ui.js';
import { describeSource, resolveSettings, type Resolved } from '../../settings/resolve.js';
import { checkSetUp, resolveTarget, settingsEndpoint } from '../../settings/target.js';
import { isNoSpace } from '../../bulk/journal/writer.js';
import { isInDoubt } from '../../bulk/journal/records.js';
import { outcomeTotals, type LoadedJournal } from '../../bulk/journal/load.js';
import { DiskReserve } from '../../bulk/journal/reserve.js';
import { Gate, RateLimiter, Window } from '../../bulk/send/limiter.js';
import { planRun, settledShape } from '../../bulk/runs/plan.js';
import { preflightPass, reportInvalidRows } from '../../bulk/preflight/pass.js';
import { previewEntries, printDryRun, printPreview } from '../../bulk/display/preview.js';
import { createProgress } from '../../bulk/send/progress.js';
import { openRunReport, ReportWriter } from '../../bulk/report/writer.js';
import { clientMaker } from '../../bulk/send/client.js';
import { runMessage } from '../../bulk/compose/run-message.js';
import { checkStdinAgain, isFinished, noSpaceError, openJournal, openRunState, spaceToResumeIn, type Where } from '../../bulk/runs/open.js';
import { describeEarlier, earlierRuns, sentBeforeError, type EarlierRun } from '../../bulk/runs/earlier.js';
import { openInput, spoolStdin } from '../../bulk/runs/input.js';
import { checkKeyUse, runningNowDocument } from '../../bulk/runs/once.js';
import { keyUsedBy, placeOf } from '../../once/keys.js';
import { checkSamePreflight, resumeRefusal } from '../../bulk/runs/resume-checks.js';
import { announceResume, runTargetOf } from '../../bulk/runs/target.js';
import { findRun, leftOutBatches, outcomeRecords } from '../../bulk/runs/catalogue.js';
import { dropSnapshots, keepAtStart } from '../../bulk/send/opt-outs.js';
import { runSamples, sampleNumbers, type UnfinishedRun } from '../../bulk/display/sample.js';
import { Sender } from '../../bulk/send/sender.js';
import { checkSameIntent, leaveOutFor, restartSendsToAll, skipSentRecord, withSentIds } from '../../bulk/runs/already-sent.js';
import { findRepeatedLines, repeatMode } from '../../bulk/preflight/repeats.js';
import { finishedDocument, restartCommand, invalidRowsError, severalMessagesError, leftToSend, printLeftToSend, nothingToSendError, preflightSummary, printLeftOut, printPreflight, printSummary, sentSummary, stopReason, successDocument, summaryError, type Summary } from '../../bulk/display/summary.js';
import type { BulkOptions } from './options.js';
import { shellQuote } from '../../output/shell.js';
import { buildResumeCommand } from '../../bulk/runs/resume-command.js';
import { newRunId } from '../../bulk/journal/keys.js';
import { stateDir } from '../../files/state-dir.js';

/** 429 retries per request: they are always safe, so bulk allows more than `send`. */
const BULK_MAX_ATTEMPTS = 8;

export async function runSendBulk(ctx: Context, opts: BulkOptions): Promise<void> {
  const ui = createUi(ctx, { quiet: opts.quiet, verbose: opts.verbose });
  // First Ctrl-C: finish what is in flight and write everything down. A second quits at once:
  // the report being written is removed (the one at its path stays as it was), and the exit code
  // says whether requests were left without their answers.
  const quit: Quit = { inDoubt: () => false, report: undefined };
  ctx.enableGracefulInterrupt(() => {
    quit.report?.discard();
    return { inDoubt: quit.inDoubt(), resume: where.resume };
  });
  const cleanups: Array<() => void> = [];
  const where: Where = {};
  try {
    await run(ctx, opts, ui, (fn) => cleanups.push(fn), where, quit);
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

/** What quitting at once (a second Ctrl-C) must know of the run, filled in as it gets there. */
interface Quit {
  inDoubt: () => boolean;
  report: ReportWriter | undefined;
}

/**
 * Stopped before anything was sent (`plain`: how it says so, by default at a checkpoint). Exit 130
 * says "nothing in doubt": a resume whose earlier run left batches in doubt still has them, so it
 * is 7 as when it stops later (README: "Exit codes").
 */
function interrupted(previous: LoadedJournal | undefined, plain?: InterruptedError): MsgrError {
  const doubt = previous?.states.filter(isInDoubt).length ?? 0;
  if (previous === undefined || doubt === 0) return plain ?? new InterruptedError('interrupted before anything was sent', { hint: 'Nothing was sent; run the same command again.' });
  return new PartialError(`interrupted before anything was sent; ${doubt} batch${doubt === 1 ? '' : 'es'} an earlier run left in doubt ${doubt === 1 ? 'is' : 'are'} still in doubt`, {
    hint: `\`msgr runs show ${previous.header.runId}\` lists them: check whether they arrived; run the same command again to send the rest.`,
  });
}

async function run(ctx: Context, opts: BulkOptions, ui: Ui, defer: (cleanup: () => void) => void, where: Where, quit: Quit): Promise<void> {
  const settings = await resolveSettings(
    ctx,
    { profile: opts.profile, baseUrl: opts.baseUrl, account: opts.account, apiKeyFile: opts.apiKeyFile, apiKeyStdin: opts.apiKeyStdin, from: opts.from, channel: opts.channel, caFile: opts.caFile, defaultCountry: opts.defaultCountry },
    { profileOptional: opts.sandbox },
  );
  // A base URL msgr would refuse to send to stops the run before anything is read (a dry run too,
  // as `send --dry-run` checks it).
  if (!opts.sandbox) settingsEndpoint(ctx, settings.baseUrl);

  // Runs named by --skip-sent, found before this run moves its file's last journal aside; the flag
  // alone names the earlier runs of this file (bulk/runs/earlier.ts), found once the input is known.
  const refs = (opts.skipSent ?? []).filter((ref) => ref !== '');
  const named = refs.map((ref) => findRun(stateDir(ctx.env, ctx.cwd), ctx.cwd, ref, '--skip-sent'));
  // A preview or a sample is no run of the campaign: no journal, no lock, like a dry run.
  const trial = opts.preview !== undefined ? '--preview' : opts.sampleTo !== undefined ? '--sample-to' : undefined;
  const noJournal = opts.dryRun || trial !== undefined;
  // A campaign key belongs to a target account: the API (or the sandbox) and the account.
  const place = placeOf(settings.baseUrl.value, opts.sandbox, settings.account.value ?? (opts.sandbox ? 'SANDBOX' : undefined));
  const once = opts.once !== undefined ? { key: opts.once, place } : undefined;
  const flags = { ...opts, dryRun: noJournal, trial, resumeWith: opts, once };
  let state = await openRunState(ctx, ui, flags, defer);
  const { runId, journalPath, previous } = state;
  if (state.runningNow !== undefined && once !== undefined) {
    const now = runningNowDocument(once.key, state.runningNow, journalPath);
    ui.info(now.line);
    if (opts.json) ctx.stdout.write(`${JSON.stringify(now.doc, null, 2)}\n`);
    return;
  }
  if (once !== undefined && previous === undefined) {
    const used = keyUsedBy(stateDir(ctx.env, ctx.cwd), place, once.key, 'send-bulk');
    if (used !== undefined) throw new UsageError(`--once ${once.key} was used by ${used}; a key names one message or campaign; nothing was sent`, { hint: `Give this campaign a key of its own (e.g. --once ${shellQuote(`${once.key}-2`)}).` });
  }
  // The key's run must be this command's: its message, its data (bulk/runs/once.ts).
  if (once !== undefined && previous !== undefined) {
    let data = state.fileAbs;
    if (opts.file === '-') {
      data = `${journalPath}.${ctx.pid}.stdin`;
      const copy = data;
      defer(() => rmSync(copy, { force: true }));
      await spoolStdin(ctx, copy);
    }
    await checkKeyUse(ctx, { key: once.key, header: previous.header, finished: isFinished(previous), flags: opts, settings, input: data });
  }
  // Every batch answered: nothing to send, and nothing to say under -q (a cron job's later runs).
  if (previous !== undefined && isFinished(previous)) {
    const h = previous.header;
    const done = finishedDocument({ runId: h.runId, file: h.input.stdin ? '-' : h.input.path, journal: journalPath, finishedAt: previous.lastAnswerAt, totals: outcomeTotals(previous), once: h.once?.key });
    ui.info(done.line);
    if (opts.json) ctx.stdout.write(`${JSON.stringify(done.doc, null, 2)}\n`);
    return;
  }
  // A resumed run sends the account and sender its journal has.
  const sends = previous?.header.message;
  checkSetUp(settings, {
    sandbox: opts.sandbox,
    offline: opts.dryRun || opts.preview !== undefined,
    account: (sends?.accountReference ?? settings.account.value) !== undefined || opts.sandbox,
    from: (sends?.from ?? settings.from.value ?? opts.fromColumn) !== undefined,
  });
  const checkpoint = (): void => {
    if (ctx.interrupt.aborted) throw interrupted(previous);
  };
  // A second Ctrl-C before the sender is made (loading an --exclude list, at the question) leaves
  // the batches an earlier run left in doubt as they were: 7, as at a checkpoint.
  quit.inDoubt = () => previous?.states.some(isInDoubt) ?? false;
  if (previous !== undefined) checkSameIntent(named, refs, { bare: opts.skipSent?.includes('') === true, again: opts.again }, previous.header);
  where.folder = dirname(journalPath);
  // The resume command names the file by its real path when it was given through a symlink.
  const resumeFlags = { ...opts, file: state.fileArg };
  if (previous !== undefined) where.resume = buildResumeCommand(resumeFlags, state.fileAbs, previous.header.input.stdin, journalPath);
  // Room for the answers of the batches in flight should the disk fill (docs/bulk.md: Stopping).
  // Taken before the preflight: a disk too full for it stops the run before any work.
  const reserve = noJournal ? undefined : DiskReserve.take(`${journalPath}.reserve`);
  if (reserve !== undefined) {
    defer(() => reserve.release());
    ctx.atQuit(() => reserve.release());
  }
  const reportPath = opts.report !== undefined ? resolve(ctx.cwd, opts.report) : undefined;
  const reads = [
    ['the CSV file being sent', state.fileAbs ?? previous?.header.input.path],
    ['the --exclude list', opts.exclude !== undefined ? resolve(ctx.cwd, opts.exclude) : previous?.header.shape.exclude?.path],
    ['the --text-file', opts.textFile !== undefined && opts.textFile !== '-' ? resolve(ctx.cwd, opts.textFile) : undefined],
    ["the run's journal", journalPath],
  ] as const;
  const report = reportPath !== undefined ? openRunReport(reportPath, { dryRun: opts.dryRun, trial, reads, pid: ctx.pid }, defer) : undefined;
  quit.report = report;
  const input = await openInput(ctx, flags, state, defer);
  // Piped data an unfinished run read too is that run (known once stdin is read).
  state = await checkStdinAgain(ctx, ui, flags, state, input, defer);
  where.inputBytes = input.identity.size;
  const plan = await planRun(ctx, ui, opts, settings, previous, journalPath);
  // One shared text, or a message per row (README: "Personalised messages"), as the journal says on a resume.
  const message = runMessage(plan.message, plan.shape.personal, opts.textFile !== undefined ? '--text-file' : '--text');
  const sampleTo = sampleNumbers(opts.sampleTo, plan.checker, plan.exclude !== undefined ? { set: plan.exclude.set, label: opts.exclude ?? '' } : undefined);

  // Where to send: resolved before the preflight, so a missing key or base URL fails at once
  // rather than after a pass over millions of rows (a dry run needs neither).
  const offline = opts.dryRun || opts.preview !== undefined;
  const target = offline ? undefined : await resolveTarget(ctx, ui, settings, opts.sandbox, opts.webhookUrl);
  const runTarget = target !== undefined ? runTargetOf(target, settings, plan.message, previous !== undefined) : undefined;
  // Before the preflight: a resume against another target stops before anything is read or sent.
  if (previous !== undefined && runTarget !== undefined) announceResume(ui, runId, previous.header, runTarget, plan.message, settings.account.value !== undefined, previous.header.shape.personal);
  // A new run of a file its earlier runs sent to must say what it means for the numbers they
  // accepted: leave them out (--skip-sent) or message them again (--again); else they are the
  // guard (docs/bulk.md: "Running a file again").
  const definition = { message: plan.message, personal: plan.shape.personal };
  const earlier = previous !== undefined ? [] : await earlierRuns({ state: stateDir(ctx.env, ctx.cwd), sandbox: opts.sandbox, fileAbs: input.stdin ? undefined : state.fileAbs, input: { path: input.path, ...input.identity }, place, key: opts.once });
  if (opts.again && earlier.length > 0) ui.info(`--again: sending again to the numbers earlier runs of this file accepted (${earlier.length === 1 ? '' : `${earlier.length} runs; the last: `}${describeEarlier(earlier[earlier.length - 1] as EarlierRun)})`);
  const leave = await leaveOutFor(ui, { includeSent: opts.includeSent, named, bare: opts.skipSent?.includes('') === true, again: opts.again }, state, definition, runTarget, reportPath !== undefined, earlier);
  const sent = leave.sent;
  // The HTTP client (undici) loads while the preflight runs, not after it.
  const clients = offline ? undefined : ctx.http();
  clients?.catch(() => undefined);

  const passConfig: Parameters<typeof preflightPass>[0] = {
    path: input.path,
    fileLabel: input.label,
    fileBytes: input.identity.size,
    shape: plan.shape,
    varColumnsGiven: previous !== undefined || opts.varColumns !== undefined,
    country: plan.country,
    checker: plan.checker,
    exclude: plan.exclude?.set,
    // Rows an earlier run accepted are left out here, before anything is grouped, counted,
    // journaled or confirmed (bulk/runs/already-sent.ts).
    sent: sent?.accepted,
    spoolPath: noJournal ? undefined : `${journalPath}.spool`,
    env: ctx.env,
    signal: ctx.interrupt,
    checkpoint,
    debug: (line) => ui.debug(line),
    defer,
    atQuit: ctx.atQuit,
    message: message.personal,
    keepFirst: opts.preview ?? (sampleTo !== undefined ? opts.sample : 0),
  };
  // The guard's rows are counted as rows left out are, in a pass of their own that writes nothing:
  // the totals, a preview and a dry run are those of the command as given, and a --restart leaves
  // out what its abandoned run accepted besides. Only a run of a file again without --skip-sent or
  // --again reads its file twice.
  const pass = await preflightPass(passConfig);
  const { pre } = pass;
  const guard = leave.guard !== undefined ? (await preflightPass({ ...passConfig, sent: leave.guard.numbers.accepted, spoolPath: undefined, keepFirst: 0 })).pre : undefined;
  const guarded = guard?.alreadySent ?? 0;
  const spool = sent !== undefined && pass.spool !== undefined ? withSentIds(pass.spool, sent) : pass.spool;
  // A new run journals the format and columns the preflight settled on; a resumed one must have
  // found what its journal says.
  if (previous !== undefined) checkSamePreflight(previous, pre, input.label);
  const shape = previous === undefined ? settledShape(plan.shape, pass.format, pre) : plan.shape;
  // No journal is named before one exists: a new run writes it once confirmed.
  const facts = { runId: noJournal ? null : runId, file: input.stdin ? '-' : input.path, journal: previous !== undefined ? journalPath : null, report: reportPath ?? null, dryRun: offline || trial !== undefined, batchSize: shape.batchSize };
  // A dry run or preview beside an unfinished run: the same command without them is refused.
  const base: Summary = { ...preflightSummary(facts, pre, message.textAnalysis, pre.totals), ...(state.unfinished !== undefined ? { unfinishedRun: state.unfinished.header.runId } : {}) };
  const excludeList = plan.exclude !== undefined ? { label: opts.exclude ?? shape.exclude?.path ?? '', numbers: plan.exclude.numbers } : undefined;
  printPreflight(ui, pre, message.textAnalysis, input.label, pass.seconds, { skipInvalid: shape.skipInvalid, exclude: excludeList, totals: pre.totals, sms: plan.message.channel === 'SMS', repeats: repeatMode(shape), resumed: previous !== undefined });
  printLeftOut(ui, sent, pre.alreadySent, pre.alreadySentOthers);
  // A resume sends what the earlier runs got no final answer for, not the whole file again.
  let left: number | undefined;
  if (previous !== undefined) {
    const earlier = outcomeTotals(previous);
    left = leftToSend(pre.toSend, earlier, opts.resendInDoubt);
    printLeftToSend(ui, left, earlier, opts.resendInDoubt);
  }
  for (const line of message.singleBraceWarnings(pre.columns.header)) ui.warn(line);

  const out = { stdout: ctx.stdout, ui, json: opts.json, summary: base };
  // The preview comes before a refusal, to show what the rows render to: printed first, or with
  // --json in the refusal's document (the one document on stdout).
  if (opts.preview !== undefined && !opts.json) printPreview(out, plan.message, pre.firstRows, pre.toSend);
  const refusal = opts.preview !== undefined && opts.json ? { ...base, preview: previewEntries(plan.message, pre.firstRows) } : base;
  // Numbers on rows with different messages stop the run unless the command says which way
  // (bulk/preflight/repeats.ts); their lines are read again from the file for the refusal.
  const several = pre.differentMessages > 0 && repeatMode(shape) === 'stop' ? await findRepeatedLines(input.path, pass.format, pre.columns, plan.checker, message.rowPlan(pre.columns.header, input.label), pre.several, shape.fixMojibake === true) : undefined;
  if (pre.invalid > 0 && !shape.skipInvalid) {
    if (reportPath !== undefined) await reportInvalidRows(input.path, pass.format, { columns: pre.columns, checker: plan.checker, message: message.rowPlan(pre.columns.header, input.label), fixMojibake: shape.fixMojibake }, report ?? new ReportWriter(reportPath, ctx.pid));
    throw invalidRowsError(refusal, pre, input.label, reportPath, several);
  }
  if (several !== undefined) throw severalMessagesError(refusal, pre, input.label, several);
  if (guarded > 0 && leave.guard !== undefined) {
    throw sentBeforeError(guarded, leave.guard.runs, definition, { fileLabel: input.label, trial: trial ?? (opts.dryRun ? '--dry-run' : undefined), toSend: guard?.toSend ?? 0, jsonFor: (exitCode) => ({ ...refusal, exitCode, stopped: 'sent-before', sentBefore: guarded, earlierRuns: leave.guard?.runs.map((r) => r.header.runId) }) });
  }
  const nothing = nothingToSendError(refusal, pre, input.label);
  if (nothing !== undefined) throw nothing;
  if (opts.preview !== undefined) {
    if (opts.json) printPreview(out, plan.message, pre.firstRows, pre.toSend);
    return;
  }
  if (opts.dryRun) {
    // Nothing was sent, so there is nothing to report (a refused dry run reported its invalid rows above).
    if (reportPath !== undefined) ui.info(`dry run: no report written to ${reportPath}: nothing was sent`);
    return printDryRun({ ...out, summary: { ...base, report: null } }, message.firstFrame(pre.firstKey), pre.firstBatch, pre);
  }

  if (target === undefined) throw new Error('send-bulk: no target outside a dry run');
  const recipients = sampleTo !== undefined ? pre.firstRows.length * sampleTo.length : (left ?? pre.toSend);
  if (!opts.sandbox && recipients > 0) {
    const { confirmSend } = await import('../../settings/confirm.js');
    const journaled: Resolved<string | undefined> = { value: String(plan.message.accountReference), source: 'flag', origin: `journal of run ${runId}` };
    // A stop at the question (Ctrl-C, SIGTERM) is one before anything was sent, as at a checkpoint.
    await confirmSend(ctx, settings, { recipients, yes: opts.yes, account: journaled.value === settings.account.value ? settings.account : journaled }).catch((err: unknown) => {
      throw err instanceof InterruptedError ? interrupted(previous, err) : err;
    });
  }
  checkpoint();

  // The journal only once everything the client needs has been checked: a bad --ca-file must not
  // leave a journal that looks like an unfinished run.
  const createClient = await (clients ?? ctx.http());
  const newClient = clientMaker(createClient, ctx, { target, settings, timeoutMs: opts.timeoutMs, debug: ui.verbose ? (line) => ui.debug(line) : undefined });
  const { endpoint, apiKey: key } = target;
  const clean = (s: string): string => redact(ctx.stderr.isTTY === true ? stripControl(s) : s, key);
  // Beside an unfinished run, the sample names the command that goes on with the campaign.
  const unfinishedRun = (u: typeof state.unfinished): UnfinishedRun | undefined =>
    u === undefined
      ? undefined
      : {
          runId: u.header.runId,
          sending: u.sending,
          resumeRefusal: resumeRefusal(ctx, opts, u.header, runTargetOf(target, settings, u.header.message, true), settings.account.value !== undefined, pre.hash),
          restartSendsToAll: restartSendsToAll(u.header, { message: plan.message, personal: plan.shape.personal }, runTarget),
        };
  if (sampleTo !== undefined) {
    const address = target.sandbox ? undefined : { method: 'POST', url: endpoint, built: '{base_url}/v2/messages', baseUrl: settings.baseUrl.value, source: describeSource(settings.baseUrl) };
    const sample = { runId: `sample-${newRunId(ctx.now())}`, message: plan.message, rows: pre.firstRows, to: sampleTo, fileLabel: input.label, json: opts.json, apiKey: key, tty: ctx.stderr.isTTY === true, unfinished: unfinishedRun(state.unfinished), address };
    return runSamples(ctx, ui, { ...sample, client: newClient({ connections: 1 }) });
  }
  if (spool === undefined || runTarget === undefined) throw new Error('send-bulk: no spool or target outside a dry run');
  const keyedRun = previous?.header.once ?? state.once;
  // The lists of numbers not to message as the run starts, for its resumes (bulk/send/opt-outs.ts).
  if (previous === undefined) {
    for (const source of plan.optOuts) keepAtStart(journalPath, source);
    defer(() => {
      if (!existsSync(journalPath)) dropSnapshots(journalPath, plan.optOuts);
    });
  }
  const journal = openJournal(ctx, state, input, shape, plan.message, pre, { target: runTarget, skipSent: sent !== undefined ? skipSentRecord(sent) : [], alreadySent: pre.alreadySent, again: opts.again, once: state.once });
  defer(() => journal.close());
  if (reserve !== undefined) journal.useReserve(reserve);
  where.resume = buildResumeCommand(resumeFlags, state.fileAbs, input.stdin, journalPath);
  ui.info(`${previous !== undefined ? 'resuming' : 'run'} ${runId}; journal ${journalPath}`);

  // Message ids go to the journal (msgr runs report), not only to --report.
  const client = newClient({ connections: opts.concurrency, maxAttempts: BULK_MAX_ATTEMPTS, readSuccessBody: true, onRetry: (info) => sender.onRetry(info) });
  ui.debug(`sending to ${endpoint.toString()} with key ${maskSecret(key)} (${settings.apiKey.origin ?? settings.apiKey.source})`);

  const progress = await createProgress(ctx, { quiet: opts.quiet, verbose: opts.verbose, everyMs: opts.progressEveryMs });
  defer(() => progress.stop());
  const sender = new Sender({
    idempotency: keyedRun?.idempotency ?? runId,
    journal,
    states: previous?.states,
    frame: message.frame,
    frameOf: message.frameOf,
    batchSize: shape.batchSize,
    toSend: pre.toSend,
    duplicateKeys: pre.duplicateKeys,
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
    excludedAfterStart: plan.excludedAfterStart,
    journaledNumbers: previous !== undefined && previous.excluded.some((n) => n > 0) ? await leftOutBatches(journalPath, previous) : undefined,
  });
  // The journal first: it writes the answers already in, then tells of requests still out.
  quit.inDoubt = () => journal.quitNow() || sender.leavesInDoubt();
  const t0 = performance.now();
  where.sending = true;
  await sender.sendAll(spool);
  // Answers that found no room even in the reserve: written as soon as there is some.
  await journal.settle((folder, n) => ui.warn(`no room in ${folder} to record the answers of ${n} batch${n === 1 ? '' : 'es'}: waiting for space (free some there; Ctrl-C twice quits, leaving them in doubt)`));
  progress.stop();
  const reportWritten = closeReport(ui, report, runId);
  const seconds = (performance.now() - t0) / 1000;

  const r = sender.result();
  const summary = sentSummary({ ...base, journal: journalPath, report: reportWritten ? base.report : null }, r, seconds, buildResumeCommand(resumeFlags, state.fileAbs, input.stdin, journalPath));
  journal.stop(stopReason(r, summary.toSend) ?? 'finished');
  journal.close();
  if (summary.resume === null && input.stdin) rmSync(input.path, { force: true });
  if (summary.resume === null) dropSnapshots(journalPath, plan.optOuts);
  printSummary(ui, summary, r, seconds);
  const err = summaryError(summary, r, {
    reportPath: reportWritten ? report?.path : undefined,
    clean,
    spaceNeeded: spaceToResumeIn(r.fullFolder ?? dirname(journalPath), journalPath, report?.path, input.identity.size, Math.ceil(r.notSent / shape.batchSize), pre.rows),
    address: { endpoint, baseUrl: settings.baseUrl.value, source: describeSource(settings.baseUrl) },
    restart: restartCommand(ctx.argv, settings.baseUrl),
  });
  if (err !== undefined) throw err;
  if (opts.json) ctx.stdout.write(`${JSON.stringify(successDocument(summary), null, 2)}\n`);
}

/**
 * Puts the completed report in place. With no room for it, the run's outcome stands (the journal
 * has every answer): the report at that path is left as it was, and the run says how to write it
 * later. False when no report was written.
 */
function closeReport(ui: Ui, report: ReportWriter | undefined, runId: string): boolean {
  if (report === undefined) return false;
  try {
    report.close();
    return true;
  } catch (err) {
    if (!isNoSpace(err)) throw err;
    ui.warn(`no space left in ${dirname(report.path)} for the report: ${report.path} was not written (a report already there is as it was); once there is room, write it with: msgr runs report ${runId} --report ${shellQuote(report.path)}`);
    return false;
  }
}
