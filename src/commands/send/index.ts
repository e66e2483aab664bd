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
    .option('--input <file>', "a whole request JSON ('-' for stdin); flags override its fields");
  addMessageOptions(cmd);
  addConnectionOptions(cmd, { webhook: true });
  cmd.addHelpText(
    'after',
    `
Examples:
  msgr send --sandbox --to +447700900123 --from Acme --text 'Hello'
  msgr send -p prod --to 07700900123 --default-country GB --from Acme --text-file msg.txt
  echo 'Your code is 1234' | msgr send --to +14155550100 --from 14155550199 --json
  msgr send --channel rcs --to +447700900123 --from acme_agent --template welcome --var name=Ann`,
  );
  cmd.action(async (_opts: unknown, command: Command) => {
    const { parseSendOptions } = await import('./options.js');
    const opts = parseSendOptions(command.opts());
    if (runF !== undefined) return runF(opts);
    const { runSend } = await import('./run.js');
    await runSend(ctx, opts);
  });
}

