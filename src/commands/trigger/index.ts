// `msgr trigger delivered|failed|expired|sent|fallback|inbound` (docs/events.md: "msgr trigger").
// Commander only: the event is built and sent when the command runs.
import { Option, type Command } from 'commander';
import type { Context } from '../../context.js';
import { collect } from '../shared/flags.js';
import type { TriggerOptions } from './options.js';

export const TRIGGER_KINDS = ['delivered', 'failed', 'expired', 'sent', 'fallback', 'inbound'] as const;

export function registerTrigger(program: Command, ctx: Context, runF?: (opts: TriggerOptions) => Promise<void>): void {
  program
    .command('trigger')
    .description('send one event in the sandbox\'s shape to a listener (msgr listen, or your own app): a receipt or a reply')
    .argument('<kind>', TRIGGER_KINDS.join(' | '))
    .addOption(new Option('--url <url>', "where to post it (env MSGR_WEBHOOK_URL; default: msgr listen's URL on this machine, with its token)").env('MSGR_WEBHOOK_URL'))
    .option('--number <number>', 'the customer: the recipient of a receipt, the sender of a reply (default +447400900123)')
    .option('--message-id <id>', 'the message the receipt is for, or the reply answers (default: a new sbx_m_ id)')
    .option('--text <text>', 'inbound: the reply\'s text (default Hello)')
    .option('--to <sender>', 'inbound: the sender id or number the reply went to (default Acme)')
    .option('--channel <channel>', 'SMS or RCS (default SMS)')
    .option('--code <code>', 'failed: the error code (default unknown-subscriber)')
    .option('--temporary', 'failed: a failure that may not happen next time (default: permanent)')
    .option('--part <i/n>', 'a receipt for part i of n of a long message, e.g. 2/3')
    .option('--set <path=value>', 'add or replace a field (dotted path; a JSON value, else text); repeatable', collect)
    .option('-p, --profile <name>', 'profile whose listener token to use (env MSGR_PROFILE)')
    .option('--account <ref>', 'account whose listener token to use (env MSGR_ACCOUNT_REFERENCE)')
    .addOption(new Option('--port <n>', "msgr listen's port, for the default URL (env MSGR_LISTEN_PORT; default 4020)").env('MSGR_LISTEN_PORT'))
    .option('--json', 'print the event sent and the answer as one JSON document')
    .option('-q, --quiet', 'print nothing on stderr but warnings and errors')
    .option('-v, --verbose', 'show stack traces on errors')
    .addHelpText(
      'after',
      `
The event has the sandbox's shape (docs/events.md), so msgr listen reads it as the sandbox's.

Examples:
  msgr trigger delivered --message-id sbx_m_0e41a37faaa10a91_0
  msgr trigger inbound --number +447400900123 --text STOP
  msgr trigger failed --number +447400900124 --code unknown-subscriber
  msgr trigger delivered --url http://127.0.0.1:3000/webhooks --set data.custom=1`,
    )
    .action(async (kind: string, _opts: unknown, command: Command) => {
      const { parseTriggerOptions } = await import('./options.js');
      const opts = parseTriggerOptions(kind, command.opts());
      if (runF !== undefined) return runF(opts);
      const { runTrigger } = await import('./run.js');
      await runTrigger(ctx, opts);
    });
}
