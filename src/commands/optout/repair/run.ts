// `msgr optout repair`: a store with lines that are not records made whole again, nothing lost
// (docs/optouts.md).
import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import { shellQuote } from '../../../output/shell.js';
import { quoted } from '../../../output/sanitize.js';
import { optoutTarget } from '../shared.js';
import type { RepairOptions } from './options.js';

export async function runOptoutRepair(ctx: Context, opts: RepairOptions): Promise<void> {
  const { ui, account, path, country, writer } = await optoutTarget(ctx, 'repair', opts);
  const { repairStore } = await import('../../../optouts/repair.js');
  const r = await repairStore(path, writer, country);
  const national = r.national[0];
  if (national !== undefined) {
    // An opt-out typed as a national number is still an opt-out: it is not set aside for want of a country.
    const flag = account !== undefined ? ` --account ${shellQuote(account)}` : opts.allAccounts ? ' --all-accounts' : '';
    throw new UsageError(`line ${national.line} of ${path} reads as a national number (${quoted(national.text.slice(0, 40))})${r.national.length > 1 ? `, and ${r.national.length - 1} more line${r.national.length === 2 ? '' : 's'}` : ''}: msgr cannot tell its country, and will not set an opt-out aside; nothing was changed`, {
      hint: `Give the country those numbers are dialled in: msgr optout repair${flag} --default-country GB (or its ISO code).`,
    });
  }
  if (opts.json) {
    ctx.stdout.write(`${JSON.stringify({ store: path, optedOut: r.numbers.map((n) => ({ line: n.line, number: n.number, already: n.already, from: n.from })), setAside: r.setAside, setAsideFile: r.setAsideFile ?? null, backup: r.backup ?? null }, null, 2)}\n`);
    return;
  }
  if (r.backup === undefined) {
    ui.info(`nothing to repair: every line of ${path} is a record`);
    return;
  }
  for (const n of r.numbers) ui.success(`line ${n.line}: ${n.number} ${n.already ? 'was opted out already' : `is opted out now (${n.from === 'typed' ? 'typed into the store by hand' : 'named on a line that was not a whole record'})`}`);
  for (const a of r.setAside) ui.warn(`line ${a.line} set aside (${a.why}): ${quoted(a.text.slice(0, 60))}`);
  ui.info(`repaired ${path}${r.setAsideFile !== undefined ? `; lines set aside are in ${r.setAsideFile}` : ''}; the store as it was is kept as ${r.backup}`);
}
