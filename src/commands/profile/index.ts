// `msgr profile`: saved connection settings (docs/configuration.md: "Profiles"; docs/contract.md: "Security"). Commander only:
// the store (and conf, ~90 ms to import) loads when a subcommand runs.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { refuseApiKeyFlag } from '../shared/flags.js';

const QUIET = ['-q, --quiet', 'print nothing on stderr but warnings and errors'] as const;
const VERBOSE = ['-v, --verbose', 'show stack traces on errors (the API key is never shown)'] as const;

export function registerProfile(program: Command, ctx: Context): void {
  const profile = program
    .command('profile')
    .description('manage saved profiles: API key, account, regional base URL, defaults')
    .addHelpText(
      'after',
      `
Precedence, highest first: flag > environment variable > selected profile > built-in default.
The selected profile is -p NAME or MSGR_PROFILE, else the default profile, else the only one.

Examples:
  pass show msgr/prod | msgr profile add prod --api-key-stdin --account ACME --base-url https://eu.api.example.com --confirm
  msgr profile add test --api-key-file ~/.msgr-test-key --account ACME-TEST --base-url http://127.0.0.1:4010
  msgr profile use test
  msgr profile set prod from Acme
  msgr profile show -p prod
  MSGR_PROFILE=prod msgr send --to +447911123456 --text hi --yes`,
    );

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
    .option('--force', 'replace an existing profile of that name without asking')
    .option(...QUIET)
    .option(...VERBOSE)
    .action(async (name: string, opts: unknown) => {
      const { runAdd } = await import('./run.js');
      await runAdd(ctx, name, opts);
    });

  profile
    .command('set')
    .description('change one setting of a profile: account, base-url, from, channel, default-country, confirm, api-key, ca-file')
    .argument('<name>', 'profile name')
    .argument('<setting>', 'account | base-url | from | channel | default-country | confirm | api-key | ca-file')
    .argument('[value]', 'the new value (api-key takes none: it is read from stdin, a file or a prompt)')
    .option('--api-key-stdin', 'api-key: read it from the first line of stdin')
    .option('--api-key-file <path>', 'api-key: read it from the first line of a file')
    .option(...QUIET)
    .option(...VERBOSE)
    .addHelpText('after', '\nExamples:\n  msgr profile set prod base-url https://us.api.example.com\n  msgr profile set prod confirm true\n  msgr profile set prod ca-file /etc/ssl/corp-root.pem\n  pass show msgr/prod | msgr profile set prod api-key --api-key-stdin')
    .action(async (name: string, setting: string, value: string | undefined, opts: unknown) => {
      const { runSet } = await import('./run.js');
      await runSet(ctx, name, setting, value, opts);
    });

  profile
    .command('unset')
    .description('remove one setting from a profile')
    .argument('<name>', 'profile name')
    .argument('<setting>', 'account | base-url | from | channel | default-country | confirm | api-key | ca-file')
    .option(...QUIET)
    .option(...VERBOSE)
    .action(async (name: string, setting: string, opts: unknown) => {
      const { runUnset } = await import('./run.js');
      await runUnset(ctx, name, setting, opts);
    });

  profile
    .command('list')
    .alias('ls')
    .description('list profiles (keys masked to their last 4 characters)')
    .option('--json', 'print one JSON document on stdout')
    .option(...QUIET)
    .option(...VERBOSE)
    .action(async (opts: unknown) => {
      const { runList } = await import('./run.js');
      runList(ctx, opts);
    });

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
    .option('--json', 'print one JSON document on stdout')
    .option(...QUIET)
    .option(...VERBOSE)
    .addHelpText('after', '\nExamples:\n  msgr profile show\n  MSGR_ACCOUNT_REFERENCE=OTHER msgr profile show prod --json')
    .action(async (name: string | undefined, opts: unknown) => {
      const { runShow } = await import('./run.js');
      await runShow(ctx, name, opts);
    });

  profile
    .command('use')
    .description('make a profile the default')
    .argument('<name>', 'profile name')
    .option(...QUIET)
    .option(...VERBOSE)
    .action(async (name: string, opts: unknown) => {
      const { runUse } = await import('./run.js');
      await runUse(ctx, name, opts);
    });

  profile
    .command('remove')
    .alias('rm')
    .description('delete a profile and its key')
    .argument('<name>', 'profile name')
    .option(...QUIET)
    .option(...VERBOSE)
    .action(async (name: string, opts: unknown) => {
      const { runRemove } = await import('./run.js');
      await runRemove(ctx, name, opts);
    });

  for (const sub of profile.commands) {
    if (sub.name() === 'add' || sub.name() === 'set') refuseApiKeyFlag(sub, '--api-key-stdin (piped), --api-key-file PATH, or leave both out to be asked on a terminal');
    if (sub.name() === 'show') refuseApiKeyFlag(sub);
  }
}
