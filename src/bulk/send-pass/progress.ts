// Progress while sending (docs/campaign-output.md: "Output"): on a terminal an ora spinner on stderr with
// sent/total, rate, failures and ETA, only when the terminal reports columns > 0 (ora 9 floods a
// 0-column TTY: docs/dependencies.md). Without a TTY nothing until the summary, so cron mails stay
// short, unless --progress-every asks for one plain line per interval, for a log
// (docs/unattended.md); with --verbose (TTY or not) plain lines, every 10 seconds by default.
import { colorLevel, type Context, type OutStream } from '../../context.js';
import { formatCount, formatDuration } from '../../output/count.js';
import { lineWidth, wrap } from '../../output/wrap.js';

export interface ProgressStats {
  /** Recipients with an outcome, this run's and an earlier run's. */
  readonly done: number;
  readonly total: number;
  /** Of those, not accepted (rejected or in doubt). */
  readonly failed: number;
  /** Requests in flight. */
  readonly inFlight: number;
  /** Of `done`, settled by an earlier run (not part of this run's rate). */
  readonly earlier?: number | undefined;
  readonly note?: string | undefined;
}

export interface ProgressOptions {
  readonly quiet: boolean;
  readonly verbose: boolean;
  /** --progress-every, milliseconds: plain lines when stderr is not a terminal. */
  readonly everyMs?: number | undefined;
  readonly now?: () => number;
}

export interface Progress {
  update(stats: ProgressStats): void;
  /** A line for people that must not be garbled by the spinner. */
  log(line: string): void;
  stop(): void;
}

interface Spinner {
  text: string;
  start(): Spinner;
  stop(): Spinner;
  clear(): Spinner;
  render(): Spinner;
}

export async function createProgress(ctx: Context, o: ProgressOptions): Promise<Progress> {
  const now = o.now ?? (() => performance.now());
  const started = now();
  const err: OutStream = ctx.stderr;
  // Fitted to the terminal (output/wrap.ts); whole lines in a log.
  const width = lineWidth(err);
  const write = (line: string): void => {
    err.write(`${wrap(line.endsWith('\n') ? line.slice(0, -1) : line, width)}\n`);
  };
  let last: ProgressStats = { done: 0, total: 0, failed: 0, inFlight: 0 };
  const describe = (s: ProgressStats): string => {
    const rate = runRate(s, (now() - started) / 1000);
    const left = s.total - s.done;
    const eta = rate > 0 && left > 0 ? ` · ETA ${formatDuration(left / rate)}` : '';
    const failed = s.failed > 0 ? ` · ${formatCount(s.failed)} not accepted` : '';
    const note = s.note !== undefined ? ` · ${s.note}` : '';
    return `sent ${formatCount(s.done)}/${formatCount(s.total)} · ${formatCount(Math.round(rate))}/s${failed}${eta}${note}`;
  };

  // --verbose prints request and response lines, which a spinner would garble: plain lines then.
  if (!o.quiet && !o.verbose && err.isTTY === true && (err.columns ?? 0) > 0) {
    const { default: ora } = await import('ora');
    const colour = colorLevel(ctx.env, err) > 0;
    const spinner = ora({
      text: 'sending',
      stream: err as unknown as NodeJS.WritableStream,
      discardStdin: false,
      // NO_COLOR applies to the spinner too.
      ...(colour ? {} : { color: false as const }),
    }) as unknown as Spinner;
    spinner.start();
    let lastRender = 0;
    return {
      update(s) {
        last = s;
        const t = now();
        if (t - lastRender < 100 && s.done < s.total) return;
        lastRender = t;
        // The spinner's frame and a space go before the text.
        spinner.text = wrap(describe(s), width !== undefined ? width - 2 : undefined);
      },
      log(line) {
        spinner.clear();
        write(line);
        spinner.render();
      },
      stop() {
        spinner.stop();
      },
    };
  }

  // Without a spinner: the latest figures kept for a timed line, and each line as it comes.
  const lines: Pick<Progress, 'update' | 'log'> = {
    update(s) {
      last = s;
    },
    log: (line) => {
      if (!o.quiet) write(line);
    },
  };

  // Asked for by name, so shown even with --quiet: -q drops the chatter, not the log's lines.
  if (o.everyMs !== undefined || (o.verbose && !o.quiet)) {
    const plain = o.everyMs !== undefined;
    const timer = setInterval(() => write(plain ? logLine(last, (now() - started) / 1000) : `progress: ${describe(last)}`), o.everyMs ?? 10_000);
    timer.unref();
    return { ...lines, stop: () => clearInterval(timer) };
  }

  return {
    ...lines,
    stop() {
      // Nothing was shown.
    },
  };
}

/**
 * One line for a log: every figure named, nothing that redraws, the same shape on every line so
 * a grep or an alert can read it: `progress: 1,200 accepted, 0 failed, 4 in flight, 3,800 left,
 * 480/s, ETA 0:08`. In flight counts requests; the others count recipients.
 */
export function logLine(s: ProgressStats, seconds: number): string {
  const rate = runRate(s, seconds);
  const left = s.total - s.done;
  const eta = left === 0 ? '0:00' : rate > 0 ? formatDuration(left / rate) : 'unknown';
  const note = s.note !== undefined ? `, ${s.note}` : '';
  return `progress: ${formatCount(s.done - s.failed)} accepted, ${formatCount(s.failed)} failed, ${formatCount(s.inFlight)} in flight, ${formatCount(left)} left, ${formatCount(Math.round(rate))}/s, ETA ${eta}${note}`;
}

/** Recipients per second settled by this run: an earlier run's (--resume) took no time here. */
function runRate(s: ProgressStats, seconds: number): number {
  return seconds > 0 ? (s.done - (s.earlier ?? 0)) / seconds : 0;
}

