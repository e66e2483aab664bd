// The one place errors become text and exit codes (docs/design.md: "The flow"; a command throws, main.ts catches once).
import { colorLevel, type Context } from '../context.js';
import { errorDocument, ExitCode, MsgrError } from '../errors.js';
import { showControls } from './sanitize.js';
import { paint } from './ui.js';
import { lineWidth, wrap } from './wrap.js';

/** Where bugs are reported: package.json's `bugs`. */
export const ISSUES_URL = 'https://github.com/msgr-cli/msgr/issues';

export interface ReportOptions {
  verbose: boolean;
  json: boolean;
}

export function reportError(ctx: Context, err: unknown, options: ReportOptions): number {
  const color = paint(colorLevel(ctx.env, ctx.stderr));
  const width = lineWidth(ctx.stderr);
  if (err instanceof MsgrError) {
    if (options.json) ctx.stdout.write(`${JSON.stringify(err.toJson(), null, 2)}\n`);
    // An error may quote what a server, a file or an event said: made visible, on a terminal or
    // in a log that is read on one later.
    const message = showControls(err.message);
    ctx.stderr.write(`${wrap(`${color.red('error:')} ${message}`, width)}\n`);
    if (err.hint !== undefined) ctx.stderr.write(`${wrap(`${color.dim('hint:')} ${err.hint}`, width)}\n`);
    if (options.verbose && err.stack !== undefined) ctx.stderr.write(`${color.dim(err.stack)}\n`);
    return err.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  if (options.json) {
    ctx.stdout.write(`${JSON.stringify(errorDocument(message, `This is a bug in msgr; please report it at ${ISSUES_URL}`, ExitCode.INTERNAL), null, 2)}\n`);
  }
  ctx.stderr.write(`${wrap(`${color.red('internal error:')} ${showControls(message)}`, width)}\n`);
  if (options.verbose && err instanceof Error && err.stack !== undefined) {
    ctx.stderr.write(`${color.dim(err.stack)}\n`);
  } else {
    ctx.stderr.write('Run again with --verbose for details.\n');
  }
  ctx.stderr.write(`${wrap(`This is a bug in msgr; please report it at ${ISSUES_URL} with the output of --verbose (it never shows your API key).`, width)}\n`);
  return ExitCode.INTERNAL;
}
