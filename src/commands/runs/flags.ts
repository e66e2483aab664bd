// The flags the subcommands of `msgr runs` share. Commander only: the values are read when a
// subcommand runs (shared.ts).
import type { Command } from 'commander';
import { collect } from '../shared/flags.js';

/** --json, -q and -v, as every subcommand of `msgr runs` takes them. */
export function addOutputOptions(cmd: Command): Command {
  return cmd
    .option('--json', 'one JSON document on stdout')
    .option('-q, --quiet', 'print nothing on stderr but warnings and errors')
    .option('-v, --verbose', 'show stack traces on errors');
}

/** Where the receipts are, and their fields where the shape is not the sandbox's (docs/events.md: "Delivery in runs"). */
export function addReceiptOptions(cmd: Command): Command {
  return cmd
    .optionsGroup('Delivery (the receipts msgr listen saved, joined by message id):')
    .option('--events <file>', "an events file saved elsewhere (repeatable; default: msgr listen's for the run's account)", collect)
    .option('--message-id-field <path>', 'dotted path of the message id in a receipt, where the usual names miss it')
    .option('--status-field <path>', 'dotted path of the status in a receipt');
}
