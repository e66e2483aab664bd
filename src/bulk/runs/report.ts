// `msgr runs report`: a run's full report, written at any time from its journal. While the input
// file is unchanged, every row is listed as send-bulk's --report lists it (the preflight is run
// again, nothing is sent), each accepted row with the message id of whichever run accepted it;
// once the file changed or is gone, the rows the run sent, from the numbers its journal keeps.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { MessagesClient } from '../../http/client.js';
import { parseCountry } from '../../message/numbers.js';
import { loadExcludes } from '../input/exclude.js';
import { BatchState, isInDoubt } from '../journal/records.js';
import { Gate, Window } from '../send/limiter.js';
import { createNumberChecker } from '../input/number-check.js';
import { preflightPass } from '../preflight/pass.js';
import type { ReportRow, ReportWriter, RowOutcome } from '../report/writer.js';
import { readRunDetail, type RunDetail } from './catalogue.js';
import { Sender } from '../send/sender.js';
import { loadSentNumbers, withSentIds } from './already-sent.js';
import { sameInput } from '../input/identity.js';

export interface RunReport {
  readonly rows: number;
  /** Every row of the file (true), or only the rows the run sent (the file changed). */
  readonly complete: boolean;
  /** Why only the sent rows are listed. */
  readonly partialBecause?: string;
  readonly withIds: number;
}

export async function writeRunReport(ctx: Pick<Context, 'env' | 'interrupt' | 'atQuit'>, journal: string, report: ReportWriter, debug: (line: string) => void): Promise<RunReport> {
  const detail = await readRunDetail(journal, 'runs report');
  const why = await fullReportBlocker(detail);
  if (why === undefined) {
    const r = await fullReport(ctx, detail, report, debug);
    if (r !== undefined) return r;
  }
  return sentRowsReport(detail, report, why ?? 'the file no longer gives the rows the run started with');
}

/** Why the input file cannot give the run's rows again; undefined when it can. */
async function fullReportBlocker(d: RunDetail): Promise<string | undefined> {
  const h = d.loaded.header;
  const p = h.shape.personal;
  const text = (h.message.body as { text?: unknown } | undefined)?.text;
  // Rows with messages of their own are grouped into requests by message (bulk/compose/grouping.ts):
  // their batches are not rebuilt here, so the journal alone tells.
  if (p !== undefined && (p.textColumn !== null || p.fromColumn !== null || (p.render && typeof text === 'string' && text.includes('{{')))) return 'its rows had messages of their own';
  if (!sameInput(h.input.path, h.input)) return `${h.input.stdin ? 'its copy of stdin' : h.input.path} is gone or changed since the run`;
  if (h.shape.exclude !== null) {
    try {
      const ex = await loadExcludes(h.shape.exclude.path, createNumberChecker(h.shape.defaultCountry !== null ? parseCountry(h.shape.defaultCountry) : undefined, { allowUnlisted: h.shape.allowUnlisted === true }), { column: h.shape.exclude.column });
      if (ex.hash !== h.shape.exclude.hash) return `the exclude file ${h.shape.exclude.path} changed since the run`;
    } catch {
      return `the exclude file ${h.shape.exclude.path} cannot be read`;
    }
  }
  return undefined;
}

/** Every row, as the run's own --report would have it now; undefined if the rows do not line up. */
async function fullReport(ctx: Pick<Context, 'env' | 'interrupt' | 'atQuit'>, d: RunDetail, report: ReportWriter, debug: (line: string) => void): Promise<RunReport | undefined> {
  const h = d.loaded.header;
  const country = h.shape.defaultCountry !== null ? parseCountry(h.shape.defaultCountry) : undefined;
  const checker = createNumberChecker(country, { allowUnlisted: h.shape.allowUnlisted === true });
  const exclude = h.shape.exclude !== null ? (await loadExcludes(h.shape.exclude.path, checker, { column: h.shape.exclude.column })).set : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'msgr-report-'));
  ctx.atQuit(() => rmSync(dir, { recursive: true, force: true }));
  const cleanups: Array<() => void> = [];
  try {
    // The rows the run left out as already sent, read as far as its journal says (bulk/runs/already-sent.ts).
    const sent = h.skipSent !== undefined && h.skipSent.length > 0 ? await loadSentNumbers(h.skipSent, { flag: 'runs report', wantIds: true }) : undefined;
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
    });
    if (pass.spool === undefined || pass.pre.hash !== h.input.hash || pass.pre.toSend !== h.totals.toSend) return undefined;
    const spool = sent !== undefined ? withSentIds(pass.spool, sent) : pass.spool;
    let withIds = 0;
    const counting = { write: (row: ReportRow) => {
      if (row.messageId !== undefined) withIds++;
      report.write(row);
    } };
    const sender = new Sender({
      idempotency: h.once?.idempotency ?? h.runId,
      journal: { startedDurably: () => Promise.reject(new Error('runs report sends nothing')), need: () => undefined, leaving: () => undefined, leavingAll: () => undefined, atEndOfTurn: (fn) => void setImmediate(fn), waiting: () => undefined, answered: () => undefined },
      states: d.loaded.states,
      frame: { prefix: '', suffix: '' },
      batchSize: h.shape.batchSize,
      toSend: h.totals.toSend,
      resendInDoubt: false,
      window: new Window(1),
      limiter: undefined,
      gate: new Gate(),
      report: counting,
      progress: { update: () => undefined, log: () => undefined, stop: () => undefined },
      client: noClient,
      signal: new AbortController().signal,
      debug,
      earlier: d.dones,
      reportOnly: true,
    });
    await sender.sendAll(spool);
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

const noClient: MessagesClient = {
  send: () => Promise.reject(new Error('runs report sends nothing')),
  sendRaw: () => Promise.reject(new Error('runs report sends nothing')),
  close: () => Promise.resolve(),
};

/** The rows of every batch the run sent, in batch order, from the journal alone. */
function sentRowsReport(d: RunDetail, report: ReportWriter, why: string): RunReport {
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
