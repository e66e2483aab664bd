// `msgr listen replay` (docs/events.md). Commander only: the events file, the forwarding and the
// account load when it runs.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import { collect } from '../../shared/flags.js';
import { addAccountOptions, addFieldOptions } from '../flags.js';
import type { ReplayOptions } from './options.js';

export function registerListenReplay(listen: Command, ctx: Context, replayF?: (opts: ReplayOptions) => Promise<void>): void {
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
      const { runReplay } = await import('./run.js');
      await runReplay(ctx, opts);
    });
}
