// src/bulk/stages/: send-bulk, stage by stage. opening.ts (this file) opens the run; checking.ts
// is the preflight, trial.ts a preview or a dry run, confirming.ts the question, sampling.ts
// --sample-to, sending.ts the send pass, summarising.ts the summary and exit code, in the order the
// door (bulk/campaign-door.ts) lists them. It may import every folder of the engine.
//
// The first stage of a campaign (the door: bulk/campaign-door.ts): which run this is (new, resumed,
// restarted; its lock and journal), the input, what it sends (from the campaign or the journal),
// where, and what earlier runs accepted.
import { rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { ClientFactory, Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { stateDir } from '../../files/state-dir.js';
import { freeKey, keyUsedBy } from '../../once/keys.js';
import { shellQuote } from '../../output/shell.js';
import type { Ui } from '../../output/ui.js';
import { checkSetUp, resolveTarget, type Target } from '../../settings/target.js';
import { isOffline, journalOf, type Campaign, type ResumeArgs } from '../campaign.js';
import { FLAG, purposeFlag } from '../flag-names.js';
import { isInDoubt, type JournaledTarget } from '../journal/records.js';
import type { RunContext } from '../run-context.js';
import { outcomeTotals } from '../journal/load.js';
import { DiskReserve } from '../journal/reserve.js';
import { runMessage, type RunMessage } from '../compose/run-message.js';
import { openRunReport, ReportWriter } from '../report/report-file.js';
import { clientMaker } from '../send-pass/campaign-clients.js';
import { checkStdinAgain, openRunState, type Run, type RunInput } from '../this-run/open.js';
import { openInput, spoolStdin } from '../this-run/input-file.js';
import { definitionOf, planRun, type RunPlan } from '../this-run/run-plan.js';
import { announceResume, runTargetOf } from '../this-run/where.js';
import { describeEarlier, earlierRuns, type EarlierRun } from '../earlier/of-file.js';
import { checkSameIntent, leaveOutFor, type LeaveOut } from '../earlier/already-sent.js';
import { checkKeyUse, keyUseRefusal, runningNowDocument, sameDataRun } from '../earlier/campaign-key.js';
import { findRun } from '../history/catalogue.js';
import { buildResumeCommand } from '../this-run/resume-command.js';
import { sampleNumbers } from '../send-pass/samples.js';
import { finishedDocument } from '../display/summary.js';
import { runSchedule, scheduleRecord, type Schedule } from '../../schedule/index.js';


/** What the command hands every stage: the process, what it prints, the campaign, the run's side channels. */
export interface Command {
  readonly ctx: Context;
  readonly ui: Ui;
  readonly campaign: Campaign;
  readonly rc: RunContext;
}

/** Where a run sends, as resolved and as its journal records it, and the API clients loading while the preflight runs. */
export interface SendsTo {
  readonly target: Target;
  readonly journaled: JournaledTarget;
  readonly clients: Promise<ClientFactory>;
}

/**
 * A run opened: which it is (`run.kind`, decided once here, and what that kind of run carries),
 * what it reads, what it sends, where, and what it leaves out.
 */
export interface OpenRun {
  readonly run: Run;
  readonly input: RunInput;
  readonly plan: RunPlan;
  readonly message: RunMessage;
  /** Undefined for a dry run or a preview, which send nothing. */
  readonly sendsTo: SendsTo | undefined;
  readonly leave: LeaveOut;
  /** A new run under a campaign key: an earlier run under another key that read the same data (bulk/earlier/campaign-key.ts). */
  readonly sameDataAs: EarlierRun | undefined;
  /** The sample numbers, checked (a sample). */
  readonly sampleTo: readonly string[] | undefined;
  readonly reserve: DiskReserve | undefined;
  readonly report: ReportWriter | undefined;
  /** When rows may leave (docs/send-windows.md): the run's windows and deadlines; and since when its rows' windows are judged. */
  readonly schedule: Schedule;
  readonly scheduleSince: number;
}

/**
 * Opens the run the campaign asks for: its journal, lock and input, what it sends, where, and what
 * earlier runs accepted. Undefined when there is nothing to do, said on stderr (and with --json
 * on stdout): a campaign key's run another process is sending, or a run that finished.
 */
export async function openRun(cmd: Command): Promise<OpenRun | undefined> {
  const { ctx, ui, campaign, rc } = cmd;
  const state = stateDir(ctx.env, ctx.cwd);
  const { settings, sandbox, place } = campaign.where;
  const { earlier: asked, purpose } = campaign;
  // Runs named by --skip-sent, found before this run moves its file's last journal aside; the flag
  // alone names the earlier runs of this file (bulk/earlier/of-file.ts), found once the input is known.
  const refs = asked.skipSent?.runs ?? [];
  const named = refs.map((ref) => findRun(state, ctx.cwd, ref, FLAG.skipSent));
  let opened = await openRunState(ctx, ui, campaign, rc.defer);
  const key = asked.once;
  if (opened.kind === 'running-now' && key !== undefined) {
    // It must be this command's run all the same (bulk/earlier/campaign-key.ts), once the process sending it
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
  // The key's run must be this command's: its message, its data (bulk/earlier/campaign-key.ts). A dry run or
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
      // Said after the preflight, as for an unfinished run without a key. A message or data that
      // cannot be read is refused here and now, as the command without it refuses it.
      const refusal = purpose.kind === 'sample' ? undefined : await keyUseRefusal(ctx, { key, header: keyedUnfinished.header, finished: false, campaign, input: data, freeKey: freeKey(state, place, key) });
      if (refusal !== undefined) opened = { ...opened, unfinished: { ...keyedUnfinished, refusal } };
      else if (!keyedUnfinished.sending) ui.info(`run ${keyedUnfinished.header.runId} under ${FLAG.once} ${key} is unfinished (started ${keyedUnfinished.header.createdAt}): the same command without ${purposeFlag(purpose) ?? FLAG.dryRun} continues it`);
    } else if (opened.kind === 'resume' || opened.kind === 'done') {
      await checkKeyUse(ctx, { key, header: opened.kind === 'done' ? opened.finished.header : opened.resumed.header, finished: opened.kind === 'done', campaign, input: data, freeKey: freeKey(state, place, key) });
    }
  }
  // Every batch answered: nothing to send, and nothing to say under -q (a cron job's later runs).
  if (opened.kind === 'done') {
    const h = opened.finished.header;
    const done = finishedDocument({ runId: h.runId, file: h.input.stdin ? '-' : h.input.path, journal: journalPath, finishedAt: opened.finished.lastAnswerAt, totals: outcomeTotals(opened.finished), once: h.once?.key });
    ui.info(done.line);
    if (campaign.output.json) ctx.stdout.write(`${JSON.stringify(done.doc, null, 2)}\n`);
    return undefined;
  }
  // Its journal, when the command resumes a run.
  const resumed = opened.kind === 'resume' ? opened.resumed : undefined;
  // A resumed run sends the account and sender its journal has.
  const sends = resumed?.header.message;
  checkSetUp(settings, {
    sandbox,
    offline: isOffline(purpose),
    account: (sends?.accountReference ?? settings.account.value) !== undefined || sandbox,
    from: (sends?.from ?? settings.from.value ?? campaign.message.fromColumn) !== undefined,
  });
  // A second Ctrl-C before the sender is made (loading an --exclude list, at the question) leaves
  // the batches an earlier run left in doubt as they were: 7, as at a checkpoint.
  rc.inDoubtIs(() => resumed?.states.some(isInDoubt) ?? false);
  if (resumed !== undefined) checkSameIntent(named, refs, { bare: asked.skipSent?.same === true, again: asked.again }, resumed.header);
  rc.at(dirname(journalPath));
  // The resume command names the file by its real path when it was given through a symlink.
  const resumeWith = resumeWithOf(campaign, opened);
  if (resumed !== undefined) rc.resumable(buildResumeCommand(resumeWith, opened.fileAbs, resumed.header.input.stdin, journalPath));
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
    ['the CSV file being sent', opened.fileAbs ?? resumed?.header.input.path],
    [`the ${FLAG.exclude} list`, campaign.input.exclude?.path ?? resumed?.header.shape.exclude?.path],
    [`the ${FLAG.textFile}`, textFile !== undefined && textFile !== '-' ? resolve(ctx.cwd, textFile) : undefined],
    ["the run's journal", journalPath],
  ] as const;
  const report = reportPath !== undefined ? openRunReport(reportPath, { purpose, reads, pid: ctx.pid, isProcessAlive: ctx.isProcessAlive }, rc.defer) : undefined;
  rc.reportIs(report);
  const input = await openInput(ctx, campaign, opened, rc.defer);
  // The kind of run, decided here once: what was on disk, unless piped data an unfinished run read
  // too is that run (known once stdin is read), which a --restart abandons.
  const run = await checkStdinAgain(ctx, ui, campaign, opened, input, rc.defer);
  rc.reads(input.identity.size);
  const plan = await planRun(ctx, ui, campaign, run);
  const schedule = openSchedule(cmd, run, plan, resumeWith);
  // One shared text, or a message per row (docs/personalised.md: "Personalised messages"), as the journal says on a resume.
  const message = runMessage(plan.message, plan.shape.personal, campaign.message.textFile !== undefined ? FLAG.textFile : FLAG.text);
  const sampleTo = sampleNumbers(purpose.kind === 'sample' ? purpose.to : undefined, plan.checker, plan.exclude !== undefined ? { set: plan.exclude.set, label: campaign.input.exclude?.given ?? '' } : undefined, plan.store.mode === 'left-out' ? plan.store.optOuts : undefined);

  // Where to send: resolved before the preflight, so a missing key or base URL fails at once
  // rather than after a pass over millions of rows (a dry run needs neither).
  const offline = isOffline(purpose);
  const target = offline ? undefined : await resolveTarget(ctx, ui, settings, sandbox, campaign.where.webhookUrl);
  const runTarget = target !== undefined ? runTargetOf(target, settings, plan.message, run.kind === 'resume') : undefined;
  // Before the preflight: a resume against another target stops before anything is read or sent.
  if (run.kind === 'resume' && runTarget !== undefined) announceResume(ui, run.runId, run.resumed.header, runTarget, plan.message, settings.account.value !== undefined, run.resumed.header.shape.personal);
  // A new run of a file its earlier runs sent to must say what it means for the numbers they
  // accepted: leave them out (--skip-sent) or message them again (--again); else they are the
  // guard (docs/reruns.md: "Running a file again").
  const definition = definitionOf(plan);
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
  const clients = offline ? undefined : ctx.http().then((http) => http.client);
  clients?.catch(() => undefined);
  const sendsTo = target !== undefined && runTarget !== undefined && clients !== undefined ? { target, journaled: runTarget, clients } : undefined;
  const scheduleSince = run.kind === 'resume' ? Date.parse(run.resumed.header.createdAt) : ctx.now().getTime();
  return { run, input, plan, message, sendsTo, leave, sameDataAs, sampleTo, reserve, report, schedule, scheduleSince };
}

/**
 * The run's send windows and deadlines (docs/send-windows.md): a resume keeps its journal's
 * windows, and is refused once its deadline has passed unless the command gives a new one.
 */
function openSchedule(cmd: Command, run: Run, plan: RunPlan, resumeWith: ResumeArgs): Schedule {
  const { ctx, ui, campaign } = cmd;
  const given = campaign.when.given;
  const resumed = run.kind === 'resume' ? run.resumed : undefined;
  const journaled = plan.shape.schedule;
  if (resumed !== undefined && given.windowsFrom === 'flag' && JSON.stringify(given.schedule.windows.map((w) => w.text)) !== JSON.stringify(journaled?.windows ?? [])) {
    throw new UsageError(`${FLAG.resume}: run ${resumed.header.runId} keeps the send window it started with (${journaled !== undefined && journaled.windows.length > 0 ? journaled.windows.join(' ') : 'none'}); ${FLAG.window} cannot change it`, {
      // Not --any-time: it would send the rest at once, at whatever hour it is where they live.
      hint: `Leave out ${FLAG.window} to resume it as it was. To send the rest in other windows, start over with ${FLAG.restart} and the new ${FLAG.window}: for the same message it leaves out the rows this run accepted.`,
    });
  }
  const schedule = runSchedule(given, journaled, resumed !== undefined);
  if (given.overrode !== undefined) ui.info(`${FLAG.anyTime}: profile ${given.overrode}'s send window is set aside for this run`);
  else if (given.anyTime && resumed !== undefined && (journaled?.windows.length ?? 0) > 0) ui.info(`${FLAG.anyTime}: run ${resumed.header.runId}'s send window (${journaled?.windows.join(' ') ?? ''}) is set aside for this command`);
  else if (resumed !== undefined && given.windowsFrom === 'profile' && (journaled?.windows.length ?? 0) === 0) {
    // A run keeps the window it started with: one started with --any-time (or before the profile
    // had quiet hours) has none, and the profile's window does not come back on its resume.
    ui.info(`when: run ${resumed.header.runId} was started with no send window (${FLAG.anyTime}, or before the profile had one): it has none, and the profile's window (${given.profileWindows.join(' ')}) does not apply to it; to send the rest in that window, start over with ${FLAG.restart}`);
  }
  const now = ctx.now().getTime();
  if (resumed !== undefined && schedule.stopAt !== undefined && schedule.stopAt <= now) {
    const resume = `${buildResumeCommand(resumeWith, run.fileAbs, resumed.header.input.stdin, run.journalPath)} ${FLAG.stopAt} 4h`;
    throw new UsageError(`${FLAG.resume}: run ${resumed.header.runId}'s deadline (${FLAG.stopAt} ${new Date(schedule.stopAt).toISOString()}) has passed; its rows not sent stay not sent (deadline); nothing was sent`, {
      hint: `To send them after all, give it a new deadline: ${resume}`,
      jsonFor: (exitCode) => ({ runId: resumed.header.runId, exitCode, stopped: 'deadline', schedule: scheduleRecord(schedule), error: { message: 'deadline passed', hint: resume } }),
    });
  }
  return schedule;
}

/** The campaign's clients, checked: a bad --ca-file stops the run before a journal exists. */
export async function clientsFor(cmd: Command, to: SendsTo): Promise<ReturnType<typeof clientMaker>> {
  const { ctx, ui, campaign } = cmd;
  const createClient = await to.clients;
  return clientMaker(createClient, ctx, { target: to.target, settings: campaign.where.settings, timeoutMs: campaign.where.timeoutMs, debug: ui.verbose ? (line) => ui.debug(line) : undefined });
}

/** Where the run sends: a sample or a send has a target (a dry run and a preview stop before). */
export function sendsToOf(open: OpenRun): SendsTo {
  if (open.sendsTo === undefined) throw new Error('send-bulk: no target outside a dry run');
  return open.sendsTo;
}

/** What the printed resume command repeats: the file named as the run names it. */
export function resumeWithOf(campaign: Campaign, run: Pick<Run, 'fileArg'>): ResumeArgs {
  return { ...campaign.resumeWith, file: run.fileArg };
}

/** The data a keyed command gives, to compare with its run's: the file, or stdin copied beside the journal. */
async function keyedData(ctx: Context, campaign: Campaign, at: { readonly journalPath: string; readonly fileAbs: string | undefined }, rc: RunContext): Promise<string | undefined> {
  if (campaign.input.file !== '-') return at.fileAbs;
  const copy = `${at.journalPath}.${ctx.pid}.stdin`;
  rc.defer(() => rmSync(copy, { force: true }));
  await spoolStdin(ctx, copy);
  return copy;
}
