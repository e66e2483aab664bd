// `msgr runs list|show|report|prune`: data on stdout (a table, or --json), people's lines on
// stderr. The work is the engine's, through its front door for runs (src/bulk/runs.ts, the only
// module of src/bulk/ this imports).
import { basename, dirname } from 'node:path';
import type { Context } from '../../context.js';
import { heartbeatStopped, type LockOwner } from '../../files/lock.js';
import { stateDir } from '../../files/state-dir.js';
import { createUi, type Ui } from '../../output/ui.js';
import { getProfile, loadStore, type Profile } from '../../profiles/store.js';
import { continueRun, listRuns, pruneRuns, showRun, writeReport, type RunDelivery, type RunInfo } from '../../bulk/runs.js';
import type { RunsOptions } from './options.js';
import { formatAge, formatCount } from '../../output/count.js';
import { maskUrl, showControls } from '../../output/sanitize.js';
import { alignColumns, formatTable } from '../../output/table.js';
import { lineWidth, wrap } from '../../output/wrap.js';

function state(ctx: Context): string {
  return stateDir(ctx.env, ctx.cwd);
}

/** `stopped`: its process is alive but its heartbeat stopped (suspended with Ctrl-Z): nothing is being sent. */
const sendingJson = (o: LockOwner | undefined): { pid: number; host: string; since: string; stopped: boolean } | null => (o === undefined ? null : { pid: o.pid, host: o.host, since: o.startedAt, stopped: heartbeatStopped(o) });

function shortTarget(r: RunInfo): string {
  const t = r.target;
  if (t === null || t === undefined) return 'unknown';
  return t.sandbox ? 'sandbox' : `${maskUrl(t.baseUrl)} ${t.account ?? ''}`.trim();
}

export async function runList(ctx: Context, opts: RunsOptions): Promise<void> {
  const ui = createUi(ctx, opts);
  const { runs, unreadable } = await listRuns(ctx);
  if (opts.json) {
    ctx.stdout.write(`${JSON.stringify({ stateDir: state(ctx), runs: runs.map(({ status: _status, ...r }) => ({ ...r, sending: sendingJson(r.sending) })), unreadable }, null, 2)}\n`);
    return;
  }
  // A journal msgr cannot read may be the only record of whom a run messaged: never passed over.
  for (const u of unreadable) {
    const blocks = basename(u.journal) === 'journal.jsonl';
    ui.warn(`${u.journal} cannot be read (${u.why}; last written ${u.lastActivity})${blocks ? ': a new run of its file stops until it is restored, or set aside by a --restart' : ': kept aside'} (docs/files.md: "A journal that cannot be read")`);
  }
  if (runs.length === 0 && unreadable.length === 0) {
    ui.info(`no runs in ${state(ctx)}`);
    return;
  }
  const width = lineWidth(ctx.stdout);
  if (!opts.wide) {
    // 80 columns (or the terminal's width): the run by the last 8 characters of its id (which
    // every `msgr runs` command takes), its file by name, its campaign key when a run has one;
    // --wide and --json give them in full. A terminal too narrow for that gets a record per run.
    const keyed = runs.some((r) => r.once !== null);
    const rows = [['RUN', 'STARTED', 'FILE', ...(keyed ? ['KEY'] : []), 'TARGET', 'ACCEPTED', 'STATE']];
    for (const r of runs) {
      // What needs a look; the rows not sent yet are the rest of ACCEPTED's total. While a run
      // sends, its batches without an answer are in flight, not in doubt.
      const look = [[r.sending !== undefined ? 0 : r.inDoubt, 'in doubt'], [r.rejected, 'rejected']].filter(([n]) => Number(n) > 0).map(([n, what]) => `${formatCount(Number(n))} ${String(what)}`);
      rows.push([
        r.runId.slice(r.runId.lastIndexOf('-') + 1),
        r.startedAt.slice(5, 16).replace('T', ' ') + 'Z',
        basename(r.file),
        ...(keyed ? [r.once ?? ''] : []),
        narrowTarget(r),
        `${formatCount(r.accepted)}${r.alreadySent > 0 ? `+${formatCount(r.alreadySent)}` : ''} of ${formatCount(r.toSend + r.alreadySent)}`,
        `${r.status}${look.length > 0 ? ` (${look.join(', ')})` : ''}`,
      ]);
    }
    for (const u of unreadable) rows.push(['?', `${u.lastActivity.slice(5, 16).replace('T', ' ')}Z`, basename(dirname(u.journal)), ...(keyed ? [''] : []), '?', '?', 'unreadable']);
    // Cut to 80 columns at least (the key last: it is the name the operator gave the run); a
    // narrower terminal gets each run as a record, its values whole.
    const k = keyed ? 1 : 0;
    if (width !== undefined && width < 80) {
      ctx.stdout.write(`${formatTable(rows, width, 3)}\n`);
      return;
    }
    const fitted = fitWidth(rows, width ?? 80, [[3 + k, 8, 'end'], [2, 12, 'middle'], [5 + k, 10, 'end'], ...(keyed ? [[3, 12, 'middle'] as const] : [])]);
    ctx.stdout.write(`${alignColumns(fitted).join('\n')}\n`);
    return;
  }
  const keyed = runs.some((r) => r.once !== null);
  const rows = [['RUN', 'STARTED', 'FILE', ...(keyed ? ['KEY'] : []), 'TARGET', 'ROWS', 'ACCEPTED', 'IN DOUBT', 'NOT SENT', 'STATE']];
  for (const r of runs) {
    rows.push([
      r.runId,
      r.startedAt.replace('T', ' ').replace(/:\d\d\.\d+Z$/, 'Z'),
      r.file,
      ...(keyed ? [r.once ?? '-'] : []),
      shortTarget(r),
      formatCount(r.rows),
      `${formatCount(r.accepted)}${r.alreadySent > 0 ? ` (+${formatCount(r.alreadySent)} earlier)` : ''}`,
      formatCount(r.inDoubt),
      formatCount(r.notSent),
      r.status,
    ]);
  }
  for (const u of unreadable) rows.push(['?', u.lastActivity.replace('T', ' ').replace(/:\d\d\.\d+Z$/, 'Z'), u.journal, ...(keyed ? ['-'] : []), '?', '?', '?', '?', '?', 'unreadable']);
  ctx.stdout.write(`${alignColumns(rows).join('\n')}\n`);
}

/** Sandbox, else the account (or the API's host when the run had none). */
function narrowTarget(r: RunInfo): string {
  const t = r.target;
  if (t === null || t === undefined) return 'unknown';
  if (t.sandbox) return 'sandbox';
  if (t.account !== undefined && t.account !== null) return t.account;
  try {
    return new URL(t.baseUrl).host;
  } catch {
    return t.baseUrl;
  }
}

/**
 * The table cut to `width` columns: the columns named shrink in turn, each down to its
 * minimum, their cells cut with "…" (in the middle for a file name, whose end tells files apart).
 */
export function fitWidth(rows: string[][], width: number, shrink: ReadonlyArray<readonly [column: number, min: number, cut: 'middle' | 'end']>): string[][] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  let over = widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1) - width;
  for (const [column, min] of shrink) {
    if (over <= 0) break;
    const w = widths[column] ?? 0;
    const cut = Math.min(over, Math.max(0, w - min));
    widths[column] = w - cut;
    over -= cut;
  }
  return rows.map((r) => r.map((c, i) => {
    const w = widths[i] ?? c.length;
    if (c.length <= w) return c;
    const how = shrink.find(([column]) => column === i)?.[2];
    if (how === 'middle') {
      const head = Math.ceil((w - 1) / 2);
      return `${c.slice(0, head)}…${c.slice(c.length - (w - 1 - head))}`;
    }
    return `${c.slice(0, w - 1)}…`;
  }));
}

/**
 * How the run's last process ended, when none is sending it now (sendingNow): its "stop" line,
 * or, when it wrote none and the run is unfinished, that it was killed or the machine went down.
 */
function stopNote(info: RunInfo, lastStop: string | undefined): string {
  // "finished" is the process's end, not the run's: said so, beside a state that may be "unfinished".
  if (lastStop === 'finished' && !info.finished) return ' (its last process ended on its own, leaving rows not sent or in doubt)';
  if (lastStop !== undefined) return ` (last stop: ${lastStop})`;
  if (info.finished || info.abandoned) return '';
  return ' (its last process wrote no stop: it was killed, or the machine went down)';
}

/** What the receipts say of a run's messages, as --json gives it. */
function deliveryJson(d: RunDelivery): Record<string, unknown> {
  return { ...d.counts, events: d.files, missing: d.missing, records: d.records, skipped: d.skipped };
}

/**
 * `1,200 delivered, 3 failed, 40 pending, 0 unknown (receipts: …)`: delivered, failed and unknown
 * always, the others when there are any; or where the receipts would be, when there are none.
 */
function describeDelivery(d: RunDelivery): string {
  const c = d.counts;
  if (d.files.length === 0) return `no receipts read: no events file yet (msgr listen for the run's account saves them in ${d.missing[0] ?? 'the state folder'}; --events FILE reads one saved elsewhere)`;
  const parts = [
    `${formatCount(c.delivered)} delivered`,
    `${formatCount(c.failed)} failed`,
    c.expired > 0 ? `${formatCount(c.expired)} expired` : '',
    c.pending > 0 ? `${formatCount(c.pending)} pending (no final receipt yet)` : '',
    `${formatCount(c.unknown)} unknown (no final receipt in 72 h)`,
    c.withoutId > 0 ? `${formatCount(c.withoutId)} accepted without a message id (not matched)` : '',
  ].filter((p) => p !== '');
  return `${parts.join(', ')}; receipts from ${d.files.join(', ')}`;
}

/** `, 3 suppressed (opt-out store), 2 opted out since it started`, or what the run did with the store. */
function describeSuppressed(s: { readonly atStart: number; readonly sinceStart: number }, store: 'left-out' | 'included' | undefined): string {
  if (store === 'included') return ', the opt-out store included (--include-opted-out)';
  return `${s.atStart > 0 ? `, ${formatCount(s.atStart)} suppressed (opt-out store)` : ''}${s.sinceStart > 0 ? `, ${formatCount(s.sinceStart)} opted out since it started` : ''}`;
}

export async function runShow(ctx: Context, ref: string, opts: RunsOptions): Promise<void> {
  const view = await showRun(ctx, ref, { events: opts.events, fields: opts.fields });
  const { info, header: h, sending, inDoubt } = view;
  // Receipts settle doubt: a batch in doubt every recipient of which has one counts as accepted
  // (docs/reruns.md: "In doubt meets consent"); a resume journals it so.
  const settled = view.settledByReceipts;
  const doc = { ...info, accepted: info.accepted + settled, inDoubt: info.inDoubt - settled, settledByReceipts: settled, status: view.status, sending: sendingJson(sending), message: h.message, skipSent: h.skipSent ?? [], inDoubtBatches: inDoubt, lastStop: view.lastStop ?? null, suppressed: view.suppressed, delivery: deliveryJson(view.delivery) };
  if (opts.json) {
    ctx.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    return;
  }
  const lines: Array<[string, string]> = [
    ['run', info.runId],
    [
      'state',
      sending !== undefined && heartbeatStopped(sending)
        ? `stopped (msgr pid ${sending.pid} on ${sending.host}, since ${sending.startedAt}, suspended: no heartbeat for ${formatAge(sending.heartbeatAgeMs ?? 0)}): nothing is being sent until it is continued (kill -CONT ${sending.pid}) or ended (kill ${sending.pid}, then kill -CONT ${sending.pid})`
        : sending !== undefined
        ? `sending now (msgr pid ${sending.pid} on ${sending.host}, since ${sending.startedAt}): a batch without its answer yet is in flight, counted in doubt until it comes`
        : `${view.status}${stopNote(info, view.lastStop)}`,
    ],
    ['journal', view.journal],
    ['file', info.file],
    ['target', view.described.target],
    ['started', `${info.startedAt} by msgr ${info.msgr}`],
    ['message', view.described.text],
    ['from', view.described.from],
    ...(h.once !== undefined ? [['key', `--once ${h.once.key}`] as [string, string]] : []),
    ['rows', `${formatCount(info.rows)}, ${formatCount(info.toSend)} to send${info.alreadySent > 0 ? `, ${formatCount(info.alreadySent)} already sent by ${(h.skipSent ?? []).map((s) => s.runId).join(', ')}` : ''}${describeSuppressed(view.suppressed, h.optOuts?.store)}`],
    ['accepted', `${formatCount(info.accepted + settled)}${settled > 0 ? ` (${formatCount(settled)} of them left in doubt, but the receipts show every one: a resume records them as accepted, and sends them nothing)` : ''}`],
    ['rejected', formatCount(info.rejected)],
    ['in doubt', formatCount(info.inDoubt - settled)],
    ['not sent', formatCount(info.notSent)],
    ['delivery', describeDelivery(view.delivery)],
  ];
  // On a terminal each value wraps under itself (output/wrap.ts); on a pipe, whole lines.
  const width = lineWidth(ctx.stdout);
  const w = Math.max(...lines.map(([k]) => k.length));
  let out = lines.map(([k, v]) => wrap(`${k.padEnd(w)}  ${v}`, width, { hang: w + 2 })).join('\n');
  for (const b of inDoubt.slice(0, 20)) {
    const receipts = b.settled ? ': settled, every recipient has a receipt (accepted)' : b.withReceipt > 0 ? `; receipts for ${b.withReceipt} of ${b.recipients}` : '';
    out += `\n${wrap(`${b.settled ? 'was in doubt' : 'in doubt'}: batch ${b.batch} (${b.recipients} recipient${b.recipients === 1 ? '' : 's'} from line ${b.firstLine ?? '?'}, Idempotency-Key ${b.idempotencyKey})${b.numbers.length > 0 ? `: ${b.numbers.slice(0, 5).join(', ')}${b.numbers.length > 5 ? ', …' : ''}` : ''}${receipts}`, width)}`;
  }
  if (inDoubt.length > 20) out += `\n… and ${inDoubt.length - 20} more batches in doubt`;
  // File names, message texts and what receipts say are not msgr's own words: made visible.
  ctx.stdout.write(`${showControls(out)}\n`);
  const ui = createUi(ctx, opts);
  if (sending !== undefined) {
    ui.info(`it is sending now; once it ends, \`msgr runs show ${info.runId}\` says what it left, and how to continue`);
  } else if (!info.finished && !info.abandoned) {
    const next = continueRun(ctx, view, (name) => savedProfile(ctx, name, ui));
    // Without a profile (or with another key than the profile's) the key came from the
    // environment or a file the journal does not name.
    const key = next.otherKey ? ' (with the API key as the run had it: MSGR_API_KEY, --api-key-file or --api-key-stdin)' : '';
    ui.info(`continue it with: ${next.command}${key}`);
  }
}

/** The profile as saved now; undefined when it is gone or the store cannot be read (the command then names everything). */
function savedProfile(ctx: Context, name: string, ui: Ui): Profile | undefined {
  try {
    return getProfile(loadStore(ctx, (line) => ui.warn(line)).data, name);
  } catch {
    return undefined;
  }
}

export async function runReport(ctx: Context, ref: string, opts: RunsOptions): Promise<void> {
  const ui = createUi(ctx, opts);
  const { journal, path, runId, written: r } = await writeReport(ctx, ref, opts.report ?? '', (line) => ui.debug(line), { events: opts.events, fields: opts.fields });
  if (!r.complete) ui.warn(`${r.partialBecause ?? 'the input file changed'}: the report lists the ${formatCount(r.rows)} rows the run sent (rows it skipped or never sent are not in it)`);
  ui.success(`wrote ${formatCount(r.rows)} row${r.rows === 1 ? '' : 's'} to ${path} (${formatCount(r.withIds)} with a message id)`);
  if (r.delivery !== undefined) ui.info(`  delivery: ${describeDelivery(r.delivery)}`);
  if (opts.json) {
    const doc = { runId: runId ?? null, journal, report: path, rows: r.rows, withIds: r.withIds, complete: r.complete, partialBecause: r.partialBecause ?? null, delivery: r.delivery !== undefined ? deliveryJson(r.delivery) : null };
    ctx.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  }
}

export async function runPrune(ctx: Context, opts: RunsOptions): Promise<void> {
  const ui = createUi(ctx, opts);
  const r = await pruneRuns(ctx, opts.olderThanMs ?? Number.POSITIVE_INFINITY, opts.dryRun);
  if (opts.json) {
    ctx.stdout.write(`${JSON.stringify({ dryRun: opts.dryRun, removed: r.removed, keptUnfinished: r.keptUnfinished, keptNeeded: r.keptNeeded, keptElsewhere: r.keptElsewhere }, null, 2)}\n`);
    return;
  }
  const verb = opts.dryRun ? 'would remove' : 'removed';
  for (const run of r.removed) ctx.stdout.write(`${wrap(`${verb} ${run.runId}  ${run.file}  ${run.journal}`, lineWidth(ctx.stdout))}\n`);
  ui.info(`${verb} ${formatCount(r.removed.length)} finished or abandoned run${r.removed.length === 1 ? '' : 's'}${opts.dryRun ? ' (dry run: nothing was removed)' : ''}`);
  if (r.keptUnfinished.length > 0) ui.info(`kept ${formatCount(r.keptUnfinished.length)} unfinished run${r.keptUnfinished.length === 1 ? '' : 's'} as old (\`msgr runs list\`): resume them, or delete their journals by hand`);
  if (r.keptElsewhere.length > 0) {
    const n = r.keptElsewhere.length;
    ui.info(`kept ${formatCount(n)} finished run${n === 1 ? '' : 's'} whose journal${n === 1 ? ' is' : 's are'} kept by --journal outside msgr's folder (yours to delete): ${r.keptElsewhere.slice(0, 3).map((x) => x.journal).join(', ')}${n > 3 ? ', …' : ''}`);
  }
  if (r.keptNeeded.length > 0) ui.info(`kept ${formatCount(r.keptNeeded.length)} finished or abandoned run${r.keptNeeded.length === 1 ? '' : 's'} that a run kept leaves out the numbers of (its --resume and \`msgr runs report\` read them)`);
}
