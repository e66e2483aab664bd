// `msgr profile list`. Commander only: the store (and conf, ~90 ms to import) loads when it runs.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { addOutputOptions } from '../flags.js';

export function registerProfileList(profile: Command, ctx: Context): void {
  addOutputOptions(
    profile
      .command('list')
      .alias('ls')
      .description('list profiles (keys masked to their last 4 characters)')
      .option('--json', 'print one JSON document on stdout'),
  )
    .action(async (opts: unknown) => {
      const { parseListOptions } = await import('./options.js');
      const { runList } = await import('./run.js');
      runList(ctx, parseListOptions(opts));
    });
}
