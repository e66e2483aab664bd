// `msgr optout list`: every number opted out for the account, with those for every account.
import type { Context } from '../../../context.js';
import { NO_ACCOUNT } from '../../../files/account-files.js';
import { describeOptOut } from '../../../optouts/store.js';
import { showControls } from '../../../output/sanitize.js';
import { lineWidth, wrap } from '../../../output/wrap.js';
import { entryJson, listEntries, optoutTarget } from '../shared.js';
import type { ListOptions } from './options.js';

export async function runOptoutList(ctx: Context, opts: ListOptions): Promise<void> {
  const { ui, state, account, path, scope } = await optoutTarget(ctx, 'list', opts);
  const out = listEntries(state, account);
  if (opts.json) {
    ctx.stdout.write(`${JSON.stringify({ account: account ?? null, stores: out.files, numbers: out.entries.map(([e, f]) => entryJson(e, f)) }, null, 2)}\n`);
    return;
  }
  // An entry's evidence is a stranger's reply (and the store a file anyone may have edited): made visible.
  for (const [e, f] of out.entries) ctx.stdout.write(`${wrap(showControls(`${e.number}  ${describeOptOut(e)}${f !== path ? ` [${NO_ACCOUNT}]` : ''}`), lineWidth(ctx.stdout), { hang: e.number.length + 2 })}\n`);
  ui.info(`${out.entries.length} number${out.entries.length === 1 ? '' : 's'} opted out for ${scope}${account !== undefined ? ` (with those for every account, marked [${NO_ACCOUNT}])` : ''}`);
}
