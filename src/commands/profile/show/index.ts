// `msgr profile show`. Commander only: the store (and conf, ~90 ms to import) loads when it runs.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { refuseApiKeyFlag } from '../../shared/flags.js';
import { addOutputOptions } from '../flags.js';

export function registerProfileShow(profile: Command, ctx: Context): void {
  const cmd = addOutputOptions(
    profile
      .command('show')
      .description('show every resolved setting and where it came from (flag, env, profile, default)')
      .argument('[name]', 'the profile to show (same as -p NAME)')
      .option('-p, --profile <name>', 'profile to use (env MSGR_PROFILE; else the default profile)')
      .option('--base-url <url>', 'regional API base URL (env MSGR_BASE_URL)')
      .option('--account <ref>', 'accountReference (env MSGR_ACCOUNT_REFERENCE)')
      .option('--api-key-file <path>', 'read the API key from a file (env MSGR_API_KEY also works)')
      .option('--api-key-stdin', 'read the API key from the first line of stdin')
      .option('--from <sender>', 'sender id')
      .option('--channel <channel>', 'SMS or RCS')
      .option('--ca-file <path>', 'extra trusted CA certificates, PEM (env MSGR_CA_FILE)')
      .option('--default-country <CC>', 'country for national numbers (env MSGR_DEFAULT_COUNTRY)')
      .option('--json', 'print one JSON document on stdout'),
  )
    .addHelpText('after', '\nExamples:\n  msgr profile show\n  MSGR_ACCOUNT_REFERENCE=OTHER msgr profile show prod --json')
    .action(async (name: string | undefined, opts: unknown) => {
      const { parseShowOptions } = await import('./options.js');
      const { runShow } = await import('./run.js');
      await runShow(ctx, name, parseShowOptions(opts));
    });
  refuseApiKeyFlag(cmd);
}
