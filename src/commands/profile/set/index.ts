// `msgr profile set`. Commander only: the store (and conf, ~90 ms to import) loads when it runs.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { refuseApiKeyFlag } from '../../shared/flags.js';
import { addOutputOptions } from '../flags.js';

export function registerProfileSet(profile: Command, ctx: Context): void {
  const cmd = addOutputOptions(
    profile
      .command('set')
      .description('change one setting of a profile: account, base-url, from, channel, default-country, confirm, api-key, ca-file, window, tz, price-file')
      .argument('<name>', 'profile name')
      .argument('<setting>', 'account | base-url | from | channel | default-country | confirm | api-key | ca-file | window | tz | price-file')
      .argument('[value]', 'the new value (api-key takes none: it is read from stdin, a file or a prompt)')
      .option('--api-key-stdin', 'api-key: read it from the first line of stdin')
      .option('--api-key-file <path>', 'api-key: read it from the first line of a file'),
  )
    .addHelpText('after', '\nExamples:\n  msgr profile set prod base-url https://us.api.example.com\n  msgr profile set prod confirm true\n  msgr profile set prod ca-file /etc/ssl/corp-root.pem\n  pass show msgr/prod | msgr profile set prod api-key --api-key-stdin')
    .action(async (name: string, setting: string, value: string | undefined, opts: unknown) => {
      const { parseSetOptions } = await import('./options.js');
      const { runSet } = await import('./run.js');
      await runSet(ctx, name, setting, value, parseSetOptions(opts));
    });
  refuseApiKeyFlag(cmd, '--api-key-stdin (piped), --api-key-file PATH, or leave both out to be asked on a terminal');
}
