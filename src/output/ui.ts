// Messages for people, on stderr. stdout is reserved for data (cli-contract: Output).
import { Chalk, type ChalkInstance } from 'chalk';
import { colorLevel, type Context } from '../context.js';

export interface UiOptions {
  quiet?: boolean | undefined;
  verbose?: boolean | undefined;
}

export interface Ui {
  readonly color: ChalkInstance;
  readonly verbose: boolean;
  readonly quiet: boolean;
  /** Normal progress and results for people; hidden by --quiet. */
  info(line: string): void;
  /** Warnings; shown even with --quiet (they are about what was sent). */
  warn(line: string): void;
  /** Only with --verbose. */
  debug(line: string): void;
  /** A success line with a tick; hidden by --quiet. */
  success(line: string): void;
}

export function createUi(ctx: Context, options: UiOptions = {}): Ui {
  const color = new Chalk({ level: colorLevel(ctx.env, ctx.stderr) });
  const quiet = options.quiet === true;
  const verbose = options.verbose === true && !quiet;
  const out = (line: string): void => {
    ctx.stderr.write(line.endsWith('\n') ? line : `${line}\n`);
  };
  return {
    color,
    verbose,
    quiet,
    info: (line) => {
      if (!quiet) out(line);
    },
    warn: (line) => out(`${color.yellow('warning:')} ${line}`),
    debug: (line) => {
      if (verbose) out(color.dim(line));
    },
    success: (line) => {
      if (!quiet) out(`${color.green(color.level > 0 ? '✔' : 'ok:')} ${line}`);
    },
  };
}
