// `msgr optout import`. Commander only: the store, the file's reader and libphonenumber-js load when it runs.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { addStoreOptions } from '../flags.js';

export function registerOptoutImport(optout: Command, ctx: Context): void {
  addStoreOptions(
    optout
      .command('import')
      .description('add the numbers of a file: one a line, a CSV with a number column, or an export in JSON lines')
      .argument('<file>', 'the file')
      .option('--column <name>', 'the number column of a CSV')
      .option('--source <name>', 'where these opt-outs came from (default import)')
      .option('--note <text>', 'evidence for all of them')
      .option('--default-country <CC>', 'ISO country code for national numbers'),
  ).action(async (file: string, opts: unknown) => {
    const { parseImportOptions } = await import('./options.js');
    const { runOptoutImport } = await import('./run.js');
    await runOptoutImport(ctx, file, parseImportOptions(opts));
  });
}
