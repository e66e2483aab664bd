// The flags `msgr listen` and `msgr listen replay` share. Commander only.
import type { Command } from 'commander';

/** Field flags shared by `listen` and `replay`: dotted paths for shapes the common names miss. */
export function addFieldOptions(cmd: Command): Command {
  return cmd
    .optionsGroup('Event fields (dotted paths, when the usual names do not find them):')
    .option('--event-id-field <path>', "the event's own id (duplicates are recorded once)")
    .option('--message-id-field <path>', 'the message id of a receipt')
    .option('--status-field <path>', 'the status of a receipt')
    .option('--number-field <path>', 'the recipient of a receipt')
    .option('--from-field <path>', 'the sender of an inbound message')
    .option('--text-field <path>', 'the text of an inbound message');
}

export function addAccountOptions(cmd: Command): Command {
  return cmd
    .optionsGroup('Account (which events file and opt-out store):')
    .option('-p, --profile <name>', 'profile whose account to use (env MSGR_PROFILE; else the default profile)')
    .option('--account <ref>', 'accountReference (env MSGR_ACCOUNT_REFERENCE)');
}

