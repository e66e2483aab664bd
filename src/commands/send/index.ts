import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { addConnectionOptions, addMessageOptions, collect } from '../shared/flags.js';
import type { SendOptions } from './options.js';

/**
 * `runF` replaces the run (tests: argv → options without sending, as gh's commands take one);
 * by default the options go to run.ts.
 */
export function registerSend(program: Command, ctx: Context, runF?: (opts: SendOptions) => Promise<void>): void {
  const cmd = program
    .command('send')
    .description('send one message to one or more recipients')
    .optionsGroup('Recipients:')
    .option('--to <number...>', 'recipient number(s); repeatable, comma lists allowed', collect)
    .option('--contact <id...>', 'address-book contact id(s); repeatable', collect)
    .option('--var <key=value>', 'template variable for every --to recipient (repeatable)', collect)
    .optionsGroup('Message:')
    .option('--input <file>', "a whole request JSON ('-' for stdin); flags override its fields")
    .option('--once <key>', 'send this message once under a key: the same command again sends nothing more (per account)')
    .option('--gsm-safe', 'replace look-alikes in the text (’ ‘ “ ” – — … no-break space) with GSM-7 characters before sending');
  addMessageOptions(cmd);
  cmd
    .optionsGroup("When (on the recipient's clock):")
    .option('--window <[days:]HH:MM-HH:MM>', "send only inside this window of every recipient's local time; outside it nothing is sent (exit 8) (repeatable; default: the profile's window)", collect)
    .option('--tz <zone>', "whose clock --window is read on: an IANA zone (Europe/Paris), or auto: the zones of each number's region, or its country's where the numbering plan places it in none (default)")
    .option('--any-time', "send at any hour, setting aside the profile's window for this message")
    .option('--not-before <time>', 'send nothing before this time (exit 8): ISO 8601 or a duration from now')
    .option('--stop-at <time>', 'send nothing at or after this time (exit 8): ISO 8601 or a duration from now');
  addConnectionOptions(cmd, { webhook: true });
  cmd.addHelpText(
    'after',
    `
--once KEY (an order id, an event id) makes a retried command send its message once: a repeat
prints the first answer and sends nothing (exit 0); after an attempt that got no answer, was not
sent or was rejected, it sends the same request with the same Idempotency-Key.

Examples:
  msgr send --sandbox --to +447911123456 --from Acme --text 'Hello'
  msgr send -p prod --to 07911123456 --default-country GB --from Acme --text-file msg.txt
  echo 'Your code is 1234' | msgr send --to +14155550100 --from 14155550199 --json
  msgr send --channel rcs --to +447911123456 --from acme_agent --template welcome --var name=Ann
  msgr send --once order-1234-shipped --to +447911123456 --from Acme --text 'Order 1234 has shipped'`,
  );
  cmd.action(async (_opts: unknown, command: Command) => {
    const { parseSendOptions } = await import('./options.js');
    const opts = parseSendOptions(command.opts());
    if (runF !== undefined) return runF(opts);
    const { runSend } = await import('./run.js');
    await runSend(ctx, opts);
  });
}

