// `msgr optout remove`. Commander only: the store and libphonenumber-js load when it runs.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { addStoreOptions } from '../flags.js';

export function registerOptoutRemove(optout: Command, ctx: Context): void {
  addStoreOptions(
    optout
      .command('remove')
      .description('take numbers off the store: they may be messaged again')
      .argument('<number...>', 'numbers')
      .option('--note <text>', 'why (kept in the store\'s history)')
      .option('--default-country <CC>', 'ISO country code for national numbers'),
  ).action(async (numbers: string[], opts: unknown) => {
    const { parseRemoveOptions } = await import('./options.js');
    const { runOptoutRemove } = await import('./run.js');
    await runOptoutRemove(ctx, numbers, parseRemoveOptions(opts));
  });
}
