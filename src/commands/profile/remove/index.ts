// `msgr profile remove`. Commander only: the store (and conf, ~90 ms to import) loads when it runs.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { addOutputOptions } from '../flags.js';

export function registerProfileRemove(profile: Command, ctx: Context): void {
  addOutputOptions(
    profile
      .command('remove')
      .alias('rm')
      .description('delete a profile and its key')
      .argument('<name>', 'profile name'),
  )
    .action(async (name: string, opts: unknown) => {
      const { parseRemoveOptions } = await import('./options.js');
      const { runRemove } = await import('./run.js');
      await runRemove(ctx, name, parseRemoveOptions(opts));
    });
}
