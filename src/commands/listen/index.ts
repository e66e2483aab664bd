// `msgr listen` and `msgr listen replay` (docs/events.md). Commander only here: the receiver, the
// opt-out store and libphonenumber-js load when the command runs.
import { Option, type Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { collect } from '../shared/flags.js';
import type { ListenOptions, ReplayOptions } from './options.js';

/** Field flags shared by `listen` and `replay`: dotted paths for shapes the common names miss. */
function addFieldOptions(cmd: Command): Command {
  return cmd
    .optionsGroup('Event fields (dotted paths, when the usual names do not find them):')
    .option('--event-id-field <path>', "the event's own id (duplicates are recorded once)")
    .option('--message-id-field <path>', 'the message id of a receipt')
    .option('--status-field <path>', 'the status of a receipt')
    .option('--number-field <path>', 'the recipient of a receipt')
    .option('--from-field <path>', 'the sender of an inbound message')
    .option('--text-field <path>', 'the text of an inbound message');
}

function addAccountOptions(cmd: Command): Command {
  return cmd
    .optionsGroup('Account (which events file and opt-out store):')
    .option('-p, --profile <name>', 'profile whose account to use (env MSGR_PROFILE; else the default profile)')
    .option('--account <ref>', 'accountReference (env MSGR_ACCOUNT_REFERENCE)');
}

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

  const replay = listen
    .command('replay')
    .description('send saved events again to your app (--forward-to), or list them')
    .option('--events <file>', 'the events file (default: the account\'s, as msgr listen writes it)')
    .option('--since <when>', 'events received since: a time (2030-01-01T09:00) or an age (30m, 2h, 3d)')
    .option('--until <when>', 'events received before: a time or an age')
    .option('--filter <key=value>', 'only events whose kind, status, state, number, message-id, event-id, id, path or dotted field has one of these values (a,b); repeatable', collect)
    .option('--forward-to <url>', 'post each matching event to your app as it was received');
  addAccountOptions(replay);
  addFieldOptions(replay);
  replay
    .optionsGroup('Output:')
    .option('--json', 'one JSON line per event (listing) or per attempt (forwarding) on stdout')
    .option('-q, --quiet', 'print nothing on stderr but warnings and errors')
    .option('-v, --verbose', 'show stack traces on errors')
    .addHelpText(
      'after',
      `
Without --forward-to, the matching events are listed (one line each, or JSON with --json).

Examples:
  msgr listen replay --since 30m
  msgr listen replay --filter kind=inbound --json
  msgr listen replay --since 2030-01-01T09:00 --filter status=failed,expired --forward-to http://127.0.0.1:3000/hook`,
    )
    .action(async (_opts: unknown, command: Command) => {
      const { parseReplayOptions } = await import('./options.js');
      // The program parses without positional options (main.ts), so Commander gives `listen` the
      // flags after `replay` that both declare (--json, --forward-to, …): they are replay's.
      const mine = new Set(command.options.map((o) => o.attributeName()));
      const given = Object.fromEntries(Object.entries(listen.opts()).filter(([k]) => listen.getOptionValueSource(k) === 'cli'));
      const foreign = listen.options.find((o) => given[o.attributeName()] !== undefined && !mine.has(o.attributeName()));
      if (foreign !== undefined) throw new UsageError(`msgr listen replay does not take ${foreign.long ?? foreign.flags}`, { hint: 'See its options with: msgr listen replay --help' });
      const opts = parseReplayOptions({ ...given, ...command.opts() }, ctx.now());
      if (replayF !== undefined) return replayF(opts);
      const { runReplay } = await import('./replay.js');
      await runReplay(ctx, opts);
    });
}
