// Messages for people, on stderr. stdout is reserved for data (docs/contract.md: "Streams").
import { Chalk, type ChalkInstance } from 'chalk';
import { colorLevel, type Context } from '../context.js';
import { UsageError } from '../errors.js';
import { lineWidth, wrap } from './wrap.js';

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

/**
 * chalk at the given level. Without colour (a pipe, a cron job, NO_COLOR) every style is the
 * identity and chalk is never loaded: it reads the terminal's capabilities (tty, os) when it loads,
 * which a run that cannot show colour does not need to pay for (docs/performance.md).
 */
export function paint(level: 0 | 1 | 2 | 3): ChalkInstance {
  if (level > 0) return new Chalk({ level });
  const plain = (...text: unknown[]): string => text.join(' ');
  const instance: ChalkInstance = new Proxy(plain, { get: (_target, key) => (key === 'level' ? 0 : instance) }) as unknown as ChalkInstance;
  return instance;
}

/**
 * The one -q/-v rule of every command: either alone, never both (they ask for opposite things,
 * and a silent winner would hide what the user asked for).
 */
export function verbosity(options: UiOptions): { quiet: boolean; verbose: boolean } {
  const quiet = options.quiet === true;
  const verbose = options.verbose === true;
  if (quiet && verbose) {
    throw new UsageError('--quiet and --verbose cannot be used together', { hint: 'Give one: -q prints only warnings and errors; -v adds requests, responses and stack traces.' });
  }
  return { quiet, verbose };
}

export function createUi(ctx: Context, options: UiOptions = {}): Ui {
  const color = paint(colorLevel(ctx.env, ctx.stderr));
  const { quiet, verbose } = verbosity(options);
  // Fitted to the terminal; whole lines on a pipe or in a log (output/wrap.ts).
  const width = lineWidth(ctx.stderr);
  const out = (line: string): void => {
    const text = line.endsWith('\n') ? line.slice(0, -1) : line;
    ctx.stderr.write(`${wrap(text, width)}\n`);
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

/** How a graceful stop is named to people: "interrupted" for Ctrl-C, "SIGTERM received" else. */
export function stopName(reason: unknown): string {
  return reason === 'SIGINT' || typeof reason !== 'string' ? 'interrupted' : `${reason} received`;
}

/** How to stop at once after `reason`: SIGTERM and SIGHUP (however often) never do. */
export function quitAtOnce(reason: unknown): string {
  return reason === 'SIGINT' || typeof reason !== 'string' ? 'Ctrl-C again to quit at once' : 'a SIGINT (Ctrl-C) quits at once';
}
