// `msgr runs report`: a run's full report, written at any time from its journal. While the input
// file is unchanged, every row is listed as send-bulk's --report lists it (the preflight is run
// again, nothing is sent), each accepted row with the message id of whichever run accepted it;
// once the file changed or is gone, the rows the run sent, from the numbers its journal keeps.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { parseCountry } from '../../message/numbers.js';
import { LeaveOutRule, listAtStart, loadExcludes } from '../input/exclude.js';
import { BatchState, isInDoubt } from '../journal/records.js';
import { createNumberChecker } from '../input/number-check.js';
import { preflightPass } from '../preflight/pass.js';
import type { ReportRow, RowOutcome } from '../report/report-file.js';
import { readRunDetail, type RunDetail } from '../history/catalogue.js';
import { readBatches, type BatchSource } from '../send-pass/batches.js';
import { runMessage } from '../compose/run-message.js';
import { FLAG } from '../flag-names.js';
import { ReportOrder, type ReportRows, type SenderReport } from '../report/order.js';
import type { SpoolSource } from '../preflight/spool.js';
import { EXCLUDED_SINCE_START, OPTED_OUT_SINCE_START, optedOutError, readSnapshot, STORE_SOURCE, storeCopy, withOptOutReasons } from '../send-pass/opt-outs.js';
import { openOptOuts, optOutAccount, type OptOuts } from '../../optouts/store.js';
import { stateDir } from '../../files/state-dir.js';
import type { RunHeader } from '../journal/records.js';
import { DELIVERED_AT_START, loadSentNumbers, withSentIds } from './already-sent.js';
import { runDelivery, settleInDoubt, withSettled, type DeliveryOptions, type RunDelivery } from '../history/run-delivery.js';
import { sameInput } from '../input/identity.js';

export interface RunReport {
  readonly rows: number;
  /** Every row of the file (true), or only the rows the run sent (the file changed). */
  readonly complete: boolean;
  /** Why only the sent rows are listed. */
  readonly partialBecause?: string;
  readonly withIds: number;
  /** The receipts joined to the run's rows (docs/events.md: "Delivery in runs"); undefined when not asked. */
  readonly delivery?: RunDelivery | undefined;
}

type ReportContext = Pick<Context, 'env' | 'cwd' | 'interrupt' | 'atQuit'>;

/**
 * `deliveryOptions.settle`: no process sends the run now, so the batches in doubt its receipts
 * settle are listed as accepted, with the message ids the receipts carry, as a resume would
 * journal them (docs/reruns.md: "In doubt meets consent").
 */
export async function writeRunReport(ctx: ReportContext, journal: string, sink: SenderReport & { readonly rows: number }, debug: (line: string) => void, deliveryOptions?: DeliveryOptions & { readonly settle?: boolean }): Promise<RunReport> {
  const read = await readRunDetail(journal, 'runs report');
  const state = stateDir(ctx.env, ctx.cwd);
  const detail = deliveryOptions?.settle === true ? withSettled(read, await settleInDoubt(state, read, deliveryOptions)) : read;
  const delivery = deliveryOptions !== undefined ? await runDelivery(state, detail, deliveryOptions) : undefined;
  // Each row with a message id of the run's says what its receipts say.
  const report = {
    path: sink.path,
    get rows() {
      return sink.rows;
    },
    write: (row: ReportRow) => {
      const d = row.messageId !== undefined ? delivery?.of(row.messageId) : undefined;
      sink.write(d !== undefined ? { ...row, delivery: { status: d.status, at: d.at, errorCode: d.errorCode } } : row);
    },
  };
  const optOuts = runOptOuts(ctx, detail.loaded.header);
  const why = await fullReportBlocker(detail, journal);
  if (why === undefined) {
    const r = await fullReport(ctx, detail, journal, optOuts, report, debug);
    if (r !== undefined) return { ...r, delivery };
  }
  return { ...sentRowsReport(detail, report, why ?? 'the file no longer gives the rows the run started with'), delivery };
}

/** The opt-out store of the run's account (and the one for every account): why its rows were left out. */
function runOptOuts(ctx: Pick<Context, 'env' | 'cwd'>, h: RunHeader): OptOuts {
  return openOptOuts(stateDir(ctx.env, ctx.cwd), optOutAccount(h.message.accountReference, h.target?.sandbox === true));
}

/** Why the input file cannot give the run's rows again; undefined when it can. */
async function fullReportBlocker(d: RunDetail, journal: string): Promise<string | undefined> {
  const h = d.loaded.header;
  if (!sameInput(h.input.path, h.input)) return `${h.input.stdin ? 'its copy of stdin' : h.input.path} is gone or changed since the run`;
  if (h.shape.exclude !== null) {
    try {
      const ex = await loadExcludes(h.shape.exclude.path, createNumberChecker(h.shape.defaultCountry !== null ? parseCountry(h.shape.defaultCountry) : undefined, { allowUnlisted: h.shape.allowUnlisted === true }), { column: h.shape.exclude.column });
      if (ex.hash !== h.shape.exclude.hash) return `the exclude file ${h.shape.exclude.path} changed since the run`;
    } catch {
      return `the exclude file ${h.shape.exclude.path} cannot be read`;
    }
  }
  if (h.optOuts?.store === 'left-out') {
    const copy = storeCopy(journal, h.optOuts);
    if (copy === 'gone') return 'the copy of the opt-out store it started with is gone';
    if (copy === 'changed') return 'the copy of the opt-out store it started with was changed since';
  }
  return undefined;
}

/** Every row, as the run's own --report would have it now; undefined if the rows do not line up. */
async function fullReport(ctx: ReportContext, d: RunDetail, journal: string, optOuts: OptOuts, report: SenderReport & { readonly rows: number }, debug: (line: string) => void): Promise<Omit<RunReport, 'delivery'> | undefined> {
  const h = d.loaded.header;
  // One shared text, or a message per row, as the journal says: the batches are rebuilt as a
  // --resume rebuilds them (the spool carries each row's message, grouped by bulk/compose/grouping.ts).
  const message = runMessage(h.message, h.shape.personal, FLAG.text);
  const country = h.shape.defaultCountry !== null ? parseCountry(h.shape.defaultCountry) : undefined;
  const checker = createNumberChecker(country, { allowUnlisted: h.shape.allowUnlisted === true });
  // The numbers the run left out as it started: its --exclude list, and its copy of the opt-out store.
  const excludeList = h.shape.exclude !== null ? (await loadExcludes(h.shape.exclude.path, checker, { column: h.shape.exclude.column })).set : undefined;
  // (The copy holds the numbers of the file's rows the store had, or, kept by an earlier msgr, the whole store then.)
  const snapshot = h.optOuts?.store === 'left-out' ? readSnapshot(journal, STORE_SOURCE) : undefined;
  const exclude = new LeaveOutRule(excludeList, snapshot !== undefined ? listAtStart(snapshot) : undefined);
  const dir = mkdtempSync(join(tmpdir(), 'msgr-report-'));
  ctx.atQuit(() => rmSync(dir, { recursive: true, force: true }));
  const cleanups: Array<() => void> = [];
  try {
    // The rows the run left out as already sent, read as far as its journal says (bulk/earlier/already-sent.ts).
    // --delivered-only: the numbers counted as delivered as the run started, whatever receipts came since.
    const atStart = h.skipSent?.some((r) => r.deliveredOnly === true) === true ? readSnapshot(journal, DELIVERED_AT_START) : undefined;
    const sent = h.skipSent !== undefined && h.skipSent.length > 0 ? await loadSentNumbers(h.skipSent, { flag: 'runs report', wantIds: true, atStart }) : undefined;
    const pass = await preflightPass({
      path: h.input.path,
      fileLabel: h.input.stdin ? 'stdin' : h.input.path,
      fileBytes: h.input.size,
      shape: h.shape,
      varColumnsGiven: true,
      country,
      checker,
      exclude,
      sent: sent?.accepted,
      spoolPath: join(dir, 'spool'),
      env: ctx.env,
      signal: ctx.interrupt,
      checkpoint: () => undefined,
      debug,
      defer: (fn) => cleanups.push(fn),
      message: message.personal,
    });
    if (pass.spool === undefined || pass.pre.hash !== h.input.hash || pass.pre.toSend !== h.totals.toSend) return undefined;
    const startedAt = new Date(h.createdAt);
    const spool = withOptOutReasons(sent !== undefined ? withSentIds(pass.spool, sent) : pass.spool, (n) => optedOutError(optOuts, n, startedAt));
    let withIds = 0;
    const counting = { write: (row: ReportRow) => {
      if (row.messageId !== undefined) withIds++;
      report.write(row);
    } };
    await reportRows(spool, d, { batchSize: h.shape.batchSize, grouped: message.personal !== undefined, duplicateKeys: pass.pre.duplicateKeys }, counting, optOuts);
    return { rows: report.rows, complete: true, withIds };
  } finally {
    for (const fn of cleanups.reverse()) {
      try {
        fn();
      } catch {
        // Scratch files only.
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The report's rows, in input order: the spool's rows in the batches the run cut them into, each
 * batch's rows with the outcome its journal records (status, message ids, error), the rows set
 * aside with why. What send-bulk's --report says of a batch an earlier run settled, said of every
 * batch, as nothing is sent here.
 */
async function reportRows(spool: SpoolSource, d: RunDetail, cut: Pick<BatchSource, 'batchSize' | 'grouped' | 'duplicateKeys'>, report: SenderReport, optOuts: Pick<OptOuts, 'optedOutAt'>): Promise<void> {
  const order = new ReportOrder(report);
  const { states } = d.loaded;
  await readBatches({
    spool,
    ...cut,
    withReport: true,
    sendable: () => false,
    onBatch: (b) => {
      const state = states[b.index] ?? BatchState.none;
      const done = d.dones.get(b.index);
      const send = d.sends.get(b.index);
      // Recipients left out since the run started (a resume): the rows the batch's request did not
      // have, each with why, so the others line up with the message ids of those it had.
      if (state === BatchState.excluded || (send?.excluded !== undefined && send.excluded > 0 && send.numbers !== undefined)) {
        markLeftOut(b, state === BatchState.excluded ? [] : (send?.numbers ?? []), optOuts, new Date(send?.at ?? done?.at ?? d.loaded.header.createdAt));
      }
      if (state === BatchState.excluded) {
        // Every recipient went on a list before a run of the journal sent it.
        b.outcome = 'excluded';
        b.error = EXCLUDED_SINCE_START;
      } else if (state === BatchState.accepted || state === BatchState.rejected) {
        b.outcome = state === BatchState.accepted ? 'accepted' : 'rejected';
        b.ids = done?.ids?.map((id) => id ?? undefined);
        b.status = done?.status;
        b.error = state === BatchState.accepted ? undefined : done?.error;
      } else if (isInDoubt(state)) {
        b.outcome = 'in-doubt';
        b.error = `in doubt: sent, no answer${done?.error !== undefined ? ` (${done.error})` : ''}`;
      } else {
        // What the run's own --report said: the journal's "done" line (a 401's status, why the
        // batches after a stop were not sent), else that it was never reached.
        b.outcome = 'not-sent';
        b.status = done?.status;
        b.error = done?.error ?? (state === BatchState.none ? 'not sent yet' : 'not sent');
      }
      order.complete(b);
    },
    onRows: (b) => order.complete(b),
    onRow: (seq, row) => order.rowDone(seq, row),
    afterChunk: () => Promise.resolve(true),
  });
}

/**
 * Marks the rows of batch `b` that its request did not have (`sent`: the numbers it had) as left
 * out since the run started: opted out when the store had them by then (`at`), else excluded.
 */
function markLeftOut(b: { readonly rows: ReportRows | undefined }, sent: readonly string[], optOuts: Pick<OptOuts, 'optedOutAt'>, at: Date): void {
  const rows = b.rows;
  if (rows === undefined) return;
  const had = new Set(sent);
  rows.numbers.forEach((n, i) => {
    if (rows.skips[i] !== undefined || had.has(n)) return;
    const entry = optOuts.optedOutAt(n, at);
    rows.skips[i] = entry !== undefined ? 'suppressed' : 'excluded';
    rows.errors[i] = entry !== undefined ? `${OPTED_OUT_SINCE_START}: ${optedOutError(optOuts, n, at)}` : EXCLUDED_SINCE_START;
  });
}

/** The rows of every batch the run sent, in batch order, from the journal alone. */
function sentRowsReport(d: RunDetail, report: SenderReport & { readonly rows: number }, why: string): Omit<RunReport, 'delivery'> {
  let withIds = 0;
  const batches = [...d.sends.keys()].sort((a, b) => a - b);
  for (const b of batches) {
    const send = d.sends.get(b);
    const done = d.dones.get(b);
    if (send?.numbers === undefined) {
      throw new UsageError(`runs report: ${why}, and run ${d.loaded.header.runId} was journaled by msgr ${d.loaded.header.msgr}, which did not record the numbers of each batch`, {
        hint: 'Restore the input file as it was when the run started, then run this again.',
      });
    }
    const state = d.loaded.states[b];
    const outcome: RowOutcome = state === BatchState.accepted ? 'accepted' : state === BatchState.rejected ? 'rejected' : state === BatchState.excluded ? 'excluded' : isInDoubt(state) ? 'in-doubt' : 'not-sent';
    send.numbers.forEach((number, i) => {
      const id = outcome === 'accepted' ? (done?.ids?.[i] ?? undefined) : undefined;
      if (id !== undefined) withIds++;
      report.write({
        line: send.lines?.[i] ?? 0,
        number,
        outcome,
        status: state === BatchState.started ? undefined : done?.status,
        messageId: id,
        error: outcome === 'accepted' ? undefined : outcome === 'in-doubt' ? `in doubt: sent, no answer${done?.error !== undefined ? ` (${done.error})` : ''}` : done?.error,
      });
    });
  }
  return { rows: report.rows, complete: false, partialBecause: why, withIds };
}
