// `msgr runs list`. Commander wiring only; the work is imported when it runs.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { addOutputOptions } from '../flags.js';

export function registerRunsList(runs: Command, ctx: Context): void {
  const list = runs
    .command('list')
    .description('every run in the state folder: file, target, started, rows, accepted, in doubt, not sent, finished or not')
    .option('--wide', 'full run ids, file paths and targets, a column per count (the table fits 80 columns without it)');
  addOutputOptions(list).action(async (opts: unknown) => {
    const { parseListOptions } = await import('./options.js');
    const { runList } = await import('./run.js');
    await runList(ctx, parseListOptions(opts));
  });
}
