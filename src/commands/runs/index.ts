// `msgr runs list|show|report|prune`: the bulk runs msgr keeps. Commander wiring only; each
// subcommand is a folder of its own (<sub>/{index,options,run}.ts), whose work is imported when
// it runs; flags.ts and shared.ts hold what they share.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { registerRunsList } from './list/index.js';
import { registerRunsPrune } from './prune/index.js';
import { registerRunsReport } from './report/index.js';
import { registerRunsShow } from './show/index.js';

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

  registerRunsList(runs, ctx);
  registerRunsShow(runs, ctx);
  registerRunsReport(runs, ctx);
  registerRunsPrune(runs, ctx);
}
