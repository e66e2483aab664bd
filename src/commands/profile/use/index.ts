// `msgr profile use`. Commander only: the store (and conf, ~90 ms to import) loads when it runs.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { addOutputOptions } from '../flags.js';

export function registerProfileUse(profile: Command, ctx: Context): void {
  addOutputOptions(
    profile
      .command('use')
      .description('make a profile the default')
      .argument('<name>', 'profile name'),
  )
    .action(async (name: string, opts: unknown) => {
      const { parseUseOptions } = await import('./options.js');
      const { runUse } = await import('./run.js');
      await runUse(ctx, name, parseUseOptions(opts));
    });
}
