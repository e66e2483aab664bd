// `msgr optout add|remove|list|import|export|check|possible|repair|violations` (docs/optouts.md). Commander only: the store
// and libphonenumber-js load when a subcommand runs.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import type { OptoutOptions } from './options.js';

type Sub = 'add' | 'remove' | 'list' | 'import' | 'export' | 'check' | 'possible' | 'repair' | 'violations';

function common(cmd: Command, json = '--json'): Command {
  return cmd
    .option('-p, --profile <name>', 'profile whose account to use (env MSGR_PROFILE; else the default profile)')
    .option('--account <ref>', 'accountReference (env MSGR_ACCOUNT_REFERENCE)')
    .option('--all-accounts', 'the store for every account (its numbers are left out of every account\'s sends)')
    .option(json, 'one JSON document on stdout')
    .option('-q, --quiet', 'print nothing on stderr but warnings and errors')
    .option('-v, --verbose', 'show stack traces on errors');
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), ...value.split(',').map((v) => v.trim()).filter((v) => v !== '')];
}

export function registerOptout(program: Command, ctx: Context, runF?: (sub: Sub, args: string[], opts: OptoutOptions) => Promise<void>): void {
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
  const act = (sub: Sub) => async (...params: unknown[]): Promise<void> => {
    const command = params[params.length - 1] as Command;
    const args = params.slice(0, -2).flatMap((a) => (Array.isArray(a) ? (a as string[]) : typeof a === 'string' ? [a] : []));
    const { parseOptoutOptions } = await import('./options.js');
    const opts = parseOptoutOptions(sub, command.opts());
    if (runF !== undefined) return runF(sub, args, opts);
    const { runOptout } = await import('./run.js');
    await runOptout(ctx, sub, args, opts);
  };
  common(
    optout
      .command('add')
      .description('opt numbers out (a number already out is left as it is)')
      .argument('<number...>', 'numbers, international (+44…) or national with --default-country')
      .option('--source <name>', 'where the opt-out came from (default manual)')
      .option('--note <text>', 'evidence: what was said, by whom, where')
      .option('--undeliverable', 'the number cannot be reached (rather than: the person asked)')
      .option('--default-country <CC>', 'ISO country code for national numbers (env MSGR_DEFAULT_COUNTRY)'),
  ).action(act('add'));
  common(
    optout
      .command('remove')
      .description('take numbers off the store: they may be messaged again')
      .argument('<number...>', 'numbers')
      .option('--note <text>', 'why (kept in the store\'s history)')
      .option('--default-country <CC>', 'ISO country code for national numbers'),
  ).action(act('remove'));
  common(optout.command('list').description('every number opted out: since when, why, where from, the evidence')).action(act('list'));
  common(
    optout
      .command('import')
      .description('add the numbers of a file: one a line, a CSV with a number column, or an export in JSON lines')
      .argument('<file>', 'the file')
      .option('--column <name>', 'the number column of a CSV')
      .option('--source <name>', 'where these opt-outs came from (default import)')
      .option('--note <text>', 'evidence for all of them')
      .option('--default-country <CC>', 'ISO country code for national numbers'),
  ).action(act('import'));
  common(
    optout
      .command('export')
      .description('print the numbers opted out (for send-bulk --exclude), or write them to a file')
      .option('--format <format>', 'list (one number a line; default), csv or jsonl')
      .option('--out <file>', 'write to this file (0600) instead of stdout'),
  ).action(act('export'));
  common(
    optout
      .command('check')
      .description('whether numbers may be messaged: opted out (with since when and why) or not')
      .argument('<number...>', 'numbers')
      .option('--default-country <CC>', 'ISO country code for national numbers'),
  ).action(act('check'));
  common(
    optout
      .command('possible')
      .description('replies that may ask to stop, kept until a person decides; --accept makes them opt-outs, --dismiss keeps the numbers messageable (one step)')
      .option('--accept <number...>', 'these possible opt-outs are opt-outs (repeatable, comma lists allowed)', collect)
      .option('--dismiss <number...>', 'these are not: sends to the numbers go on (repeatable, comma lists allowed)', collect)
      .option('--note <text>', 'why (kept with the decision)')
      .option('--default-country <CC>', 'ISO country code for national numbers'),
  ).action(act('possible'));
  common(
    optout
      .command('repair')
      .description('a store with lines that are not records: numbers typed on such lines become opt-outs, other lines are set aside in a file beside it (the store as it was is kept too)')
      .option('--default-country <CC>', 'ISO country code for national numbers typed in the store'),
  ).action(act('repair'));
  common(
    optout
      .command('violations')
      .description("anyone messaged after opting out: the runs' accepted rows and send --once messages, checked against the store as it was when each left (exit 0 either way; nothing on stdout when there are none)")
      .option('--sandbox', "check the sandbox's runs and --once messages instead of the real ones"),
  ).action(act('violations'));
}
