// `msgr listen` (docs/events.md), and its subcommand `msgr listen replay` (replay/). Commander
// only here: the receiver, the opt-out store and libphonenumber-js load when the command runs.
import { Option, type Command } from 'commander';
import type { Context } from '../../context.js';
import { addAccountOptions, addFieldOptions } from './flags.js';
import type { ListenOptions } from './options.js';
import { registerListenReplay } from './replay/index.js';
import type { ReplayOptions } from './replay/options.js';

export function registerListen(program: Command, ctx: Context, runF?: (opts: ListenOptions) => Promise<void>, replayF?: (opts: ReplayOptions) => Promise<void>): void {
  const listen = program
    .command('listen')
    .description('receive delivery reports and replies by webhook on 127.0.0.1, save every event to a file before answering, show them')
    .optionsGroup('Receiving:')
    .addOption(new Option('--port <n>', 'port to listen on; 0 picks a free one (env MSGR_LISTEN_PORT; default 4020)').env('MSGR_LISTEN_PORT'))
    .option('--host <address>', 'address to listen on (default 127.0.0.1); any other is reachable from the network, and msgr warns')
    .addOption(new Option('--token <value>', 'the token requests must carry, in the path (/TOKEN) or a header (default: one msgr makes and keeps)').env('MSGR_LISTEN_TOKEN'))
    .option('--print-url', 'print the webhook URL (with the token) on stdout and exit')
    .option('--print-token', 'print the token on stdout and exit')
    .option('--out <file>', 'the events file, one JSON line per event (default: in the state folder, per account)')
    .option('--max-body <size>', 'largest body taken, e.g. 256k, 4m (default 1m); larger ones get 413')
    .option('--dedup-window <duration>', 'an event without an id or idempotency header that repeats a body seen this recently is a duplicate (default 10m; 0: off)')
    .addOption(new Option('--forward-to <url>', 'post each event, as received, to your app, in order, 20 attempts each (env MSGR_FORWARD_TO, which keeps a password in it out of `ps`; user:password@ is sent as basic authentication)').env('MSGR_FORWARD_TO'))
    .option('--warn-after <duration>', 'warn when a send-bulk run is sending and no receipt came for this long (default 2m)');
  addAccountOptions(listen);
  listen
    .optionsGroup('Opt-outs (docs/optouts.md):')
    .option('--optouts [file]', "add the sender of every reply with a stop word to the account's opt-out store (or to FILE, a plain list for --exclude); keep replies that may ask to stop as possible opt-outs")
    .option('--stop-words <words>', 'more stop words, comma separated, beside STOP, STOPALL, QUIT, END, REVOKE, CANCEL, UNSUBSCRIBE, OPT OUT (which always apply)')
    .option('--start-words <words>', 'words that opt back in as the whole reply, comma separated (default START,UNSTOP)')
    .option('--ignore-start', 'a start word is shown, not applied (by default it takes its sender off the opt-outs)')
    .option('--allow-start', 'a start word takes its sender off the opt-outs (the default; kept for scripts)')
    .option('--undeliverable', 'a receipt of a permanent failure adds its number as undeliverable')
    .option('--permanent-codes <codes>', 'error codes that mean permanent, comma separated (beyond an event\'s own permanent: true)')
    .option('--default-country <CC>', 'ISO country code for national numbers in events (env MSGR_DEFAULT_COUNTRY)');
  addFieldOptions(listen);
  listen
    .optionsGroup('Output:')
    .option('--json', 'one JSON line per event on stdout')
    .option('-q, --quiet', 'no line per event and nothing on stderr but warnings and errors')
    .option('-v, --verbose', 'also a line per duplicate and per refused request; stack traces')
    .addHelpText(
      'after',
      `
Every event is flushed to the events file before the 2xx answer; what cannot be stored now (a
full disk) is answered 503, so the sender keeps it and retries; a body that never can (over
--max-body) 413. Duplicates are recorded once. SIGHUP opens the events file again (log rotation).

Examples:
  msgr listen
  msgr listen --optouts --forward-to http://127.0.0.1:3000/webhooks
  MSGR_WEBHOOK_URL="$(msgr listen --print-url)" msgr sandbox --reply-rate 0.1 &
  msgr listen --json -q --out events.jsonl | jq -c 'select(.kind == "inbound")'
  msgr listen replay --since 2h --filter status=failed --forward-to http://127.0.0.1:3000/webhooks`,
    )
    .action(async (_opts: unknown, command: Command) => {
      const { parseListenOptions } = await import('./options.js');
      const opts = parseListenOptions({ ...command.opts(), forwardToInArgv: command.getOptionValueSource('forwardTo') === 'cli' });
      if (runF !== undefined) return runF(opts);
      const { runListen } = await import('./run.js');
      await runListen(ctx, opts);
    });

  registerListenReplay(listen, ctx, replayF);
}
