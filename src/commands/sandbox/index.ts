// `msgr sandbox` (docs/sandbox.md). Commander only here: the server and zod load
// when the command runs (./run.ts).
import { Option, type Command } from 'commander';
import type { Context } from '../../context.js';
import { collect } from '../shared/flags.js';

export function registerSandbox(program: Command, ctx: Context): void {
  program
    .command('sandbox')
    .description('run a local emulator of the messaging API on loopback; nothing sent to it is delivered')
    .option('--port <port>', 'port to listen on; 0 picks a free one (default 4010)')
    .option('--host <host>', 'loopback address to listen on: 127.0.0.1, ::1 or localhost (default 127.0.0.1)')
    .addOption(new Option('--api-key <key>', 'accept only this X-Api-Key (default: any non-empty key)').env('MSGR_SANDBOX_API_KEY'))
    .option('--account <ref>', 'accept only this accountReference (others get 403)')
    .option('--record <file>', 'append every accepted request to this file, one JSON line each')
    .option('--latency <ms>', 'wait this many milliseconds before every answer')
    .option('--error-rate <fraction>', 'answer this fraction (0..1) of valid requests with 500')
    .option('--rate-limit <n>', 'allow n requests per second; beyond it 429 with Retry-After')
    .option('--seed <n>', 'seed for --error-rate, so the same requests fail on every run')
    .option('--threads <n>', 'worker threads that parse big request bodies; 0: none (default 2 on 2 cores or more)')
    .optionsGroup('Events (docs/events.md):')
    .addOption(new Option('--webhook-url <url>', 'post delivery events and replies for every accepted recipient to this URL (env MSGR_WEBHOOK_URL, which keeps a listener\'s token out of `ps`)').env('MSGR_WEBHOOK_URL'))
    .option('--event-delay <ms>', 'milliseconds from acceptance to the final receipt, each jittered 50-150 % (default 1000)')
    .option('--failed-rate <fraction>', 'fraction (0..1) of recipients whose receipt is failed (half of them permanently)')
    .option('--expired-rate <fraction>', 'fraction (0..1) of recipients whose receipt is expired')
    .option('--sent-events', 'also a "sent" receipt (not final) halfway to the final one')
    .option('--part-receipts', 'a receipt per SMS part for texts of several parts')
    .option('--reply-rate <fraction>', 'fraction (0..1) of recipients who reply after their receipt')
    .option('--reply-text <text>', 'text of the simulated replies (repeatable: one is picked at random; default STOP)', collect)
    .option('--webhook-retry-for <seconds>', 'retry an event that got no 2xx for this long, with backoff (default 600)')
    .option('--webhook-record <file>', 'append every event the receiver acknowledged (2xx), one JSON line each')
    .optionsGroup('Output:')
    .option('-q, --quiet', 'print no banner and no line per request on stderr')
    .addHelpText(
      'after',
      `
stdout carries one line, the URL, once the sandbox listens; everything else goes to stderr.
It runs until Ctrl-C or SIGTERM. RCS capability is simulated: a number ending in an even digit
receives RCS, an odd one falls back to SMS.

Examples:
  msgr sandbox
  MSGR_BASE_URL=http://127.0.0.1:4010 MSGR_API_KEY=test msgr send --to +447911123456 --from Acme --text Hi
  msgr sandbox --port 0 --api-key test --record sent.jsonl --rate-limit 50 --error-rate 0.05 --seed 7
  MSGR_WEBHOOK_URL="$(msgr listen --print-url)" msgr sandbox --failed-rate 0.1 --reply-rate 0.05`,
    )
    .action(async (_opts: unknown, command: Command) => {
      const { parseSandboxOptions } = await import('./options.js');
      const { runSandbox } = await import('./run.js');
      await runSandbox(ctx, parseSandboxOptions(command.opts(), ctx.cwd));
    });
}
