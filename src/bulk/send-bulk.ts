// The campaign engine's front door for `msgr send-bulk` (src/commands/send-bulk/run.ts imports
// nothing else of src/bulk/; eslint.config.js holds it). A facade, not a barrel: a handful of
// functions, each one stage of a run, taking the campaign (bulk/campaign.ts) and what the stage
// before it found, in this order:
//
//   openRun    which run this is (new, resumed, restarted; its lock and journal), the input, what
//              it sends (from the campaign or the journal), where, what earlier runs accepted
//   preflight  every row checked before anything is sent; its lines; the refusals
//   showTrial  a preview or a dry run, which stop there
//   confirm    the question before sending (or the production guard's stop)
//   sample     --sample-to: the first rows' messages to the sample numbers, a run of their own
//   send       the journal and the send pass
//   summarise  the summary, and the error that gives the exit code
//
// Two passes: the preflight reads the CSV, checks every row and writes one line per row to the
// spool (the verdict, and the recipient's JSON when it is to be sent); the send pass reads the
// spool and joins those lines into request bodies, so neither the CSV parse nor the number checks
// run twice. Batch k is always the k-th batch the grouping closes (with one shared message, the
// k-th group of --batch-size rows to send), so a resumed run rebuilds the same batches (same
// bodies, same Idempotency-Keys) from the same file, and skips the ones the journal says are done
// (docs/campaign-input.md: "Scale", and docs/files.md: "Nothing lost, nothing sent twice"). Where each concept lives:
// docs/design.md.
import { existsSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { ClientFactory, Context } from '../context.js';
import { InterruptedError, UsageError } from '../errors.js';
import { stateDir } from '../files/state-dir.js';
import { freeKey, keyUsedBy } from '../once/keys.js';
import { maskSecret, maskUrl, redact, showControls } from '../output/sanitize.js';
import { shellQuote } from '../output/shell.js';
import type { Ui } from '../output/ui.js';
import { describeSource, type Resolved } from '../settings/resolve.js';
import { checkSetUp, resolveTarget, type Target } from '../settings/target.js';
import { isOffline, journalOf, type Campaign, type ResumeArgs } from './campaign.js';
import { FLAG, purposeFlag } from './flag-names.js';
import { BatchState, isInDoubt, type JournaledTarget, type RunShape } from './journal/records.js';
import type { RunContext } from './run-context.js';
import { outcomeTotals } from './journal/load.js';
import { newRunId } from './journal/keys.js';
import { DiskReserve } from './journal/reserve.js';
import { msgrRenders } from './compose/message.js';
import { runMessage, type RunMessage } from './compose/run-message.js';
import type { MessageDefinition } from './compose/definition.js';
import { preflightPass, reportInvalidRows } from './preflight/pass.js';
import { garbledRows, type PreflightResult } from './preflight/range.js';
import type { SpoolSource } from './preflight/spool.js';
import { findRepeatedLines, repeatMode } from './preflight/repeats.js';
import { NumberSet } from './input/number-set.js';
import { closeRunReport, openRunReport, ReportWriter, requestFields } from './report/writer.js';
import { Gate, RateLimiter, Window } from './send/limiter.js';
import { createProgress } from './send/progress.js';
import { clientMaker } from './send/client.js';
import { addedEffect, dropSnapshots, keepAtStart, withOptOutReasons } from './send/opt-outs.js';
import { describePossible } from '../optouts/store.js';
import { formatCount } from '../output/count.js';
import { Sender } from './send/sender.js';
import type { SendResult } from './send/accounting.js';
import { checkStdinAgain, isFinished, openJournal, openRunState, type Run, type RunInput } from './runs/open.js';
import { spaceToResumeIn } from './journal/reserve.js';
import { openInput, spoolStdin } from './runs/input.js';
import { planRun, settledShape, type PlannedStore, type RunPlan } from './runs/plan.js';
import { checkSamePreflight, resumeRefusal } from './runs/resume-checks.js';
import { announceResume, runTargetOf } from './runs/target.js';
import { describeEarlier, earlierRuns, sentBeforeError, type EarlierRun } from './runs/earlier.js';
import { checkSameIntent, DELIVERED_AT_START, leaveOutFor, restartSendsToAll, skipSentRecord, withSentIds, type LeaveOut } from './runs/already-sent.js';
import { checkKeyUse, runningNowDocument, sameDataError, sameDataJson, sameDataRun } from './runs/once.js';
import { findRun, leftOutBatches, outcomeRecords, readRunDetail } from './history/catalogue.js';
import { settleInDoubt, type InDoubtSettlement } from './history/delivery.js';
import { buildResumeCommand } from './runs/resume-command.js';
import { previewEntries, printDryRun, printPreview, type TrialOutput } from './display/preview.js';
import { runSamples, sampleNumbers, type UnfinishedRun } from './display/sample.js';
import { finishedDocument, interruptedBeforeSending, invalidRowsError, possibleOptOutsError, type UndecidedNumber, leftToSend, nothingToSendError, preflightSummary, printLeftOut, printLeftToSend, printPreflight, printSummary, sentSummary, severalMessagesError, stopReason, unknownMessagesError, successDocument, summaryError, type OptOutStoreSummary, type SentSummary, type Summary } from './display/summary.js';

export type { Campaign, Purpose, Rerun, ResumeArgs } from './campaign.js';
export { RunContext } from './run-context.js';

/** 429 retries per request: they are always safe, so bulk allows more than `send`. */
const BULK_MAX_ATTEMPTS = 8;

/** A run opened: which it is, what it reads, what it sends, where, and what it leaves out. */
export interface OpenRun {
  readonly run: Run;
  readonly input: RunInput;
  readonly plan: RunPlan;
  readonly message: RunMessage;
  /** The sample numbers, checked (a sample). */
  readonly sampleTo: readonly string[] | undefined;
  /** Where it sends; undefined for a dry run or a preview. */
  readonly target: Target | undefined;
  readonly runTarget: JournaledTarget | undefined;
  readonly definition: MessageDefinition;
  readonly leave: LeaveOut;
  readonly reserve: DiskReserve | undefined;
  readonly report: ReportWriter | undefined;
  /** The API clients, loading while the preflight runs. */
  readonly clients: Promise<ClientFactory> | undefined;
  /** What the printed resume command repeats, the file named as the run names it. */
  readonly resumeWith: ResumeArgs;
  /** A new run under a campaign key: an earlier run under another key that read the same data (bulk/runs/once.ts). */
  readonly sameDataAs: EarlierRun | undefined;
}

/**
 * Opens the run the campaign asks for: its journal, lock and input, what it sends, where, and what
 * earlier runs accepted. Undefined when there is nothing to do, said on stderr (and with --json
 * on stdout): a campaign key's run another process is sending, or a run that finished.
 */
export async function openRun(ctx: Context, ui: Ui, campaign: Campaign, rc: RunContext): Promise<OpenRun | undefined> {
  const state = stateDir(ctx.env, ctx.cwd);
  const { settings, sandbox, place } = campaign.where;
  const { earlier: asked, purpose } = campaign;
  // Runs named by --skip-sent, found before this run moves its file's last journal aside; the flag
  // alone names the earlier runs of this file (bulk/runs/earlier.ts), found once the input is known.
  const refs = asked.skipSent?.runs ?? [];
  const named = refs.map((ref) => findRun(state, ctx.cwd, ref, FLAG.skipSent));
  let opened = await openRunState(ctx, ui, campaign, rc.defer);
  const key = asked.once;
  if (opened.kind === 'running-now' && key !== undefined) {
    // It must be this command's run all the same (bulk/runs/once.ts), once the process sending it
    // has written its journal's header. A run being sent cannot be abandoned: the refusal offers
    // what it offers for a finished one.
    if (opened.header !== undefined) await checkKeyUse(ctx, { key, header: opened.header, finished: true, campaign, input: await keyedData(ctx, campaign, opened, rc), freeKey: freeKey(state, place, key) });
    const now = runningNowDocument(key, opened.owner, opened.journalPath);
    ui.info(now.line);
    if (campaign.output.json) ctx.stdout.write(`${JSON.stringify(now.doc, null, 2)}\n`);
    return undefined;
  }
  if (opened.kind === 'running-now') throw new Error('send-bulk: a run being sent by another process without a key');
  const { journalPath } = opened;
  if (key !== undefined && (opened.kind === 'new' || opened.kind === 'restart')) {
    const used = keyUsedBy(state, place, key, 'send-bulk');
    if (used !== undefined) throw new UsageError(`${FLAG.once} ${key} was used by ${used}; a key names one message or campaign; nothing was sent`, { hint: `Give this campaign a key of its own (e.g. ${FLAG.once} ${shellQuote(freeKey(state, place, key))}).` });
  }
  // The key's run must be this command's: its message, its data (bulk/runs/once.ts). A dry run or
  // preview beside the key's unfinished run checks what the command without it would, and ends
  // with its refusal after the preflight.
  const keyedUnfinished = key !== undefined && opened.kind === 'new' ? opened.unfinished : undefined;
  if (key !== undefined && (opened.kind === 'resume' || opened.kind === 'done' || keyedUnfinished !== undefined)) {
    let data = opened.fileAbs;
    // Not for a dry run's new run: it reads stdin itself (its data is checked as the message is).
    if (campaign.input.file === '-' && opened.kind !== 'new') {
      data = `${journalPath}.${ctx.pid}.stdin`;
      const copy = data;
      rc.defer(() => rmSync(copy, { force: true }));
      await spoolStdin(ctx, copy);
    }
    if (opened.kind === 'new' && keyedUnfinished !== undefined) {
      const refused = purpose.kind === 'sample' ? undefined : await checkKeyUse(ctx, { key, header: keyedUnfinished.header, finished: false, campaign, input: data, freeKey: freeKey(state, place, key) }).then(
        () => undefined,
        (err: unknown) => {
          if (err instanceof UsageError) return err;
          throw err;
        },
      );
      if (refused !== undefined) opened = { ...opened, unfinished: { ...keyedUnfinished, refused } };
      else if (!keyedUnfinished.sending) ui.info(`run ${keyedUnfinished.header.runId} under ${FLAG.once} ${key} is unfinished (started ${keyedUnfinished.header.createdAt}): the same command without ${purposeFlag(purpose) ?? FLAG.dryRun} continues it`);
    } else if (opened.kind === 'resume' || opened.kind === 'done') {
      await checkKeyUse(ctx, { key, header: opened.previous.header, finished: isFinished(opened.previous), campaign, input: data, freeKey: freeKey(state, place, key) });
    }
  }
  // Every batch answered: nothing to send, and nothing to say under -q (a cron job's later runs).
  if (opened.kind === 'done') {
    const h = opened.previous.header;
    const done = finishedDocument({ runId: h.runId, file: h.input.stdin ? '-' : h.input.path, journal: journalPath, finishedAt: opened.previous.lastAnswerAt, totals: outcomeTotals(opened.previous), once: h.once?.key });
    ui.info(done.line);
    if (campaign.output.json) ctx.stdout.write(`${JSON.stringify(done.doc, null, 2)}\n`);
    return undefined;
  }
  let run: Run = opened;
  const previous = run.kind === 'resume' ? run.previous : undefined;
  // A resumed run sends the account and sender its journal has.
  const sends = previous?.header.message;
  checkSetUp(settings, {
    sandbox,
    offline: isOffline(purpose),
    account: (sends?.accountReference ?? settings.account.value) !== undefined || sandbox,
    from: (sends?.from ?? settings.from.value ?? campaign.message.fromColumn) !== undefined,
  });
  // A second Ctrl-C before the sender is made (loading an --exclude list, at the question) leaves
  // the batches an earlier run left in doubt as they were: 7, as at a checkpoint.
  rc.inDoubtIs(() => previous?.states.some(isInDoubt) ?? false);
  if (previous !== undefined) checkSameIntent(named, refs, { bare: asked.skipSent?.same === true, again: asked.again }, previous.header);
  rc.at(dirname(journalPath));
  // The resume command names the file by its real path when it was given through a symlink.
  const resumeWith = { ...campaign.resumeWith, file: run.fileArg };
  if (previous !== undefined) rc.resumable(buildResumeCommand(resumeWith, run.fileAbs, previous.header.input.stdin, journalPath));
  const writes = journalOf(purpose) === 'write';
  // Room for the answers of the batches in flight should the disk fill (docs/unattended.md: "Stopping").
  // Taken before the preflight: a disk too full for it stops the run before any work.
  const reserve = writes ? DiskReserve.take(`${journalPath}.reserve`) : undefined;
  if (reserve !== undefined) {
    rc.defer(() => reserve.release());
    ctx.atQuit(() => reserve.release());
  }
  const reportPath = campaign.output.report?.path;
  const textFile = campaign.message.textFile?.path;
  const reads = [
    ['the CSV file being sent', run.fileAbs ?? previous?.header.input.path],
    [`the ${FLAG.exclude} list`, campaign.input.exclude?.path ?? previous?.header.shape.exclude?.path],
    [`the ${FLAG.textFile}`, textFile !== undefined && textFile !== '-' ? resolve(ctx.cwd, textFile) : undefined],
    ["the run's journal", journalPath],
  ] as const;
  const report = reportPath !== undefined ? openRunReport(reportPath, { purpose, reads, pid: ctx.pid, isProcessAlive: ctx.isProcessAlive }, rc.defer) : undefined;
  rc.reportIs(report);
  const input = await openInput(ctx, campaign, run, rc.defer);
  // Piped data an unfinished run read too is that run (known once stdin is read).
  run = await checkStdinAgain(ctx, ui, campaign, run, input, rc.defer);
  rc.reads(input.identity.size);
  const plan = await planRun(ctx, ui, campaign, run);
  // One shared text, or a message per row (docs/personalised.md: "Personalised messages"), as the journal says on a resume.
  const message = runMessage(plan.message, plan.shape.personal, campaign.message.textFile !== undefined ? FLAG.textFile : FLAG.text);
  const sampleTo = sampleNumbers(purpose.kind === 'sample' ? purpose.to : undefined, plan.checker, plan.exclude !== undefined ? { set: plan.exclude.set, label: campaign.input.exclude?.given ?? '' } : undefined, plan.store.mode === 'left-out' ? plan.store.optOuts : undefined);

  // Where to send: resolved before the preflight, so a missing key or base URL fails at once
  // rather than after a pass over millions of rows (a dry run needs neither).
  const offline = isOffline(purpose);
  const target = offline ? undefined : await resolveTarget(ctx, ui, settings, sandbox, campaign.where.webhookUrl);
  const runTarget = target !== undefined ? runTargetOf(target, settings, plan.message, run.kind === 'resume') : undefined;
  // Before the preflight: a resume against another target stops before anything is read or sent.
  if (run.kind === 'resume' && runTarget !== undefined) announceResume(ui, run.runId, run.previous.header, runTarget, plan.message, settings.account.value !== undefined, run.previous.header.shape.personal);
  // A new run of a file its earlier runs sent to must say what it means for the numbers they
  // accepted: leave them out (--skip-sent) or message them again (--again); else they are the
  // guard (docs/reruns.md: "Running a file again").
  const definition = { message: plan.message, personal: plan.shape.personal };
  const earlier = run.kind === 'resume' ? [] : await earlierRuns({ state, sandbox, fileAbs: input.stdin ? undefined : run.fileAbs, input: { path: input.path, ...input.identity }, place, key });
  // The daily line on a file nobody replaced: the same data as an earlier run under another key
  // stops the run unless the command says it is meant (docs/reruns.md: "The same data under
  // another key"). Not with --skip-sent, which leaves out every number those runs accepted, nor
  // for a --restart, which names the run it abandons for this data.
  const sameDataAs = key !== undefined && run.kind === 'new' && asked.skipSent === undefined ? await sameDataRun(earlier, key, { path: input.path, ...input.identity }, definition) : undefined;
  if (asked.again && earlier.length > 0) ui.info(`${FLAG.again}: sending again to the numbers earlier runs of this file accepted (${earlier.length === 1 ? '' : `${earlier.length} runs; the last: `}${describeEarlier(earlier[earlier.length - 1] as EarlierRun)})`);
  const deliveredOnly = asked.deliveredOnly ? { state, now: ctx.now() } : undefined;
  const leave = await leaveOutFor(ui, { includeSent: asked.includeSent, named, bare: asked.skipSent?.same === true, again: asked.again, deliveredOnly, inDoubt: asked.skipInDoubt ? 'skip' : asked.resendInDoubt ? 'resend' : undefined, state }, run, definition, runTarget, reportPath !== undefined, earlier);
  // The HTTP client (undici) loads while the preflight runs, not after it.
  const clients = offline ? undefined : ctx.http();
  clients?.catch(() => undefined);
  return { run, input, plan, message, sampleTo, target, runTarget, definition, leave, reserve, report, clients, resumeWith, sameDataAs };
}

/** What the preflight found, as the stages after it need it. */
export interface Checked {
  readonly pre: PreflightResult;
  /** The spool the send pass reads (a send), with the ids of rows earlier runs accepted. */
  readonly spool: SpoolSource | undefined;
  /** The run's shape: as journaled (a resume), or with the format and columns the preflight settled on. */
  readonly shape: RunShape;
  /** The summary so far: the preflight's figures. */
  readonly base: Summary;
  /** A resume: the rows still to send. */
  readonly left: number | undefined;
  /** A resume: its batches in doubt that the receipts show whole, recorded as accepted before sending. */
  readonly settled: InDoubtSettlement | undefined;
}

/**
 * Every row checked before anything is sent, its lines printed (and a preview's messages, before
 * a refusal), and the run refused when the rows say so: invalid rows, numbers with several
 * messages, numbers earlier runs accepted, nothing to send.
 */
export async function preflight(ctx: Context, ui: Ui, campaign: Campaign, open: OpenRun, rc: RunContext): Promise<Checked> {
  const { run, input, plan, message, leave, report } = open;
  const { purpose } = campaign;
  const previous = run.kind === 'resume' ? run.previous : undefined;
  const reportPath = campaign.output.report?.path;
  const sent = leave.sent;
  const passConfig: Parameters<typeof preflightPass>[0] = {
    path: input.path,
    fileLabel: input.label,
    fileBytes: input.identity.size,
    shape: plan.shape,
    // A new run whose text msgr fills in sends no column as variables unless --var-columns names
    // them (the shape's varColumns are then []); a resume, the columns its journal has.
    varColumnsGiven: previous !== undefined || campaign.input.columns.vars !== undefined || msgrRenders(plan.message, plan.shape.personal),
    country: plan.country,
    checker: plan.checker,
    // The --exclude list's and the opt-out store's numbers as the run started, in one set.
    exclude: plan.leaveOut,
    // Rows an earlier run accepted are left out here, before anything is grouped, counted,
    // journaled or confirmed (bulk/runs/already-sent.ts).
    sent: sent?.accepted,
    sentMessages: sent?.messages,
    resent: sent?.deliveredOnly?.keys,
    spoolPath: journalOf(purpose) === 'write' ? `${run.journalPath}.spool` : undefined,
    env: ctx.env,
    signal: ctx.interrupt,
    checkpoint: () => checkpoint(ctx, run),
    debug: (line) => ui.debug(line),
    defer: rc.defer,
    atQuit: ctx.atQuit,
    message: message.personal,
    keepFirst: purpose.kind === 'preview' || purpose.kind === 'sample' ? purpose.rows : 0,
  };
  // The guard's rows are counted as rows left out are, in a pass of their own that writes nothing:
  // the totals, a preview and a dry run are those of the command as given, and a --restart leaves
  // out what its abandoned run accepted besides. Only a run of a file again without --skip-sent or
  // --again reads its file twice.
  const pass = await preflightPass(passConfig);
  const { pre } = pass;
  const guard = leave.guard !== undefined ? (await preflightPass({ ...passConfig, sent: leave.guard.numbers.accepted, sentMessages: undefined, spoolPath: undefined, keepFirst: 0 })).pre : undefined;
  const guarded = guard?.alreadySent ?? 0;
  const spool = sent !== undefined && pass.spool !== undefined ? withSentIds(pass.spool, sent) : pass.spool;
  // A new run journals the format and columns the preflight settled on; a resumed one must have
  // found what its journal says.
  if (previous !== undefined) checkSamePreflight(previous, pre, input.label);
  const shape = previous === undefined ? settledShape(plan.shape, pass.format, pre) : plan.shape;
  // The report says what each row's request carries beside its number (docs/campaign-output.md: "The report").
  report?.carries(requestFields(shape.varColumns, shape.metaColumns));
  const writes = journalOf(purpose) === 'write';
  // No journal is named before one exists: a new run writes it once confirmed.
  const facts = { runId: writes ? run.runId : null, file: input.stdin ? '-' : input.path, journal: previous !== undefined ? run.journalPath : null, report: reportPath ?? null, dryRun: !writes, batchSize: shape.batchSize };
  // A dry run or preview beside an unfinished run: the same command without them is refused.
  const unfinished = run.kind === 'new' ? run.unfinished : undefined;
  const store = optOutStoreSummary(plan.store);
  const sameDataAs = open.sameDataAs;
  const base: Summary = { ...preflightSummary(facts, pre, message.textAnalysis, pre.totals), optOuts: store, requestFields: requestFields(shape.varColumns, shape.metaColumns), ...(sameDataAs !== undefined ? { sameData: sameDataJson(sameDataAs) } : {}), ...(unfinished !== undefined ? { unfinishedRun: unfinished.header.runId } : {}) };
  const excludeList = plan.exclude !== undefined ? { label: campaign.input.exclude?.given ?? shape.exclude?.path ?? '', numbers: plan.exclude.numbers } : undefined;
  // --skip-invalid never leaves out rows the file's encoding garbled: a new run stops at them
  // until the command says what to do (--fix-mojibake, or the file's --encoding).
  const garbled = previous === undefined && shape.skipInvalid ? garbledRows(pre) : 0;
  const skipInvalid = shape.skipInvalid && garbled === 0;
  const columns = { vars: shape.varColumns, meta: shape.metaColumns, renderer: msgrRenders(plan.message, shape.personal) ? ('msgr' as const) : ('provider' as const), given: passConfig.varColumnsGiven && (previous !== undefined || campaign.input.columns.vars !== undefined) };
  printPreflight(ui, pre, message.textAnalysis, input.label, pass.seconds, { skipInvalid, exclude: excludeList, store, totals: pre.totals, sms: plan.message.channel === 'SMS', repeats: repeatMode(shape), resumed: previous !== undefined, columns });
  printLeftOut(ui, sent, pre, plan.leaveOut);
  // A resume sends what the earlier runs got no final answer for, not the whole file again.
  let left: number | undefined;
  let settled: InDoubtSettlement | undefined;
  if (previous !== undefined) {
    // Receipts settle doubt: a batch in doubt whose every recipient has one was accepted
    // (docs/reruns.md: "In doubt meets consent"); the send stage journals it so.
    if (previous.states.some(isInDoubt)) {
      settled = await settleInDoubt(stateDir(ctx.env, ctx.cwd), await readRunDetail(run.journalPath, FLAG.resume));
      for (const b of settled.batches) if (b.settled) previous.states[b.batch] = BatchState.accepted;
      if (settled.settledRows > 0) ui.info(`the receipts show every recipient of ${formatCount(settled.batches.filter((b) => b.settled).length)} batch${settled.batches.filter((b) => b.settled).length === 1 ? '' : 'es'} left in doubt (${formatCount(settled.settledRows)} rows): recorded as accepted, not sent again`);
      const partly = settled.withReceipt - settled.settledRows;
      if (partly > 0) ui.info(`  the receipts show ${formatCount(partly)} more row${partly === 1 ? '' : 's'} in doubt, in batches they do not show whole: those stay in doubt (msgr runs show ${previous.header.runId})`);
    }
    const earlier = outcomeTotals(previous);
    left = leftToSend(pre.toSend, earlier, campaign.earlier.resendInDoubt);
    // Numbers that went on the list while the run was paused: their rows still to send are left
    // out, and those the run had already messaged are named (docs/reruns.md: "Numbers not to message").
    const added = plan.excludedAfterStart;
    if (added !== undefined && added.size > 0 && pass.spool !== undefined) {
      const since = await addedEffect(run.journalPath, added, pass.spool);
      left = Math.max(0, left - since.leftOut);
      const list = plan.optOuts.find((o) => o.id === 'exclude')?.name ?? FLAG.exclude;
      ui.info(`${formatCount(added.size)} number${added.size === 1 ? '' : 's'} went on ${list} since run ${previous.header.runId} started: ${formatCount(since.leftOut)} row${since.leftOut === 1 ? '' : 's'} of theirs left out of the batches not sent yet`);
      const named = (x: { count: number; first: readonly string[] }): string => `${x.first.join(', ')}${x.count > x.first.length ? ', …' : ''}`;
      if (since.messaged.count > 0) ui.info(`  ${formatCount(since.messaged.count)} of them had been sent the message by this run before they went on the list: ${named(since.messaged)}`);
      if (since.inDoubt.count > 0) ui.info(`  ${formatCount(since.inDoubt.count)} of them ${since.inDoubt.count === 1 ? 'is' : 'are'} in a batch in doubt (it may have had the message): ${named(since.inDoubt)}`);
    }
    // A resend of batches in doubt leaves out whoever went on a list since the run started: they
    // may have had the message, and they do not want another (docs/reruns.md: "In doubt meets consent").
    const since = plan.addedSinceStart;
    if (campaign.earlier.resendInDoubt && since !== undefined && pass.spool !== undefined && earlier.inDoubt > 0) {
      const doubt = (await addedEffect(run.journalPath, since.numbers, pass.spool)).inDoubt;
      if (doubt.count > 0) ui.warn(`${formatCount(doubt.count)} number${doubt.count === 1 ? '' : 's'} in the batches in doubt opted out (or went on the ${FLAG.exclude} list) since run ${previous.header.runId} started, and ${doubt.count === 1 ? 'is' : 'are'} left out of their resend (the first request may have reached ${doubt.count === 1 ? 'it' : 'them'}): ${doubt.first.join(', ')}${doubt.count > doubt.first.length ? ', …' : ''}`);
    }
    printLeftToSend(ui, left, earlier, campaign.earlier.resendInDoubt);
  }
  // Said when the run started: a resume says it for people, not again under -q.
  for (const line of message.singleBraceWarnings(pre.columns.header)) {
    if (previous !== undefined) ui.info(line);
    else ui.warn(line);
  }

  const out = trialOutput(ctx, ui, campaign, base);
  // The preview comes before a refusal, to show what the rows render to: printed first, or with
  // --json in the refusal's document (the one document on stdout).
  if (purpose.kind === 'preview' && !campaign.output.json) printPreview(out, plan.message, pre.firstRows, pre.toSend);
  // A new run refused here never was one (it wrote no journal): its document names no run id,
  // which `msgr runs` would not know; a resume's run is the one resumed.
  const refused: Summary = previous !== undefined ? base : { ...base, runId: null };
  const refusal = purpose.kind === 'preview' && campaign.output.json ? { ...refused, preview: previewEntries(plan.message, pre.firstRows) } : refused;
  // Beside an unfinished run the same command without --dry-run or --preview is refused: so is
  // this one, after showing what it checked (bulk/runs/open.ts).
  const unfinishedRefusal = unfinished?.refused;
  if (unfinishedRefusal !== undefined) {
    throw new UsageError(unfinishedRefusal.message, { hint: unfinishedRefusal.hint, jsonFor: (exitCode) => ({ ...refusal, exitCode, stopped: 'unfinished-run', error: { message: unfinishedRefusal.message, hint: unfinishedRefusal.hint ?? null } }) });
  }
  const key = campaign.earlier.once;
  if (sameDataAs !== undefined && key !== undefined) {
    if (!campaign.earlier.sameData) throw sameDataError(sameDataAs, key, input.label, (exitCode) => ({ ...refusal, exitCode, stopped: 'same-data' }));
    ui.info(`${FLAG.sameData}: the same data as run ${sameDataAs.header.runId}${sameDataAs.header.once !== undefined ? ` under ${FLAG.once} ${sameDataAs.header.once.key}` : ''}, on purpose`);
  }
  // Possible opt-outs no one has decided on stop the run: a new run's preflight found their rows;
  // a resume looks for them in the batches it would send (docs/optouts.md: "Possible opt-outs").
  const undecided = await undecidedRows(run, plan.store, pre, pass.spool, campaign.earlier.resendInDoubt);
  if (undecided !== undefined) throw possibleOptOutsError(refusal, undecided.rows, undecided.numbers, input.label, previous !== undefined);
  // Numbers on rows with different messages stop the run unless the command says which way
  // (bulk/preflight/repeats.ts); their lines are read again from the file for the refusal.
  const several = pre.differentMessages > 0 && repeatMode(shape) === 'stop' ? await findRepeatedLines(input.path, pass.format, pre.columns, plan.checker, message.rowPlan(pre.columns.header, input.label), pre.several, shape.fixMojibake === true) : undefined;
  if (pre.invalid > 0 && !skipInvalid) {
    if (reportPath !== undefined) await reportInvalidRows(input.path, pass.format, { columns: pre.columns, checker: plan.checker, message: message.rowPlan(pre.columns.header, input.label), fixMojibake: shape.fixMojibake }, report ?? new ReportWriter(reportPath, ctx.pid));
    throw invalidRowsError(refusal, pre, input.label, reportPath, several, garbled);
  }
  if (several !== undefined) throw severalMessagesError(refusal, pre, input.label, several);
  // --allow-duplicates: a number an earlier run accepted, with several messages here, and no
  // telling from its journal which one it had (bulk/preflight/range.ts).
  if (pre.alreadySentOthers.count > 0 && sent !== undefined) {
    const unknown = await findRepeatedLines(input.path, pass.format, pre.columns, plan.checker, message.rowPlan(pre.columns.header, input.label), keySet(pre.alreadySentOthers.keys), shape.fixMojibake === true);
    throw unknownMessagesError(refusal, pre, input.label, unknown, sent.named.map((r) => r.runId));
  }
  if (guarded > 0 && leave.guard !== undefined) {
    throw sentBeforeError(guarded, leave.guard.runs, open.definition, { fileLabel: input.label, trial: purposeFlag(purpose), toSend: guard?.toSend ?? 0, byMessage: leave.guard.numbers.messages.messages.size > 0, jsonFor: (exitCode) => ({ ...refusal, exitCode, stopped: 'sent-before', sentBefore: guarded, earlierRuns: leave.guard?.runs.map((r) => r.header.runId) }) });
  }
  const nothing = nothingToSendError(refusal, pre, input.label);
  if (nothing !== undefined) throw nothing;
  return { pre, spool, shape, base, left, settled };
}

/**
 * The rows this run would send whose numbers have a possible opt-out no one has decided on: those
 * the preflight found (a new run), or those of the batches a resume sends (its preflight leaves
 * out the lists as they were, so its batches stay the same). Undefined when there are none.
 */
async function undecidedRows(run: Run, store: PlannedStore, pre: PreflightResult, spool: SpoolSource | undefined, resendInDoubt: boolean): Promise<{ rows: number; numbers: UndecidedNumber[] } | undefined> {
  const optOuts = store.optOuts;
  if (optOuts === undefined || store.undecided === undefined) return undefined;
  const lines = new Map<string, number[]>();
  let rows = 0;
  if (run.kind !== 'resume') {
    rows = pre.undecided.count;
    for (const r of pre.undecided.rows) lines.set(r.number, [...(lines.get(r.number) ?? []), r.line]);
  } else if (spool !== undefined) {
    const effect = await addedEffect(run.journalPath, store.undecided, spool);
    rows = effect.leftOut + (resendInDoubt ? effect.inDoubt.count : 0);
    for (const n of resendInDoubt ? [...effect.pending.first, ...effect.inDoubt.first] : effect.pending.first) lines.set(n, []);
  }
  if (rows === 0) return undefined;
  const numbers = [...lines.entries()].flatMap(([number, at]) => {
    const p = optOuts.undecided(number);
    if (p === undefined) return [];
    return [{ number, lines: at, described: describePossible(p), accept: optOuts.decideCommand(number, 'accept'), dismiss: optOuts.decideCommand(number, 'dismiss'), json: { number, lines: at, since: p.since, source: p.source, evidence: p.evidence ?? null } }];
  });
  return { rows, numbers };
}

/** The opt-out store as the summary and the --json document tell it. */
function optOutStoreSummary(store: PlannedStore): OptOutStoreSummary {
  return { store: store.mode, account: store.account ?? null, numbers: store.numbers, files: [...store.files] };
}

function trialOutput(ctx: Pick<Context, 'stdout'>, ui: Ui, campaign: Campaign, summary: Summary): TrialOutput {
  return { stdout: ctx.stdout, ui, json: campaign.output.json, summary };
}

/** A preview's --json document, or a dry run's lines and document: what the campaign would send. */
export function showTrial(ctx: Context, ui: Ui, campaign: Campaign, open: OpenRun, checked: Checked): void {
  const { pre, base } = checked;
  const out = trialOutput(ctx, ui, campaign, base);
  if (campaign.purpose.kind === 'preview') {
    if (campaign.output.json) printPreview(out, open.plan.message, pre.firstRows, pre.toSend);
    return;
  }
  // Nothing was sent, so there is nothing to report (a refused dry run reported its invalid rows above).
  const reportPath = campaign.output.report?.path;
  if (reportPath !== undefined) ui.info(`dry run: no report written to ${reportPath}: nothing was sent`);
  printDryRun({ ...out, summary: { ...base, report: null } }, open.message.firstFrame(pre.firstKey), pre.firstBatch, pre);
}

function keySet(keys: readonly number[]): NumberSet {
  const set = new NumberSet(16);
  for (const k of keys) set.add(k);
  return set;
}

/** A stop asked for before anything was sent ends the run here. */
function checkpoint(ctx: Pick<Context, 'interrupt'>, run: Run): void {
  if (ctx.interrupt.aborted) throw interruptedBeforeSending(run.kind === 'resume' ? run.previous : undefined);
}

/**
 * The question before sending on a terminal, or the production guard's stop without one (not for
 * the sandbox, nor with nothing to send): for the run's account, as its journal has it on a resume.
 */
export async function confirm(ctx: Context, campaign: Campaign, open: OpenRun, checked: Checked): Promise<void> {
  const { run, plan } = open;
  const { settings, sandbox } = campaign.where;
  const purpose = campaign.purpose;
  const recipients = purpose.kind === 'sample' && open.sampleTo !== undefined ? checked.pre.firstRows.length * open.sampleTo.length : (checked.left ?? checked.pre.toSend);
  if (!sandbox && recipients > 0) {
    const { confirmSend } = await import('../settings/confirm.js');
    const journaled: Resolved<string | undefined> = { value: String(plan.message.accountReference), source: 'flag', origin: `journal of run ${run.runId}` };
    // A stop at the question (Ctrl-C, SIGTERM) is one before anything was sent, as at a checkpoint.
    await confirmSend(ctx, settings, { recipients, yes: campaign.output.yes, account: journaled.value === settings.account.value ? settings.account : journaled }).catch((err: unknown) => {
      throw err instanceof InterruptedError ? interruptedBeforeSending(run.kind === 'resume' ? run.previous : undefined, err) : err;
    });
  }
  checkpoint(ctx, run);
}

/** The campaign's clients, checked: a bad --ca-file stops the run before a journal exists. */
async function clientsFor(ctx: Context, ui: Ui, campaign: Campaign, open: OpenRun, target: Target): Promise<ReturnType<typeof clientMaker>> {
  const createClient = await (open.clients ?? ctx.http());
  return clientMaker(createClient, ctx, { target, settings: campaign.where.settings, timeoutMs: campaign.where.timeoutMs, debug: ui.verbose ? (line) => ui.debug(line) : undefined });
}

function targetOf(open: OpenRun): Target {
  if (open.target === undefined) throw new Error('send-bulk: no target outside a dry run');
  return open.target;
}

/**
 * --sample-to: the first rows' messages to the sample numbers, as a run of their own (its own run
 * id and keys, no journal); beside an unfinished run, the command that goes on with the campaign.
 */
export async function sample(ctx: Context, ui: Ui, campaign: Campaign, open: OpenRun, checked: Checked): Promise<void> {
  const target = targetOf(open);
  const newClient = await clientsFor(ctx, ui, campaign, open, target);
  const { run, plan, input } = open;
  const { settings } = campaign.where;
  const { pre } = checked;
  const to = open.sampleTo;
  if (to === undefined) throw new Error('send-bulk: a sample without numbers');
  const unfinished = run.kind === 'new' ? run.unfinished : undefined;
  // Beside an unfinished run, the sample names the command that goes on with the campaign.
  const unfinishedRun: UnfinishedRun | undefined =
    unfinished === undefined
      ? undefined
      : {
          runId: unfinished.header.runId,
          sending: unfinished.sending,
          resumeRefusal: resumeRefusal(ctx, campaign, unfinished.header, runTargetOf(target, settings, unfinished.header.message, true), settings.account.value !== undefined, pre.hash),
          restartSendsToAll: restartSendsToAll(unfinished.header, { message: plan.message, personal: plan.shape.personal }, open.runTarget),
        };
  const address = target.sandbox ? undefined : { method: 'POST', url: target.endpoint, built: '{base_url}/v2/messages', baseUrl: settings.baseUrl.value, source: describeSource(settings.baseUrl) };
  const s = { runId: `sample-${newRunId(ctx.now())}`, message: plan.message, rows: pre.firstRows, to, fileLabel: input.label, json: campaign.output.json, apiKey: target.apiKey, tty: ctx.stderr.isTTY === true, unfinished: unfinishedRun, address, rerun: campaign.rerun };
  return runSamples(ctx, ui, { ...s, client: newClient({ connections: 1 }) });
}

/** What the send pass did, and the summary of the run. */
export interface Sent {
  readonly result: SendResult;
  readonly seconds: number;
  readonly summary: SentSummary;
  /** The report was put in place. */
  readonly reportWritten: boolean;
}

/**
 * The journal (a new run's header, or the resumed one's), then the send pass: every batch
 * journaled before its request and after its answer, the report in input order.
 */
export async function send(ctx: Context, ui: Ui, campaign: Campaign, open: OpenRun, checked: Checked, rc: RunContext): Promise<Sent> {
  const target = targetOf(open);
  // The journal only once everything the client needs has been checked: a bad --ca-file must not
  // leave a journal that looks like an unfinished run.
  const newClient = await clientsFor(ctx, ui, campaign, open, target);
  const { run, plan, input, message, report, reserve, runTarget } = open;
  const { shape, pre } = checked;
  // The report says why each opted-out row was left out: the opt-out in force as the run started.
  const spool = checked.spool !== undefined && pre.suppressed > 0 && report !== undefined ? withOptOutReasons(checked.spool, plan.store.why) : checked.spool;
  const { settings } = campaign.where;
  const sent = open.leave.sent;
  if (spool === undefined || runTarget === undefined) throw new Error('send-bulk: no spool or target outside a dry run');
  const { journalPath, runId } = run;
  const previous = run.kind === 'resume' ? run.previous : undefined;
  const keyedRun = previous?.header.once ?? (run.kind !== 'resume' ? run.once : undefined);
  // The lists of numbers not to message as the run starts, for its resumes (bulk/send/opt-outs.ts).
  if (previous === undefined) {
    for (const source of plan.optOuts) keepAtStart(journalPath, source);
    // --delivered-only: the numbers counted as sent, as the receipts said when the run started (a resume reads them).
    const delivered = sent?.deliveredOnly !== undefined ? [{ ...DELIVERED_AT_START, set: sent.accepted }] : [];
    for (const source of delivered) keepAtStart(journalPath, source);
    rc.defer(() => {
      if (!existsSync(journalPath)) dropSnapshots(journalPath, [...plan.optOuts, ...delivered], true);
    });
  }
  const journal = openJournal(ctx, run, input, shape, plan.message, pre, { target: runTarget, skipSent: sent !== undefined ? skipSentRecord(sent) : [], alreadySent: pre.alreadySent, again: campaign.earlier.again, once: run.kind !== 'resume' ? run.once : undefined, optOuts: { store: plan.store.mode, ...(plan.store.mode === 'left-out' ? { numbers: plan.store.atStart?.size ?? 0, suppressed: pre.suppressed } : {}) } });
  rc.defer(() => journal.close());
  if (reserve !== undefined) journal.useReserve(reserve);
  // Batches left in doubt that the receipts show whole: accepted, with the ids the receipts carry.
  const settledBatches = checked.settled?.batches.filter((b) => b.settled) ?? [];
  for (const b of settledBatches) journal.done({ batch: b.batch, outcome: 'accepted', ids: b.withReceipt.map((x) => x.messageId ?? null), settledBy: 'receipts' });
  if (settledBatches.length > 0) journal.sync();
  rc.resumable(buildResumeCommand(open.resumeWith, run.fileAbs, input.stdin, journalPath));
  ui.info(`${previous !== undefined ? 'resuming' : 'run'} ${runId}; journal ${journalPath}`);

  // Message ids go to the journal (msgr runs report), not only to --report.
  const client = newClient({ connections: campaign.pace.concurrency, maxAttempts: BULK_MAX_ATTEMPTS, readSuccessBody: true, onRetry: (info) => sender.onRetry(info) });
  ui.debug(`sending to ${maskUrl(target.endpoint)} with key ${maskSecret(target.apiKey)} (${settings.apiKey.origin ?? settings.apiKey.source})`);

  const progress = await createProgress(ctx, { quiet: campaign.output.quiet, verbose: campaign.output.verbose, everyMs: campaign.output.progressEveryMs });
  rc.defer(() => progress.stop());
  const sender = new Sender({
    idempotency: keyedRun?.idempotency ?? runId,
    journal,
    states: previous?.states,
    frame: message.frame,
    frameOf: message.frameOf,
    batchSize: shape.batchSize,
    toSend: pre.toSend,
    duplicateKeys: pre.duplicateKeys,
    resendInDoubt: campaign.earlier.resendInDoubt,
    window: new Window(campaign.pace.concurrency),
    limiter: campaign.pace.rate !== undefined ? new RateLimiter(campaign.pace.rate) : undefined,
    gate: new Gate(),
    report,
    progress,
    client,
    signal: ctx.interrupt,
    debug: (line) => ui.debug(line),
    earlier: previous !== undefined && report !== undefined ? await outcomeRecords(journalPath) : undefined,
    addedSinceStart: plan.addedSinceStart,
    journaledNumbers: previous !== undefined && previous.excluded.some((n) => n > 0) ? await leftOutBatches(journalPath, previous) : undefined,
    optedOut: previous?.optedOut,
  });
  // The journal first: it writes the answers already in, then tells of requests still out.
  rc.inDoubtIs(() => journal.quitNow() || sender.leavesInDoubt());
  const t0 = performance.now();
  rc.sending();
  await sender.sendAll(spool);
  // Answers that found no room even in the reserve: written as soon as there is some.
  await journal.settle((folder, n) => ui.warn(`no room in ${folder} to record the answers of ${n} batch${n === 1 ? '' : 'es'}: waiting for space (free some there; Ctrl-C twice quits, leaving them in doubt)`));
  progress.stop();
  const reportWritten = closeRunReport(ui, report, runId);
  const seconds = (performance.now() - t0) / 1000;
  const result = sender.result();
  const summary = sentSummary({ ...checked.base, journal: journalPath, report: reportWritten ? checked.base.report : null }, result, seconds, buildResumeCommand(open.resumeWith, run.fileAbs, input.stdin, journalPath));
  journal.stop(stopReason(result, summary.toSend) ?? 'finished');
  journal.close();
  if (summary.resume === null && input.stdin) rmSync(input.path, { force: true });
  if (summary.resume === null) dropSnapshots(journalPath, plan.optOuts);
  return { result, seconds, summary, reportWritten };
}

/** The summary on stderr; then the error that gives the exit code, or the --json document of a run that ended well. */
export async function summarise(ctx: Context, ui: Ui, campaign: Campaign, open: OpenRun, checked: Checked, sent: Sent): Promise<void> {
  const { run, input, report } = open;
  const { endpoint, apiKey: key } = targetOf(open);
  const { settings } = campaign.where;
  const { result: r, summary } = sent;
  printSummary(ui, summary, r, sent.seconds);
  // What the receipts already say of the rows left in doubt, for the hint (they settle doubt).
  const receipts = r.inDoubt > 0 ? await settleInDoubt(stateDir(ctx.env, ctx.cwd), await readRunDetail(run.journalPath, FLAG.resume)).catch(() => undefined) : undefined;
  const clean = (s: string): string => redact(ctx.stderr.isTTY === true ? showControls(s) : s, key);
  const err = summaryError(summary, r, {
    reportPath: sent.reportWritten ? report?.path : undefined,
    clean,
    spaceNeeded: spaceToResumeIn(r.fullFolder ?? dirname(run.journalPath), run.journalPath, report?.path, input.identity.size, Math.ceil(r.notSent / checked.shape.batchSize), checked.pre.rows),
    address: { endpoint, baseUrl: settings.baseUrl.value, source: describeSource(settings.baseUrl) },
    restart: campaign.rerun.baseUrlFixed,
    resend: buildResumeCommand(open.resumeWith, run.fileAbs, input.stdin, run.journalPath, { resendInDoubt: true }),
    receipts,
  });
  if (err !== undefined) throw err;
  if (campaign.output.json) ctx.stdout.write(`${JSON.stringify(successDocument(summary), null, 2)}\n`);
}

/** The data a keyed command gives, to compare with its run's: the file, or stdin copied beside the journal. */
async function keyedData(ctx: Context, campaign: Campaign, at: { readonly journalPath: string; readonly fileAbs: string | undefined }, rc: RunContext): Promise<string | undefined> {
  if (campaign.input.file !== '-') return at.fileAbs;
  const copy = `${at.journalPath}.${ctx.pid}.stdin`;
  rc.defer(() => rmSync(copy, { force: true }));
  await spoolStdin(ctx, copy);
  return copy;
}
