// `msgr send-bulk <file>`: Commander wiring only; the work is imported when the command runs
// (start-up time: docs/dependencies.md, "Start-up cost"). No option here is variadic, so nothing swallows <file>.
import { Help, Option, type Command } from 'commander';
import type { Context } from '../../context.js';
import { addConnectionOptions, addMessageOptions, collect } from '../shared/flags.js';
import type { BulkOptions } from './options.js';

/**
 * `runF` replaces the run (tests: argv → options without sending, as gh's commands take one);
 * by default the options go to run.ts.
 */
export function registerSendBulk(program: Command, ctx: Context, runF?: (opts: BulkOptions) => Promise<void>): void {
  const cmd = program
    .command('send-bulk')
    .description("send a message to every row of a CSV file (the same text, or each row's own), in batches, resumably")
    .argument('[file]', "CSV file with a header row ('-' reads stdin)")
    .optionsGroup('Recipients:')
    .option('--msisdn-column <name>', 'the number column (default: the column named so, Mobile, Cell, Handy… over Phone, Tel; where that does not settle it, the run stops)')
    .option('--no-header', 'the first line is a recipient, not a header; columns are named 1, 2, … (the number is column 1)')
    .option('--var-columns <a,b>', 'columns sent as recipients[].variables (default: every other column)')
    .option('--meta-columns <x,y>', 'columns sent as recipients[].metaData')
    .option('--delimiter <char>', "field delimiter: ',', ';', tab (default: detected from the header)")
    .option('--encoding <name>', 'file encoding without a BOM: utf8 (default), latin1, utf16le, utf16be')
    .option('--skip-invalid', 'send the valid rows even when some are invalid (they are reported)')
    .option('--allow-duplicates', 'a number on several rows with different messages gets each of them (default: the run stops; a repeated message is sent once)')
    .option('--first-per-number', 'a number on several rows gets only its first row\'s message (default: the run stops when the messages differ)')
    .option('--fix-mojibake', 'send cells mangled by a spreadsheet round trip (ZoÃ« for Zoë) repaired (default: the rows are invalid)')
    .option('--exclude <file>', 'numbers not to send to: one per line, or a CSV with a number column; each must be a number')
    .option('--exclude-column <name>', 'the number column of a CSV --exclude list')
    .optionsGroup('Sending:')
    .option('--batch-size <n>', 'recipients per request, 1 to 10000 (default 100)')
    .option('--concurrency <n>', 'requests in flight (default 4)')
    .option('--rate <n/unit>', 'at most this many recipients per s, m or h, evenly spread (e.g. 100/s, 3000/m)')
    .optionsGroup("When (on the recipient's clock):")
    .option('--window <[days:]HH:MM-HH:MM>', "send only inside this window of each recipient's local time, e.g. 08:00-21:00, mon-fri:09:00-20:00 (repeatable; default: the profile's window)", collect)
    .option('--tz <zone>', "whose clock --window is read on: an IANA zone (Europe/Paris), column:NAME (each row's zone, from a column), or auto: the zones of each number's region, or its country's where the numbering plan places it in none (default)")
    .option('--any-time', "send at any hour, setting aside the profile's window for this run")
    .option('--not-before <time>', 'send nothing before this time: ISO 8601 (2026-12-11T09:00:00-05:00) or a duration from now (2h)')
    .option('--stop-at <time>', 'a deadline: rows not sent by then are not sent (deadline); ISO 8601 or a duration from now (8h)')
    .option('--exit-when-closed', 'while the window is closed, stop (exit 8) with the command that resumes the run, instead of waiting (for cron)')
    .optionsGroup('Runs and reports:')
    .option('--report <file>', 'write every row\'s outcome to a .csv or .jsonl file')
    .option('--progress-every <duration>', 'when stderr is not a terminal, one progress line per interval (e.g. 30s, 5m)')
    .option('--journal <path>', 'the run journal (default: in the msgr state folder, per input file)')
    .option('--resume', 'continue the unfinished run of this file: accepted rows are never sent again')
    .option('--resend-in-doubt', 'with --resume: send batches whose outcome is unknown again, with their original Idempotency-Key; with --restart: send to the rows the abandoned run left in doubt again')
    .option('--skip-in-doubt', 'with --restart: leave out the rows the abandoned run left in doubt, as if accepted (after checking that they arrived)')
    .option('--restart', 'abandon the unfinished run of this file and start a new one (leaving out the rows it accepted)')
    .option('--include-sent', 'with --restart: send to the rows the abandoned run accepted as well')
    .addOption(new Option('--skip-sent [run]', 'leave out every number earlier runs of this file accepted for the same message (or those of this run: id or journal; repeatable)').preset('').argParser(collect))
    .option('--delivered-only', "with --skip-sent: only numbers whose receipts say delivered count as sent (a follow-up to those not reached; refused while receipts are pending)")
    .option('--again', 'send to numbers earlier runs of this file accepted, again, on purpose')
    .option('--once <key>', 'a campaign key: a later command with it continues this run, or says it is done (per account)')
    .option('--same-data', 'with --once: the input is, on purpose, the same data as an earlier run under another key (without it, that stops the run: a file nobody replaced)');
  // After the message flags they refine, before the connection's.
  addMessageOptions(cmd)
    .optionsGroup('Messages per row:')
    .option('--no-render', 'send the text as written: {{placeholders}} not filled in, the columns as recipients[].variables')
    .option('--text-column <name>', "each row's message from this column (sent as it is)")
    .option('--from-column <name>', "each row's sender from this column")
    .option('--max-parts <n>', 'rows whose message takes more SMS parts are invalid')
    .optionsGroup('Previews and samples:')
    .option('--preview [n]', 'print the first n rendered messages (default 5); send nothing')
    .option('--sample-to <number>', "send the first rows' messages to this number instead (repeatable), then stop", collect)
    .option('--sample <n>', 'with --sample-to: how many rows (default 1)')
    .optionsGroup('Canary and cost:')
    .option('--limit <n>', 'send the first n rows to send for real, then stop with the command that sends the rest (whole requests)')
    .option('--gsm-safe', 'replace look-alikes in the text (’ ‘ “ ” – — … no-break space) with GSM-7 characters before counting and sending')
    .option('--mobile-only', 'leave out numbers the numbering plan types as fixed line, toll-free, premium rate, shared cost, UAN or voicemail (reported as filtered)')
    .option('--price-file <file>', 'your prices per SMS part (CSV: country code or E.164 prefix, price, currency): the preflight estimates the cost')
    .option('--max-cost <amount>', 'with --price-file: refuse to start when the estimate is higher (e.g. 250, or 250 EUR)');
  addConnectionOptions(cmd, { webhook: true });
  // `--skip-sent` alone is given as '' (Commander's preset), which is no help to a reader.
  cmd.configureHelp({
    ...cmd.configureHelp(),
    optionDescription(option) {
      return Help.prototype.optionDescription.call(this, option).replace(' (preset: "")', '');
    },
  });
  cmd.addHelpText(
    'after',
    `
Placeholders: {{column}} is replaced by each row's value, {{column|default}} when it is empty;
\\{{ is a literal {{. A row whose value is empty without a default is invalid.

Every row is checked before the first request; one invalid row stops the run (exit 2) unless
--skip-invalid. The journal records each batch before and after it is sent, so after Ctrl-C, a
crash or kill -9, --resume continues without sending any accepted row again.

A file run again (the same path, or the same data under another name) whose earlier runs
accepted some of its numbers stops before sending (exit 2) until the command says what it means:
--skip-sent leaves those numbers out (the list grew: only the new rows), --again messages them
again on purpose (a reminder to the same list). --once KEY names the campaign: a later command
with the key continues its unfinished run, or says "already done" (exit 0), from any path.

Examples:
  msgr send-bulk customers.csv --from Acme --text 'Your order has shipped' --dry-run
  msgr send-bulk customers.csv --from Acme --text 'Hi {{first_name|there}}, see you {{date}}' --preview
  msgr send-bulk customers.csv --from Acme --text-column message --sample-to +447911123456
  msgr send-bulk customers.csv --template spring_sale --report out.csv
  msgr send-bulk list.csv --from Acme --text 'Hi' --rate 300/m --batch-size 50
  msgr send-bulk customers.csv --resume
  msgr send-bulk customers.csv --from Acme --text 'Spring sale: 20% off' --skip-sent
  msgr send-bulk patients.csv --from Clinic --text-file reminder.txt --again
  msgr send-bulk today.csv --once "reminders-$(date +%F)" --from Clinic --text-file reminder.txt --again --yes -q
  msgr send-bulk customers-v2.csv --from Acme --text 'Your order has shipped' --skip-sent 20261121T161500Z-3fa9c2d1
  msgr send-bulk customers.csv --from Acme --text 'Spring sale: 20% off' --skip-sent --delivered-only
  cat numbers.csv | msgr send-bulk - --from Acme --text 'Hello' --yes`,
  );
  cmd.action(async (file: string | undefined, _opts: unknown, command: Command) => {
    // Before anything is read, stdin included: a big send starts again with less memory (./heap.ts).
    if (runF === undefined) (await import('./heap.js')).reexecForMemory(ctx, file, command.opts());
    const { parseBulkOptions } = await import('./options.js');
    const opts = parseBulkOptions(file, command.opts());
    if (runF !== undefined) return runF(opts);
    const { runSendBulk } = await import('./run.js');
    await runSendBulk(ctx, opts);
  });
}
