// `msgr runs report`. Commander wiring only; the work is imported when it runs.
import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { addOutputOptions, addReceiptOptions } from '../flags.js';

export function registerRunsReport(runs: Command, ctx: Context): void {
  const report = runs
    .command('report')
    .description("write a run's report: every row with its outcome, the message id of whichever run accepted it, and what its receipts say")
    .argument('<run>', 'run id, journal path, or the CSV file of the run')
    .requiredOption('--report <file>', 'the report to write: .csv or .jsonl');
  addOutputOptions(report).action(async (run: string, opts: unknown) => {
    const { parseReportOptions } = await import('./options.js');
    const { runReport } = await import('./run.js');
    await runReport(ctx, run, parseReportOptions(opts));
  });
  addReceiptOptions(report);
}
