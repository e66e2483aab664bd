// `msgr segments [text]`: how a text would travel as SMS. Commander only; the work loads when
// the command runs.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import type { SegmentsOptions } from './options.js';

/** `runF` replaces the run (tests: argv → options); by default the options go to run.ts. */
export function registerSegments(program: Command, ctx: Context, runF?: (opts: SegmentsOptions) => Promise<void>): void {
  program
    .command('segments')
    .description('show how a text travels as SMS: encoding, length, parts, and what forces UCS-2')
    .argument('[text]', 'the message text (else --text-file, or piped on stdin)')
    .option('--text-file <path>', "read the text from a file ('-' for stdin)")
    .option('--text-encoding <name>', 'encoding of the text file or piped text without a BOM: utf8 (default), latin1, utf16le, utf16be')
    .option('--json', 'print one JSON document on stdout')
    .option('-q, --quiet', 'print nothing on stderr but warnings and errors')
    .option('-v, --verbose', 'show stack traces on errors')
    .addHelpText(
      'after',
      `
Nothing is sent and no profile is needed. The text is counted exactly as send and send-bulk
would send it (the line breaks and blank lines at the end of a file or of piped text are dropped).

Examples:
  msgr segments 'Your order has shipped'
  msgr segments --text-file notice.txt
  echo 'It’s ready – come by' | msgr segments --json`,
    )
    .action(async (text: string | undefined, _opts: unknown, command: Command) => {
      const { parseSegmentsOptions } = await import('./options.js');
      const opts = parseSegmentsOptions(text, command.opts());
      if (runF !== undefined) return runF(opts);
      const { runSegments } = await import('./run.js');
      await runSegments(ctx, opts);
    });
}
