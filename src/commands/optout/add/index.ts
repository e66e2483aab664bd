// `msgr optout add`. Commander only: the store and libphonenumber-js load when it runs.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { addStoreOptions } from '../flags.js';

export function registerOptoutAdd(optout: Command, ctx: Context): void {
  addStoreOptions(
    optout
      .command('add')
      .description('opt numbers out (a number already out is left as it is)')
      .argument('<number...>', 'numbers, international (+44…) or national with --default-country')
      .option('--source <name>', 'where the opt-out came from (default manual)')
      .option('--note <text>', 'evidence: what was said, by whom, where')
      .option('--undeliverable', 'the number cannot be reached (rather than: the person asked)')
      .option('--default-country <CC>', 'ISO country code for national numbers (env MSGR_DEFAULT_COUNTRY)'),
  ).action(async (numbers: string[], opts: unknown) => {
    const { parseAddOptions } = await import('./options.js');
    const { runOptoutAdd } = await import('./run.js');
    await runOptoutAdd(ctx, numbers, parseAddOptions(opts));
  });
}
