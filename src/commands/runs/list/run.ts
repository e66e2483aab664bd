// `msgr runs list`: every run in the state folder, as a table that fits the terminal, or --json.
import { basename, dirname } from 'node:path';
import type { Context } from '../../../context.js';
import { stateDir } from '../../../files/state-dir.js';
import { createUi } from '../../../output/ui.js';
import { listRuns, type RunInfo } from '../../../bulk/runs-door.js';
import { formatCount } from '../../../output/count.js';
import { maskUrl } from '../../../output/sanitize.js';
import { alignColumns, formatTable } from '../../../output/table.js';
import { lineWidth } from '../../../output/wrap.js';
import { sendingJson } from '../shared.js';
import type { ListOptions } from './options.js';

function state(ctx: Context): string {
  return stateDir(ctx.env, ctx.cwd);
}

function shortTarget(r: RunInfo): string {
  const t = r.target;
  if (t === null || t === undefined) return 'unknown';
  return t.sandbox ? 'sandbox' : `${maskUrl(t.baseUrl)} ${t.account ?? ''}`.trim();
}

export async function runList(ctx: Context, opts: ListOptions): Promise<void> {
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
