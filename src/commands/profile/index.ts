// `msgr profile`: saved connection settings (docs/configuration.md: "Profiles"; docs/contract.md:
// "Security"). Commander only: each subcommand is a folder of its own (<sub>/{index,options,run}.ts),
// and the store (and conf, ~90 ms to import) loads when it runs; flags.ts, options.ts and
// shared.ts hold what they share.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { registerProfileAdd } from './add/index.js';
import { registerProfileList } from './list/index.js';
import { registerProfileRemove } from './remove/index.js';
import { registerProfileSet } from './set/index.js';
import { registerProfileShow } from './show/index.js';
import { registerProfileUnset } from './unset/index.js';
import { registerProfileUse } from './use/index.js';

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

  registerProfileAdd(profile, ctx);
  registerProfileSet(profile, ctx);
  registerProfileUnset(profile, ctx);
  registerProfileList(profile, ctx);
  registerProfileShow(profile, ctx);
  registerProfileUse(profile, ctx);
  registerProfileRemove(profile, ctx);
}
