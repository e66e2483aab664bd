// `msgr runs list|show|report|prune`: the bulk runs msgr keeps. Commander wiring only; the work
// is imported when a subcommand runs.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { collect } from '../shared/flags.js';

const QUIET = ['-q, --quiet', 'print nothing on stderr but warnings and errors'] as const;
const VERBOSE = ['-v, --verbose', 'show stack traces on errors'] as const;
const JSON_FLAG = ['--json', 'one JSON document on stdout'] as const;

/** Where the receipts are, and their fields where the shape is not the sandbox's (docs/events.md: "Delivery in runs"). */
function addReceiptOptions(cmd: Command): Command {
  return cmd
    .optionsGroup('Delivery (the receipts msgr listen saved, joined by message id):')
    .option('--events <file>', "an events file saved elsewhere (repeatable; default: msgr listen's for the run's account)", collect)
    .option('--message-id-field <path>', 'dotted path of the message id in a receipt, where the usual names miss it')
    .option('--status-field <path>', 'dotted path of the status in a receipt');
}

export function registerRuns(program: Command, ctx: Context): void {
  const runs = program
    .command('runs')
    .description('the bulk runs msgr keeps: list them, show one, write its report, prune old ones')
    .addHelpText(
      'after',
      `
A run is named by its id (or the start of it, 8 characters or more), its journal's path, or the
CSV file it read (that file's latest run). Sandbox runs are listed too, marked as such.

Examples:
  msgr runs list
  msgr runs show customers.csv
  msgr runs report 20261121T161500Z-3fa9c2d1 --report campaign.csv
  msgr runs report customers.csv --report delivery.csv --events receipts.jsonl --status-field data.state
  msgr runs prune --older-than 30d --dry-run`,
    );

  runs
    .command('list')
    .description('every run in the state folder: file, target, started, rows, accepted, in doubt, not sent, finished or not')
    .option('--wide', 'full run ids, file paths and targets, a column per count (the table fits 80 columns without it)')
    .option(...JSON_FLAG)
    .option(...QUIET)
    .option(...VERBOSE)
    .action(async (opts: unknown) => {
      const { parseRunsOptions } = await import('./options.js');
      const { runList } = await import('./run.js');
      await runList(ctx, parseRunsOptions(opts));
    });

  const show = runs
    .command('show')
    .description('one run: where it sent, what, its totals, what was delivered, the batches in doubt, how to continue it')
    .argument('<run>', 'run id, journal path, or the CSV file of the run')
    .option(...JSON_FLAG)
    .option(...QUIET)
    .option(...VERBOSE)
    .action(async (run: string, opts: unknown) => {
      const { parseRunsOptions } = await import('./options.js');
      const { runShow } = await import('./run.js');
      await runShow(ctx, run, parseRunsOptions(opts));
    });
  addReceiptOptions(show);

  const report = runs
    .command('report')
    .description("write a run's report: every row with its outcome, the message id of whichever run accepted it, and what its receipts say")
    .argument('<run>', 'run id, journal path, or the CSV file of the run')
    .requiredOption('--report <file>', 'the report to write: .csv or .jsonl')
    .option(...JSON_FLAG)
    .option(...QUIET)
    .option(...VERBOSE)
    .action(async (run: string, opts: unknown) => {
      const { parseRunsOptions } = await import('./options.js');
      const { runReport } = await import('./run.js');
      await runReport(ctx, run, parseRunsOptions(opts));
    });
  addReceiptOptions(report);

  runs
    .command('prune')
    .description('remove finished runs last written longer ago than --older-than (unfinished runs are kept)')
    .requiredOption('--older-than <age>', 'e.g. 30d, 12h, 2w, 90m')
    .option('--dry-run', 'say what would be removed, remove nothing')
    .option(...JSON_FLAG)
    .option(...QUIET)
    .option(...VERBOSE)
    .action(async (opts: unknown) => {
      const { parseRunsOptions } = await import('./options.js');
      const { runPrune } = await import('./run.js');
      await runPrune(ctx, parseRunsOptions(opts));
    });
}
