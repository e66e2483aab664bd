// The preflight stage (the door: bulk/campaign-door.ts): every row checked before anything is sent,
// its lines printed, and the run refused when the rows say so.
import { existsSync } from 'node:fs';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { stateDir } from '../../files/state-dir.js';
import type { Ui } from '../../output/ui.js';
import { journalOf } from '../campaign.js';
import { FLAG, purposeFlag } from '../flag-names.js';
import { BatchState, isInDoubt, type RunShape } from '../journal/records.js';
import { outcomeTotals } from '../journal/load.js';
import { gsmSafeChangeOf, messageText, msgrRenders } from '../compose/base-request.js';
import { preflightPass, reportInvalidRows } from '../preflight/pass.js';
import { garbledRows, type PreflightResult, type RowZoneCheck } from '../preflight/range.js';
import { describeSchedule, isScheduled, rowZoneChecker, scheduleFromRecord, scheduleJson, zonedRows, type ScheduleRecord } from '../../schedule/index.js';
import type { SpoolSource } from '../preflight/spool.js';
import { findRepeatedLines, repeatMode } from '../preflight/repeats.js';
import { NumberSet } from '../input/number-set.js';
import { ReportWriter, requestFields } from '../report/report-file.js';
import { addedEffect, type AddedEffect, type AddedSinceStart } from '../send-pass/opt-outs.js';
import { describePossible, listingCostsLess } from '../../optouts/store.js';
import { formatCount } from '../../output/count.js';
import type { Run } from '../this-run/open.js';
import { addedSinceTheStart, definitionOf, settledShape, type PlannedStore } from '../this-run/run-plan.js';
import { checkSamePreflight } from '../this-run/resume-checks.js';
import { earlierRunsWithSameData, sentBeforeError } from '../earlier/of-file.js';
import { withSentIds } from '../earlier/already-sent.js';
import { sameDataAmong, sameDataError, sameDataJson } from '../earlier/campaign-key.js';
import { readRunDetail } from '../history/catalogue.js';
import { settleInDoubt, type InDoubtSettlement } from '../history/run-delivery.js';
import { previewEntries, printPreview } from '../display/preview.js';
import { interruptedBeforeSending, invalidRowsError, possibleOptOutsError, type UndecidedNumber, leftToSend, nothingToSendError, preflightSummary, printLeftOut, printLeftToSend, printPreflight, severalMessagesError, unknownMessagesError, type OptOutStoreSummary, type Summary } from '../display/summary.js';
import { estimateJson, filteredJson, gsmSafeSummary, printFiltered, printGsmSafe, printLookalikeCost, limitError, maxCostError, printEstimate, printLimit } from '../display/spend.js';
import { CostTally } from '../../pricing/estimate.js';
import { readPriceFile, type PriceTable } from '../../pricing/price-file.js';
import { parseMaxCost } from '../../pricing/max-cost.js';
import type { Command, OpenRun } from './opening.js';

/**
 * The price file, read and checked. A resume's journaled file that is gone only drops the
 * estimate when no cap depends on it (said so); with a cap, or a file the command names, it stops
 * the run.
 */
function journaledPrices(ui: Ui, file: { readonly given: string; readonly path: string }, optional: boolean): PriceTable | undefined {
  if (optional && !existsSync(file.path)) {
    ui.warn(`the price file the run started with, ${file.path}, is gone: no cost estimate (give ${FLAG.priceFile} FILE for one)`);
    return undefined;
  }
  return readPriceFile(file.path, file.given);
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
  /** A resume: each batch's state as the send starts, the journal's with the batches `settled` accepted. */
  readonly states: Uint8Array | undefined;
  /** A resume: the numbers that went on a list since its run started, left out of the batches not sent yet. */
  readonly addedSinceStart: AddedSinceStart | undefined;
}

/**
 * Every row checked before anything is sent, its lines printed (and a preview's messages, before
 * a refusal), and the run refused when the rows say so: invalid rows, numbers with several
 * messages, numbers earlier runs accepted, nothing to send.
 */
export async function preflight(cmd: Command, open: OpenRun): Promise<Checked> {
  const { ctx, ui, campaign, rc } = cmd;
  const { run, input, plan, message, leave, report } = open;
  const { purpose } = campaign;
  const resuming = run.kind === 'resume';
  const reportPath = campaign.output.report?.path;
  const sent = leave.sent;
  // A resume prices and caps as its run started (the journal's shape), unless it names its own file.
  const journaled = plan.shape.prices;
  const priceFile = campaign.spend.priceFile ?? (journaled !== undefined ? { given: journaled.file, path: journaled.file } : undefined);
  const maxCostGiven = campaign.spend.maxCost ?? (campaign.spend.priceFile === undefined ? parseMaxCost(journaled?.maxCost) : undefined);
  const prices = priceFile !== undefined ? journaledPrices(ui, priceFile, campaign.spend.priceFile === undefined && maxCostGiven === undefined) : undefined;
  const passConfig: Parameters<typeof preflightPass>[0] = {
    path: input.path,
    fileLabel: input.label,
    fileBytes: input.identity.size,
    shape: plan.shape,
    // A new run whose text msgr fills in sends no column as variables unless --var-columns names
    // them (the shape's varColumns are then []); a resume, the columns its journal has.
    varColumnsGiven: resuming || campaign.input.columns.vars !== undefined || msgrRenders(plan.message, plan.shape.personal),
    country: plan.country,
    checker: plan.checker,
    // The --exclude list's and the opt-out store's numbers as the run started, asked row by row
    // (or listed for worker threads: bulk/preflight/pass.ts mayUseWorkers).
    exclude: plan.leaveOut,
    // Rows an earlier run accepted are left out here, before anything is grouped, counted,
    // journaled or confirmed (bulk/earlier/already-sent.ts).
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
    // --price-file: the rows to send priced as the preflight reads them (pricing/).
    cost: prices !== undefined ? new CostTally(prices) : undefined,
    sharedParts: message.textAnalysis?.parts,
    // Rows batched by their zones, as the run's journal says (its windows decide its batches).
    rowZones: rowZonesOf(plan.shape.schedule, open.scheduleSince),
  };
  // The guard's rows are counted as rows left out are, in a pass of their own that writes nothing:
  // the totals, a preview and a dry run are those of the command as given, and a --restart leaves
  // out what its abandoned run accepted besides. Only a run of a file again without --skip-sent or
  // --again reads its file twice.
  const pass = await preflightPass(passConfig);
  const { pre } = pass;
  const guard = leave.guard !== undefined ? (await preflightPass({ ...passConfig, cost: undefined, sent: leave.guard.numbers.accepted, sentMessages: undefined, spoolPath: undefined, keepFirst: 0 })).pre : undefined;
  const guarded = guard?.alreadySent ?? 0;
  const spool = sent !== undefined && pass.spool !== undefined ? withSentIds(pass.spool, sent) : pass.spool;
  // A new run journals the format and columns the preflight settled on; a resumed one must have
  // found what its journal says.
  if (run.kind === 'resume') checkSamePreflight(run.resumed, pre, input.label);
  const shape = resuming ? plan.shape : settledShape(plan.shape, pass.format, pre);
  // The report says what each row's request carries beside its number (docs/campaign-output.md: "The report").
  report?.carries(requestFields(shape.varColumns, shape.metaColumns));
  const writes = journalOf(purpose) === 'write';
  // No journal is named before one exists: a new run writes it once confirmed.
  const facts = { runId: writes ? run.runId : null, file: input.stdin ? '-' : input.path, journal: resuming ? run.journalPath : null, report: reportPath ?? null, dryRun: !writes, batchSize: shape.batchSize };
  // A dry run or preview beside an unfinished run: the same command without them is refused.
  const unfinished = run.kind === 'new' ? run.unfinished : undefined;
  const estimate = passConfig.cost?.estimate();
  const safeChange = gsmSafeChangeOf(plan.message);
  const store = optOutStoreSummary(plan.store);
  // The same data as an earlier run under another key: by its bytes (found as the run opened), or
  // by the data they hold however saved, known now that the preflight read it (docs/reruns.md:
  // "The same data under another key").
  const key = campaign.earlier.once;
  const sameDataAs = open.sameDataAs ?? (key !== undefined && run.kind === 'new' && campaign.earlier.skipSent === undefined && pre.dataHash !== '' ? sameDataAmong(await earlierRunsWithSameData({ state: stateDir(ctx.env, ctx.cwd), sandbox: campaign.where.sandbox, place: campaign.where.place, key }, pre.dataHash, run.journalPath), key, definitionOf(plan)) : undefined);
  const base: Summary = { ...preflightSummary(facts, pre, message.textAnalysis, pre.totals), schedule: scheduleJson(open.schedule, campaign.when.given, open.run.kind === 'resume' ? open.run.resumed.header.runId : undefined, open.plan.shape.schedule?.windows ?? []), optOuts: store, requestFields: requestFields(shape.varColumns, shape.metaColumns), ...(sameDataAs !== undefined ? { sameData: sameDataJson(sameDataAs) } : {}), ...(unfinished !== undefined ? { unfinishedRun: unfinished.header.runId } : {}), spend: { limit: campaign.spend.limit ?? null, estimate: estimate !== undefined ? estimateJson(estimate) : null, maxCost: maxCostGiven?.text ?? null, mobileOnly: filteredJson(pre.filtered), gsmSafe: safeChange !== undefined ? gsmSafeSummary(safeChange, message.textAnalysis !== undefined ? pre.toSend : undefined) : null } };
  const excludeList = plan.exclude !== undefined ? { label: campaign.input.exclude?.given ?? shape.exclude?.path ?? '', numbers: plan.exclude.numbers } : undefined;
  // --skip-invalid never leaves out rows the file's encoding garbled: a new run stops at them
  // until the command says what to do (--fix-mojibake, or the file's --encoding).
  const garbled = !resuming && shape.skipInvalid ? garbledRows(pre) : 0;
  const skipInvalid = shape.skipInvalid && garbled === 0;
  const columns = { vars: shape.varColumns, meta: shape.metaColumns, renderer: msgrRenders(plan.message, shape.personal) ? ('msgr' as const) : ('provider' as const), given: passConfig.varColumnsGiven && (resuming || campaign.input.columns.vars !== undefined) };
  printPreflight(ui, pre, message.textAnalysis, input.label, pass.seconds, { skipInvalid, exclude: excludeList, store, totals: pre.totals, sms: plan.message.channel === 'SMS', repeats: repeatMode(shape), resumed: resuming, columns });
  printLeftOut(ui, sent, pre, plan.leaveOut, campaign.earlier.resendInDoubt);
  if (isScheduled(open.schedule)) ui.info(`when: ${describeSchedule(open.schedule)}`);
  // A resume sends what the earlier runs got no final answer for, not the whole file again.
  let left: number | undefined;
  let settled: InDoubtSettlement | undefined;
  let states: Uint8Array | undefined;
  let addedSinceStart: AddedSinceStart | undefined;
  if (run.kind === 'resume') {
    const { resumed } = run;
    // Numbers that went on a list since the run started: the store's, among the rows it could send.
    const addedSince = await addedSinceTheStart(plan, pass.spool, pre.rows);
    addedSinceStart = addedSince.all;
    states = resumed.states;
    // Receipts settle doubt: a batch in doubt whose every recipient has one was accepted
    // (docs/reruns.md: "In doubt meets consent"); the send stage journals it so. The journal as
    // opened stays as it was read; from here on, a quit at once counts those batches answered.
    if (resumed.states.some(isInDoubt)) {
      settled = await settleInDoubt(stateDir(ctx.env, ctx.cwd), await readRunDetail(run.journalPath, FLAG.resume));
      const now = Uint8Array.from(resumed.states);
      for (const b of settled.batches) if (b.settled) now[b.batch] = BatchState.accepted;
      states = now;
      rc.inDoubtIs(() => now.some(isInDoubt));
      if (settled.settledRows > 0) ui.info(`the receipts show every recipient of ${formatCount(settled.batches.filter((b) => b.settled).length)} batch${settled.batches.filter((b) => b.settled).length === 1 ? '' : 'es'} left in doubt (${formatCount(settled.settledRows)} rows): recorded as accepted, not sent again`);
      const partly = settled.withReceipt - settled.settledRows;
      if (partly > 0) ui.info(`  the receipts show ${formatCount(partly)} more row${partly === 1 ? '' : 's'} in doubt, in batches they do not show whole: those stay in doubt (msgr runs show ${resumed.header.runId})`);
    }
    const earlier = outcomeTotals({ ...resumed, states });
    left = leftToSend(pre.toSend, earlier, campaign.earlier.resendInDoubt);
    // Numbers that went on a list (the --exclude list, the opt-out store) while the run was paused:
    // their rows still to send are left out, and not counted as left to send.
    // Each effect reads the whole journal and spool: the one of both lists together is read once.
    const effect = addedSinceStart !== undefined && pass.spool !== undefined ? await addedEffect(run.journalPath, addedSinceStart.numbers, pass.spool) : undefined;
    if (effect !== undefined) left = Math.max(0, left - effect.leftOut);
    // Each list's numbers since the start, and those the run had already messaged, named
    // (docs/reruns.md: "Numbers not to message"); a list alone has the effect of both.
    const list = plan.optOuts.find((o) => o.id === 'exclude')?.name ?? FLAG.exclude;
    const excluded = plan.excludedAfterStart;
    const optedOut = addedSince.store;
    const alone = (set: NumberSet | undefined): AddedEffect | undefined => (set !== undefined && set.size === addedSinceStart?.numbers.size ? effect : undefined);
    await sayAddedSince(ui, run.journalPath, pass.spool, excluded, { what: `went on ${list}`, before: 'went on the list' }, resumed.header.runId, alone(excluded));
    await sayAddedSince(ui, run.journalPath, pass.spool, optedOut, { what: 'opted out', before: 'opted out' }, resumed.header.runId, alone(optedOut));
    // A resend of batches in doubt leaves out whoever went on a list since the run started: they
    // may have had the message, and they do not want another (docs/reruns.md: "In doubt meets consent").
    if (campaign.earlier.resendInDoubt && effect !== undefined && earlier.inDoubt > 0) {
      const doubt = effect.inDoubt;
      if (doubt.count > 0) ui.warn(`${formatCount(doubt.count)} number${doubt.count === 1 ? '' : 's'} in the batches in doubt opted out (or went on the ${FLAG.exclude} list) since run ${resumed.header.runId} started, and ${doubt.count === 1 ? 'is' : 'are'} left out of their resend (the first request may have reached ${doubt.count === 1 ? 'it' : 'them'}): ${doubt.first.join(', ')}${doubt.count > doubt.first.length ? ', …' : ''}`);
    }
    printLeftToSend(ui, left, earlier, campaign.earlier.resendInDoubt);
  }
  if (base.spend?.gsmSafe != null) printGsmSafe(ui, base.spend.gsmSafe);
  else if (plan.message.channel === 'SMS' && !resuming) printLookalikeCost(ui, messageText(plan.message), message.textAnalysis !== undefined ? pre.toSend : undefined);
  if (pre.filtered !== undefined) printFiltered(ui, pre.filtered);
  if (estimate !== undefined) printEstimate(ui, estimate, resuming);
  printLimit(ui, base.spend?.limit ?? null, left ?? pre.toSend, shape.batchSize, pre.totals !== undefined);
  const tooSmall = limitError(base.spend?.limit ?? null, shape.batchSize, resuming);
  if (tooSmall !== undefined) throw tooSmall;
  // Said when the run started: a resume says it for people, not again under -q.
  for (const line of message.singleBraceWarnings(pre.columns.header)) {
    if (resuming) ui.info(line);
    else ui.warn(line);
  }

  const out = { stdout: ctx.stdout, ui, json: campaign.output.json, summary: base };
  // The preview comes before a refusal, to show what the rows render to: printed first, or with
  // --json in the refusal's document (the one document on stdout).
  if (purpose.kind === 'preview' && !campaign.output.json) printPreview(out, plan.message, pre.firstRows, pre.toSend);
  // A new run refused here never was one (it wrote no journal): its document names no run id,
  // which `msgr runs` would not know; a resume's run is the one resumed.
  const refused: Summary = resuming ? base : { ...base, runId: null };
  const refusal = purpose.kind === 'preview' && campaign.output.json ? { ...refused, preview: previewEntries(plan.message, pre.firstRows) } : refused;
  // Beside an unfinished run the same command without --dry-run or --preview is refused: so is
  // this one, after showing what it checked (bulk/this-run/open.ts).
  const unfinishedRefusal = unfinished?.refusal;
  if (unfinishedRefusal !== undefined) {
    throw new UsageError(unfinishedRefusal.message, { hint: unfinishedRefusal.hint, jsonFor: (exitCode) => ({ ...refusal, exitCode, stopped: 'unfinished-run', error: { message: unfinishedRefusal.message, hint: unfinishedRefusal.hint ?? null } }) });
  }
  if (sameDataAs !== undefined && key !== undefined) {
    if (!campaign.earlier.sameData) throw sameDataError(sameDataAs, key, input.label, (exitCode) => ({ ...refusal, exitCode, stopped: 'same-data' }));
    ui.info(`${FLAG.sameData}: the same data as run ${sameDataAs.header.runId}${sameDataAs.header.once !== undefined ? ` under ${FLAG.once} ${sameDataAs.header.once.key}` : ''}, on purpose`);
  }
  // Possible opt-outs no one has decided on stop the run: a new run's preflight found their rows;
  // a resume looks for them in the batches it would send (docs/optouts.md: "Possible opt-outs").
  const undecided = await undecidedRows(run, plan.store, pre, pass.spool, campaign.earlier.resendInDoubt);
  if (undecided !== undefined) throw possibleOptOutsError(refusal, undecided.rows, undecided.numbers, input.label, resuming);
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
    throw sentBeforeError(guarded, leave.guard.runs, definitionOf(plan), { fileLabel: input.label, trial: purposeFlag(purpose), toSend: guard?.toSend ?? 0, byMessage: leave.guard.numbers.messages.messages.size > 0, jsonFor: (exitCode) => ({ ...refusal, exitCode, stopped: 'sent-before', sentBefore: guarded, earlierRuns: leave.guard?.runs.map((r) => r.header.runId) }) });
  }
  const nothing = nothingToSendError(refusal, pre, input.label);
  if (nothing !== undefined) throw nothing;
  const maxCost = maxCostGiven;
  const overCap = estimate !== undefined && maxCost !== undefined ? maxCostError(estimate, maxCost, campaign.rerun.maxCost, (exitCode) => ({ ...refusal, exitCode, stopped: 'max-cost' })) : undefined;
  if (overCap !== undefined) throw overCap;
  return { pre, spool, shape, base, left, settled, states, addedSinceStart };
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
    // The store asked of each number of the rows, or listed when that costs less (bulk/input/exclude.ts).
    if (listingCostsLess(store.undecided.numbers, pre.rows)) store.undecided.listed();
    let effect: Awaited<ReturnType<typeof addedEffect>>;
    try {
      effect = await addedEffect(run.journalPath, store.undecided, spool);
    } finally {
      store.release();
    }
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

/** Each row's zones, when the run's windows are read on each row's clock (docs/send-windows.md). */
function rowZonesOf(record: ScheduleRecord | undefined, since: number): RowZoneCheck | undefined {
  const s = record !== undefined ? scheduleFromRecord(record) : undefined;
  if (s === undefined || !zonedRows(s)) return undefined;
  return { check: rowZoneChecker(s, since), column: s.tz?.kind === 'column' ? s.tz.column : undefined, flag: FLAG.tz };
}

/** The opt-out store as the summary and the --json document tell it. */
function optOutStoreSummary(store: PlannedStore): OptOutStoreSummary {
  return { store: store.mode, account: store.account ?? null, numbers: store.numbers, files: [...store.files] };
}

function keySet(keys: readonly number[]): NumberSet {
  const set = new NumberSet(16);
  for (const k of keys) set.add(k);
  return set;
}

/** A stop asked for before anything was sent ends the run here. */
export function checkpoint(ctx: Pick<Context, 'interrupt'>, run: Run): void {
  if (ctx.interrupt.aborted) throw interruptedBeforeSending(run);
}

/**
 * A resume's numbers that went on one list since its run started (`how.what`: `opted out`), and
 * how many rows of theirs it leaves out of the batches not sent yet; of them, those the run had
 * already sent the message to, or sent it in a batch in doubt, named.
 */
async function sayAddedSince(ui: Ui, journalPath: string, spool: SpoolSource | undefined, added: NumberSet | undefined, how: { readonly what: string; readonly before: string }, runId: string, known?: AddedEffect): Promise<void> {
  if (added === undefined || added.size === 0) return;
  const numbers = `${formatCount(added.size)} number${added.size === 1 ? '' : 's'} ${how.what} since run ${runId} started`;
  if (spool === undefined) {
    ui.info(`${numbers}: left out of the batches not sent yet`);
    return;
  }
  const effect = known ?? (await addedEffect(journalPath, added, spool));
  ui.info(`${numbers}: ${formatCount(effect.leftOut)} row${effect.leftOut === 1 ? '' : 's'} of theirs left out of the batches not sent yet`);
  const named = (x: { count: number; first: readonly string[] }): string => `${x.first.join(', ')}${x.count > x.first.length ? ', …' : ''}`;
  if (effect.messaged.count > 0) ui.info(`  ${formatCount(effect.messaged.count)} of them had been sent the message by this run before they ${how.before}: ${named(effect.messaged)}`);
  if (effect.inDoubt.count > 0) ui.info(`  ${formatCount(effect.inDoubt.count)} of them ${effect.inDoubt.count === 1 ? 'is' : 'are'} in a batch in doubt (it may have had the message): ${named(effect.inDoubt)}`);
}
