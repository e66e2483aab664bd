// `msgr runs show`. Commander wiring only; the work is imported when it runs.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { addOutputOptions, addReceiptOptions } from '../flags.js';

export function registerRunsShow(runs: Command, ctx: Context): void {
  const show = runs
    .command('show')
    .description('one run: where it sent, what, its totals, what was delivered, the batches in doubt, how to continue it')
    .argument('<run>', 'run id, journal path, or the CSV file of the run');
  addOutputOptions(show).action(async (run: string, opts: unknown) => {
    const { parseShowOptions } = await import('./options.js');
    const { runShow } = await import('./run.js');
    await runShow(ctx, run, parseShowOptions(opts));
  });
  addReceiptOptions(show);
}
