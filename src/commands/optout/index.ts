// `msgr optout add|remove|list|import|export|check|possible|repair|violations` (docs/optouts.md).
// Commander only: each subcommand is a folder of its own (<sub>/{index,options,run}.ts), whose
// work (the store, libphonenumber-js) loads when it runs; flags.ts, options.ts and shared.ts hold
// what they share.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { registerOptoutAdd } from './add/index.js';
import { registerOptoutCheck } from './check/index.js';
import { registerOptoutExport } from './export/index.js';
import { registerOptoutImport } from './import/index.js';
import { registerOptoutList } from './list/index.js';
import { registerOptoutPossible } from './possible/index.js';
import { registerOptoutRemove } from './remove/index.js';
import { registerOptoutRepair } from './repair/index.js';
import { registerOptoutViolations } from './violations/index.js';

export function registerOptout(program: Command, ctx: Context): void {
  const optout = program
    .command('optout')
    .description('the numbers that must not be messaged, per account: add, remove, list, import, export, check; possible opt-outs; repair; violations')
    .addHelpText(
      'after',
      `
The store is kept per account in the state folder (0600), with when, where from and why each
number was opted out; \`msgr listen --optouts\` adds the senders of replies with a stop word to
it, and keeps replies that may ask to stop as possible opt-outs, which stop every send to their
number until a person decides (\`msgr optout possible\`). \`send\` and \`send-bulk\` leave its
numbers out by default (--include-opted-out --yes sends to them).

Examples:
  msgr optout add +447400900123 --note "asked by phone"
  msgr optout check +447400900123
  msgr optout possible
  msgr optout possible --accept +447400900124 --note "read it: an opt-out"
  msgr optout import unsubscribed.csv --column "Phone Number"
  msgr optout violations
  msgr optout list --json`,
    );
  registerOptoutAdd(optout, ctx);
  registerOptoutRemove(optout, ctx);
  registerOptoutList(optout, ctx);
  registerOptoutImport(optout, ctx);
  registerOptoutExport(optout, ctx);
  registerOptoutCheck(optout, ctx);
  registerOptoutPossible(optout, ctx);
  registerOptoutRepair(optout, ctx);
  registerOptoutViolations(optout, ctx);
}
