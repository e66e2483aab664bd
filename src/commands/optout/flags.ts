// The flags every subcommand of `msgr optout` takes: whose store, and the output. Commander only:
// the values are read when a subcommand runs (shared.ts).
import type { Command } from 'commander';

export function addStoreOptions(cmd: Command, json = '--json'): Command {
  return cmd
    .option('-p, --profile <name>', 'profile whose account to use (env MSGR_PROFILE; else the default profile)')
    .option('--account <ref>', 'accountReference (env MSGR_ACCOUNT_REFERENCE)')
    .option('--all-accounts', 'the store for every account (its numbers are left out of every account\'s sends)')
    .option(json, 'one JSON document on stdout')
    .option('-q, --quiet', 'print nothing on stderr but warnings and errors')
    .option('-v, --verbose', 'show stack traces on errors');
}
