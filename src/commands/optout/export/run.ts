// `msgr optout export`: what sending leaves out for the account (its store and the one for every
// account), as a list send-bulk --exclude reads, CSV or JSON lines, on stdout or in a file.
import { resolve } from 'node:path';
import { renameSync, writeFileSync } from 'node:fs';
import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import { entryJson, listEntries, optoutTarget } from '../shared.js';
import type { ExportOptions } from './options.js';

function csvCell(s: string): string {
  return /[",\r\n]/.test(s) || /^[=+\-@\t]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export async function runOptoutExport(ctx: Context, opts: ExportOptions): Promise<void> {
  const { ui, state, account } = await optoutTarget(ctx, 'export', opts);
  const { entries } = listEntries(state, account);
  let text: string;
  if (opts.json) text = `${JSON.stringify({ account: account ?? null, numbers: entries.map(([e]) => e.number) }, null, 2)}\n`;
  else if (opts.format === 'jsonl') text = entries.map(([e, f]) => `${JSON.stringify(entryJson(e, f))}\n`).join('');
  // A number with a leading + is a formula to a spreadsheet: quoted, as send-bulk's reports do.
  else if (opts.format === 'csv') text = `number,since,reason,source,evidence\n${entries.map(([e]) => [e.number, e.since, e.reason, e.source, e.evidence?.text ?? e.evidence?.note ?? e.evidence?.code ?? ''].map(csvCell).join(',')).join('\n')}${entries.length > 0 ? '\n' : ''}`;
  else text = entries.map(([e]) => `${e.number}\n`).join('');
  if (opts.out === undefined) {
    ctx.stdout.write(text);
  } else {
    const file = resolve(ctx.cwd, opts.out);
    const aside = `${file}.${ctx.pid}.new`;
    try {
      writeFileSync(aside, text, { mode: 0o600 });
      renameSync(aside, file);
    } catch (err) {
      throw new UsageError(`--out: cannot write ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { hint: 'Give a path in a folder you can write to.' });
    }
  }
  ui.info(`${entries.length} number${entries.length === 1 ? '' : 's'} exported${opts.out !== undefined ? ` to ${opts.out}` : ''}`);
}
