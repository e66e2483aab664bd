// `msgr optout check`: whether each number may be messaged (exit 0 either way; docs/optouts.md).
import type { Context } from '../../../context.js';
import { describeOptOut, openOptOuts } from '../../../optouts/store.js';
import { showControls } from '../../../output/sanitize.js';
import { lineWidth, wrap } from '../../../output/wrap.js';
import { optoutTarget } from '../shared.js';
import type { CheckOptions } from './options.js';

export async function runOptoutCheck(ctx: Context, given: readonly string[], opts: CheckOptions): Promise<void> {
  const { state, account, numbers } = await optoutTarget(ctx, 'check', opts);
  const all = openOptOuts(state, account, ctx, 'nothing was checked');
  const results = numbers(given).map((n) => ({ number: n, entry: all.get(n) }));
  if (opts.json) {
    ctx.stdout.write(`${JSON.stringify({ account: account ?? null, numbers: results.map((r) => ({ number: r.number, optedOut: r.entry !== undefined, ...(r.entry !== undefined ? { since: r.entry.since, reason: r.entry.reason, source: r.entry.source, evidence: r.entry.evidence ?? null } : {}) })) }, null, 2)}\n`);
    return;
  }
  for (const r of results) ctx.stdout.write(`${wrap(showControls(`${r.number}  ${r.entry !== undefined ? describeOptOut(r.entry) : 'not opted out'}`), lineWidth(ctx.stdout), { hang: r.number.length + 2 })}\n`);
}
