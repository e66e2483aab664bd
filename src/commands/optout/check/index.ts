// `msgr optout check`. Commander only: the store and libphonenumber-js load when it runs.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { addStoreOptions } from '../flags.js';

export function registerOptoutCheck(optout: Command, ctx: Context): void {
  addStoreOptions(
    optout
      .command('check')
      .description('whether numbers may be messaged: opted out (with since when and why) or not')
      .argument('<number...>', 'numbers')
      .option('--default-country <CC>', 'ISO country code for national numbers'),
  ).action(async (numbers: string[], opts: unknown) => {
    const { parseCheckOptions } = await import('./options.js');
    const { runOptoutCheck } = await import('./run.js');
    await runOptoutCheck(ctx, numbers, parseCheckOptions(opts));
  });
}
