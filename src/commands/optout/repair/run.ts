// `msgr optout repair`: a store with lines that are not records made whole again, nothing lost
// (docs/optouts.md).
import type { Context } from '../../../context.js';
import { optoutTarget } from '../shared.js';
import type { RepairOptions } from './options.js';

export async function runOptoutRepair(ctx: Context, opts: RepairOptions): Promise<void> {
  const { ui, path, country, writer } = await optoutTarget(ctx, 'repair', opts);
  const { repairStore } = await import('../../../optouts/repair.js');
  const r = await repairStore(path, writer, country);
  if (opts.json) {
    ctx.stdout.write(`${JSON.stringify({ store: path, optedOut: r.numbers.map((n) => ({ line: n.line, number: n.number, already: n.already })), setAside: r.setAside, setAsideFile: r.setAsideFile ?? null, backup: r.backup ?? null }, null, 2)}\n`);
    return;
  }
  if (r.backup === undefined) {
    ui.info(`nothing to repair: every line of ${path} is a record`);
    return;
  }
  for (const n of r.numbers) ui.success(`line ${n.line}: ${n.number} ${n.already ? 'was opted out already' : 'is opted out now (typed into the store by hand)'}`);
  for (const a of r.setAside) ui.warn(`line ${a.line} set aside (${a.why}): ${JSON.stringify(a.text.slice(0, 60))}`);
  ui.info(`repaired ${path}${r.setAsideFile !== undefined ? `; lines set aside are in ${r.setAsideFile}` : ''}; the store as it was is kept as ${r.backup}`);
}
