// `msgr profile add`. Commander only: the store (and conf, ~90 ms to import) loads when it runs.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { refuseApiKeyFlag } from '../../shared/flags.js';
import { addOutputOptions } from '../flags.js';

export function registerProfileAdd(profile: Command, ctx: Context): void {
  const cmd = addOutputOptions(
    profile
      .command('add')
      .description('save a profile (the key is read from stdin, a file, or asked for on a terminal)')
      .argument('<name>', 'profile name, e.g. prod-eu')
      .option('--api-key-stdin', 'read the API key from the first line of stdin')
      .option('--api-key-file <path>', 'read the API key from the first line of a file')
      .option('--account <ref>', 'accountReference')
      .option('--base-url <url>', 'regional API base URL (https, or http on loopback)')
      .option('--from <sender>', 'default sender id')
      .option('--channel <channel>', 'default channel: SMS or RCS')
      .option('--ca-file <path>', 'PEM file of extra trusted roots, e.g. a TLS-inspecting firewall\'s')
      .option('--default-country <CC>', 'ISO country code national numbers are read in, e.g. GB')
      .option('--default', 'make it the default profile (the first profile always is)')
      .option('--confirm', 'production guard: every send asks first (or needs --yes)')
      .option('--force', 'replace an existing profile of that name without asking'),
  )
    .action(async (name: string, opts: unknown) => {
      const { parseAddOptions } = await import('./options.js');
      const { runAdd } = await import('./run.js');
      await runAdd(ctx, name, parseAddOptions(opts));
    });
  refuseApiKeyFlag(cmd, '--api-key-stdin (piped), --api-key-file PATH, or leave both out to be asked on a terminal');
}
