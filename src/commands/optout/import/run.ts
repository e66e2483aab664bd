// `msgr optout import FILE`: the numbers of a file added to the store, all or none (docs/optouts.md).
import { resolve } from 'node:path';
import type { Context } from '../../../context.js';
import { OptOutStore } from '../../../optouts/store.js';
import { entryJson, optoutTarget } from '../shared.js';
import type { ImportOptions } from './options.js';

export async function runOptoutImport(ctx: Context, given: string, opts: ImportOptions): Promise<void> {
  const { ui, path, country, writer, scope } = await optoutTarget(ctx, 'import', opts);
  const store = OptOutStore.open(path, ctx);
  const { readOptOutFile } = await import('../../../optouts/import.js');
  const file = resolve(ctx.cwd, given);
  const read = await readOptOutFile(file, { column: opts.column, country });
  const changes = read.entries.map((e) => ({ number: e.number, reason: e.reason ?? 'opt-out', source: opts.source ?? e.source ?? 'import', evidence: { ...(e.evidence ?? {}), file, ...(opts.note !== undefined ? { note: opts.note } : {}) } }));
  const { added, already } = await store.add(changes, writer);
  if (opts.json) {
    ctx.stdout.write(`${JSON.stringify({ store: path, added: added.map((e) => entryJson(e, path)), already: already.map((e) => entryJson(e, path)) }, null, 2)}\n`);
    return;
  }
  ui.success(`imported ${added.length} number${added.length === 1 ? '' : 's'} into the opt-outs of ${scope}${already.length > 0 ? `; ${already.length} were there already` : ''}`);
}
