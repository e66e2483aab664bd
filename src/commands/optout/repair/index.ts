// `msgr optout repair`. Commander only: the store and libphonenumber-js load when it runs.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { addStoreOptions } from '../flags.js';

export function registerOptoutRepair(optout: Command, ctx: Context): void {
  addStoreOptions(
    optout
      .command('repair')
      .description('a store with lines that are not records: numbers typed on such lines become opt-outs, other lines are set aside in a file beside it (the store as it was is kept too)')
      .option('--default-country <CC>', 'ISO country code for national numbers typed in the store'),
  ).action(async (opts: unknown) => {
    const { parseRepairOptions } = await import('./options.js');
    const { runOptoutRepair } = await import('./run.js');
    await runOptoutRepair(ctx, parseRepairOptions(opts));
  });
}
