// `msgr optout possible`. Commander only: the store and libphonenumber-js load when it runs.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { addStoreOptions } from '../flags.js';

/** Repeated options append, and a comma list is several values. */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), ...value.split(',').map((v) => v.trim()).filter((v) => v !== '')];
}

export function registerOptoutPossible(optout: Command, ctx: Context): void {
  addStoreOptions(
    optout
      .command('possible')
      .description('replies that may ask to stop, kept until a person decides; --accept makes them opt-outs, --dismiss keeps the numbers messageable (one step)')
      .option('--accept <number...>', 'these possible opt-outs are opt-outs (repeatable, comma lists allowed)', collect)
      .option('--dismiss <number...>', 'these are not: sends to the numbers go on (repeatable, comma lists allowed)', collect)
      .option('--note <text>', 'why (kept with the decision)')
      .option('--default-country <CC>', 'ISO country code for national numbers'),
  ).action(async (opts: unknown) => {
    const { parsePossibleOptions } = await import('./options.js');
    const { runOptoutPossible } = await import('./run.js');
    await runOptoutPossible(ctx, parsePossibleOptions(opts));
  });
}
