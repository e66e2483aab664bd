// `msgr runs prune`. Commander wiring only; the work is imported when it runs.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { addOutputOptions } from '../flags.js';

export function registerRunsPrune(runs: Command, ctx: Context): void {
  const prune = runs
    .command('prune')
    .description('remove finished runs last written longer ago than --older-than (unfinished runs are kept)')
    .requiredOption('--older-than <age>', 'e.g. 30d, 12h, 2w, 90m')
    .option('--dry-run', 'say what would be removed, remove nothing');
  addOutputOptions(prune).action(async (opts: unknown) => {
    const { parsePruneOptions } = await import('./options.js');
    const { runPrune } = await import('./run.js');
    await runPrune(ctx, parsePruneOptions(opts));
  });
}
