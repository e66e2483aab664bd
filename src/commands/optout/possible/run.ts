// `msgr optout possible`: the replies that may ask to stop, and a person's decision on them
// (docs/optouts.md).
import type { Context } from '../../../context.js';
import { describePossible, openOptOuts, OptOutStore, type PossibleEntry } from '../../../optouts/store.js';
import { shellQuote } from '../../../output/shell.js';
import { optoutTarget } from '../shared.js';
import type { PossibleOptions } from './options.js';

function possibleJson(p: PossibleEntry): Record<string, unknown> {
  return { number: p.number, since: p.since, source: p.source, replies: p.replies, evidence: p.evidence ?? null };
}

export async function runOptoutPossible(ctx: Context, opts: PossibleOptions): Promise<void> {
  const { ui, state, account, path, writer, scope, numbers } = await optoutTarget(ctx, 'possible', opts);
  if (opts.accept.length === 0 && opts.dismiss.length === 0) {
    const pending = openOptOuts(state, account, ctx).pending();
    if (opts.json) {
      ctx.stdout.write(`${JSON.stringify({ account: account ?? null, possible: pending.map(possibleJson) }, null, 2)}\n`);
      return;
    }
    for (const p of pending) ctx.stdout.write(`${p.number}  ${describePossible(p)}\n`);
    const flag = account !== undefined ? ` --account ${shellQuote(account)}` : opts.allAccounts ? ' --all-accounts' : '';
    if (pending.length > 0) ui.info(`${pending.length} possible opt-out${pending.length === 1 ? '' : 's'} to decide for ${scope}: sends to ${pending.length === 1 ? 'its number' : 'their numbers'} stop until then. Decide with msgr optout possible --accept NUMBER${flag} (an opt-out) or --dismiss NUMBER${flag} (not one).`);
    else ui.info(`no possible opt-outs to decide for ${scope}`);
    return;
  }
  const store = OptOutStore.open(path, ctx);
  const accepted = await store.decide(numbers(opts.accept), 'accept', writer, opts.note);
  const dismissed = await store.decide(numbers(opts.dismiss), 'dismiss', writer, opts.note);
  const none = [...accepted.none, ...dismissed.none];
  if (opts.json) {
    ctx.stdout.write(`${JSON.stringify({ store: path, accepted: accepted.decided.map((p) => p.number), dismissed: dismissed.decided.map((p) => p.number), notPossible: none }, null, 2)}\n`);
  } else {
    for (const p of accepted.decided) ui.success(`${p.number}: opted out (${describePossible(p)})`);
    for (const p of dismissed.decided) ui.success(`${p.number}: not an opt-out; sends to it go on`);
  }
  for (const n of none) ui.warn(`${n} has no possible opt-out to decide in ${scope}${store.has(n) ? ' (it is opted out)' : ''}: nothing was changed for it`);
}
