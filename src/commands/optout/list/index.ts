// `msgr optout list`. Commander only: the store loads when it runs.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { addStoreOptions } from '../flags.js';

export function registerOptoutList(optout: Command, ctx: Context): void {
  addStoreOptions(optout.command('list').description('every number opted out: since when, why, where from, the evidence')).action(async (opts: unknown) => {
    const { parseListOptions } = await import('./options.js');
    const { runOptoutList } = await import('./run.js');
    await runOptoutList(ctx, parseListOptions(opts));
  });
}
