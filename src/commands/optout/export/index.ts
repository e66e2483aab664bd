// `msgr optout export`. Commander only: the store loads when it runs.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { addStoreOptions } from '../flags.js';

export function registerOptoutExport(optout: Command, ctx: Context): void {
  addStoreOptions(
    optout
      .command('export')
      .description('print the numbers opted out (for send-bulk --exclude), or write them to a file')
      .option('--format <format>', 'list (one number a line; default), csv or jsonl')
      .option('--out <file>', 'write to this file (0600) instead of stdout'),
  ).action(async (opts: unknown) => {
    const { parseExportOptions } = await import('./options.js');
    const { runOptoutExport } = await import('./run.js');
    await runOptoutExport(ctx, parseExportOptions(opts));
  });
}
