// `msgr optout remove`: numbers taken off the store, the change kept in its history (docs/optouts.md).
import type { Context } from '../../../context.js';
import { NO_ACCOUNT } from '../../../files/account-files.js';
import { optOutStorePath, OptOutStore } from '../../../optouts/store.js';
import { optoutTarget } from '../shared.js';
import type { RemoveOptions } from './options.js';

export async function runOptoutRemove(ctx: Context, given: readonly string[], opts: RemoveOptions): Promise<void> {
  const { ui, state, path, writer, scope, numbers } = await optoutTarget(ctx, 'remove', opts);
  const store = OptOutStore.open(path, ctx);
  const { removed, absent } = await store.remove(numbers(given).map((number) => ({ number, source: 'manual', ...(opts.note !== undefined ? { evidence: { note: opts.note } } : {}) })), writer);
  // Still out for every account (the _all store), whatever else either file holds.
  const stillOut = OptOutStore.open(optOutStorePath(state, NO_ACCOUNT), ctx);
  if (opts.json) {
    ctx.stdout.write(`${JSON.stringify({ store: path, removed: removed.map((e) => e.number), absent, stillOptedOut: [...removed.map((e) => e.number), ...absent].filter((n) => stillOut.has(n)) }, null, 2)}\n`);
    return;
  }
  for (const e of removed) ui.success(`${e.number}: taken off the opt-outs of ${scope}; it may be messaged again`);
  for (const n of absent) ui.info(`${n}: was not opted out in ${scope}`);
  for (const n of [...removed.map((e) => e.number), ...absent]) {
    if (stillOut.has(n)) ui.warn(`${n} is still opted out for every account (the ${NO_ACCOUNT} store): msgr optout remove ${n} --all-accounts`);
  }
}
