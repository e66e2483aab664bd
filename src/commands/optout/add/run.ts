// `msgr optout add`: numbers opted out, each with where from and the evidence (docs/optouts.md).
import type { Context } from '../../../context.js';
import { describeOptOut, OptOutStore } from '../../../optouts/store.js';
import { showControls } from '../../../output/sanitize.js';
import { entryJson, optoutTarget } from '../shared.js';
import type { AddOptions } from './options.js';

export async function runOptoutAdd(ctx: Context, given: readonly string[], opts: AddOptions): Promise<void> {
  const { ui, path, writer, scope, numbers } = await optoutTarget(ctx, 'add', opts);
  const store = OptOutStore.open(path, ctx);
  const changes = numbers(given).map((number) => ({ number, reason: opts.undeliverable ? ('undeliverable' as const) : ('opt-out' as const), source: opts.source ?? 'manual', ...(opts.note !== undefined ? { evidence: { note: opts.note } } : {}) }));
  const { added, already } = await store.add(changes, writer);
  if (opts.json) {
    ctx.stdout.write(`${JSON.stringify({ store: path, added: added.map((e) => entryJson(e, path)), already: already.map((e) => entryJson(e, path)) }, null, 2)}\n`);
    return;
  }
  for (const e of added) ui.success(showControls(`${e.number}: ${describeOptOut(e)} (${scope})`));
  for (const e of already) ui.info(showControls(`${e.number}: already ${describeOptOut(e)}`));
}
