// `msgr profile unset`. Commander only: the store (and conf, ~90 ms to import) loads when it runs.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { addOutputOptions } from '../flags.js';

export function registerProfileUnset(profile: Command, ctx: Context): void {
  addOutputOptions(
    profile
      .command('unset')
      .description('remove one setting from a profile')
      .argument('<name>', 'profile name')
      .argument('<setting>', 'account | base-url | from | channel | default-country | confirm | api-key | ca-file | window | tz | price-file'),
  )
    .action(async (name: string, setting: string, opts: unknown) => {
      const { parseUnsetOptions } = await import('./options.js');
      const { runUnset } = await import('./run.js');
      await runUnset(ctx, name, setting, parseUnsetOptions(opts));
    });
}
