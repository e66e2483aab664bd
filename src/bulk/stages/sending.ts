// The send stage (the door: bulk/campaign-door.ts): the journal, then the send pass.
import { existsSync, rmSync } from 'node:fs';
import { stateDir } from '../../files/state-dir.js';
import { maskSecret, maskUrl } from '../../output/sanitize.js';
import { closeRunReport } from '../report/report-file.js';
import { Gate, RateLimiter, Window } from '../send-pass/limiter.js';
import { createProgress } from '../send-pass/progress.js';
import { dropSnapshots, keepAtStart, STORE_SOURCE, withOptOutReasons } from '../send-pass/opt-outs.js';
import { Sender } from '../send-pass/sender.js';
import type { SendResult } from '../send-pass/accounting.js';
import { openJournal } from '../this-run/open.js';
import { DELIVERED_AT_START, skipSentRecord } from '../earlier/already-sent.js';
import { leftOutBatches, outcomeRecords } from '../history/catalogue.js';
import { noteFinished, noteRunData } from '../history/run-index.js';
import { buildResumeCommand } from '../this-run/resume-command.js';
import { sentSummary, stopReason, type SentSummary } from '../display/summary.js';
import { clientsFor, resumeWithOf, sendsToOf, type Command, type OpenRun } from './opening.js';
import { scheduleFromRecord, scheduleGate, windowWait, zonedRows, type Schedule } from '../../schedule/index.js';
import type { RunShape } from '../journal/records.js';
import type { Checked } from './checking.js';

/** 429 retries per request: they are always safe, so bulk allows more than `send`. */
const BULK_MAX_ATTEMPTS = 8;

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
export async function send(cmd: Command, open: OpenRun, checked: Checked): Promise<Sent> {
  const { ctx, ui, campaign, rc } = cmd;
  const to = sendsToOf(open);
  const { target } = to;
  // The journal only once everything the client needs has been checked: a bad --ca-file must not
  // leave a journal that looks like an unfinished run.
  const newClient = await clientsFor(cmd, to);
  const { run, plan, input, message, report, reserve } = open;
  const runTarget = to.journaled;
  const { shape, pre } = checked;
  // The report says why each opted-out row was left out: the opt-out in force as the run started.
  const spool = checked.spool !== undefined && pre.suppressed > 0 && report !== undefined ? withOptOutReasons(checked.spool, plan.store.why) : checked.spool;
  const { settings } = campaign.where;
  const sent = open.leave.sent;
  if (spool === undefined) throw new Error('send-bulk: no spool outside a dry run');
  const { journalPath, runId } = run;
  const resuming = run.kind === 'resume';
  const keyedRun = run.kind === 'resume' ? run.resumed.header.once : run.once;
  // The lists of numbers not to message as the run starts, for its resumes
  // (bulk/send-pass/opt-outs.ts).
  let storeCopyDigest: string | undefined;
  if (!resuming) {
    // Written once the preflight has read the file: the store's are the numbers of its rows the store had.
    // The verdicts as the preflight wrote them (not with each opt-out's reason, which reads the store's history).
    const verdicts = checked.spool ?? spool;
    for (const source of plan.optOuts) {
      const digest = keepAtStart(journalPath, source, await source.atStart(verdicts));
      // The header keeps the store's copy's digest: a resume refuses a copy changed since (bulk/send-pass/opt-outs.ts storeCopy).
      if (source.id === STORE_SOURCE.id) storeCopyDigest = digest;
    }
    // --delivered-only: the numbers counted as sent, as the receipts said when the run started (a resume reads them).
    const delivered = sent?.deliveredOnly !== undefined ? [DELIVERED_AT_START] : [];
    if (sent?.deliveredOnly !== undefined) keepAtStart(journalPath, DELIVERED_AT_START, sent.accepted);
    rc.defer(() => {
      if (!existsSync(journalPath)) dropSnapshots(journalPath, [...plan.optOuts, ...delivered], true);
    });
  }
  // Noted in the runs' index before its header is written: a later run of the same data under
  // another name finds it there (bulk/history/run-index.ts).
  if (!resuming) noteRunData(stateDir(ctx.env, ctx.cwd), runTarget.sandbox, { ...input.identity, dataHash: pre.dataHash }, journalPath);
  const journal = openJournal(ctx, run, input, shape, plan.message, pre, { target: runTarget, skipSent: sent !== undefined ? skipSentRecord(sent) : [], alreadySent: pre.alreadySent, again: campaign.earlier.again, once: run.kind !== 'resume' ? run.once : undefined, optOuts: { store: plan.store.mode, ...(plan.store.mode === 'left-out' ? { numbers: plan.store.numbers, suppressed: pre.suppressed, ...(storeCopyDigest !== undefined ? { copy: storeCopyDigest } : {}) } : {}) } });
  rc.defer(() => journal.close());
  if (reserve !== undefined) journal.useReserve(reserve);
  // Batches left in doubt that the receipts show whole: accepted, with the ids the receipts carry.
  const settledBatches = checked.settled?.batches.filter((b) => b.settled) ?? [];
  for (const b of settledBatches) journal.done({ batch: b.batch, outcome: 'accepted', ids: b.withReceipt.map((x) => x.messageId ?? null), settledBy: 'receipts' });
  if (settledBatches.length > 0) journal.sync();
  const resumeWith = resumeWithOf(campaign, run);
  rc.resumable(buildResumeCommand(resumeWith, run.fileAbs, input.stdin, journalPath));
  // A restart abandons the run it replaces once its own journal is written: until then, a refusal
  // or a stop puts that run's journal back where it was (bulk/this-run/open.ts).
  if (run.kind === 'restart' && run.moved !== undefined) ui.info(`abandoned run ${run.abandoned.header.runId}; its journal is kept as ${run.moved.to}`);
  ui.info(`${resuming ? 'resuming' : 'run'} ${runId}; journal ${journalPath}`);

  // Message ids go to the journal (msgr runs report), not only to --report.
  const client = newClient({ connections: campaign.pace.concurrency, maxAttempts: BULK_MAX_ATTEMPTS, readSuccessBody: true, onRetry: (info) => sender.onRetry(info) });
  ui.debug(`sending to ${maskUrl(target.endpoint)} with key ${maskSecret(target.apiKey)} (${settings.apiKey.origin ?? settings.apiKey.source})`);

  const progress = await createProgress(ctx, { quiet: campaign.output.quiet, verbose: campaign.output.verbose, everyMs: campaign.output.progressEveryMs });
  rc.defer(() => progress.stop());
  // A resume goes on from its journal: each batch's state, the outcomes --report lists again, the
  // batches that left numbers out, and who opted out while it was paused.
  const goesOn =
    run.kind === 'resume'
      ? {
          states: checked.states,
          earlier: report !== undefined ? await outcomeRecords(journalPath) : undefined,
          journaledNumbers: run.resumed.excluded.some((n) => n > 0) ? await leftOutBatches(journalPath, run.resumed) : undefined,
          optedOut: run.resumed.optedOut,
        }
      : { states: undefined, earlier: undefined, journaledNumbers: undefined, optedOut: undefined };
  const sender = new Sender({
    idempotency: keyedRun?.idempotency ?? runId,
    journal,
    states: goesOn.states,
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
    earlier: goesOn.earlier,
    addedSinceStart: checked.addedSinceStart,
    journaledNumbers: goesOn.journaledNumbers,
    optedOut: goesOn.optedOut,
    limit: campaign.spend.limit,
    // Send windows and deadlines (docs/send-windows.md): rows grouped by their zones wait for them.
    zoned: zonedRows(scheduleOfShape(shape)),
    schedule: scheduleGate(open.schedule, {
      now: () => ctx.now().getTime(),
      signal: ctx.interrupt,
      exitWhenClosed: campaign.when.exitWhenClosed,
      onWait: (zones, opensAt) => progress.log(windowWait(zones, opensAt)),
    }),
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
  const summary = sentSummary({ ...checked.base, journal: journalPath, report: reportWritten ? checked.base.report : null }, result, seconds, buildResumeCommand(resumeWith, run.fileAbs, input.stdin, journalPath));
  const stop = stopReason(result, summary.toSend) ?? 'finished';
  journal.stop(stop, stop === 'limit' ? { limit: campaign.spend.limit } : undefined);
  journal.close();
  // Noted as finished in the runs' index, so that no later command of the file reads it whole.
  const finished = journal.finished();
  if (finished !== undefined) noteFinished(stateDir(ctx.env, ctx.cwd), runTarget.sandbox, journalPath, finished.finishedAt);
  if (summary.resume === null && input.stdin) rmSync(input.path, { force: true });
  if (summary.resume === null) dropSnapshots(journalPath, plan.optOuts);
  return { result, seconds, summary, reportWritten };
}

/** The windows a run's batches were made by (its journal's). */
function scheduleOfShape(shape: RunShape): Schedule | undefined {
  return shape.schedule !== undefined ? scheduleFromRecord(shape.schedule) : undefined;
}
