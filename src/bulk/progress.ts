// Progress while sending (issue: "Output"): on a terminal an ora spinner on stderr with
// sent/total, rate, failures and ETA, only when the terminal reports columns > 0 (ora 9 floods a
// 0-column TTY: engineering-notes). Without a TTY nothing until the summary, so cron stays quiet;
// with --verbose (TTY or not) a plain line every 10 seconds instead of the spinner.
import { colorLevel, type Context, type OutStream } from '../context.js';

export interface ProgressStats {
  readonly done: number;
  readonly total: number;
  readonly failed: number;
  readonly inFlight: number;
  readonly note?: string | undefined;
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

export async function createProgress(ctx: Context, o: { quiet: boolean; verbose: boolean; now?: () => number }): Promise<Progress> {
  const now = o.now ?? (() => performance.now());
  const started = now();
  const err: OutStream = ctx.stderr;
  const write = (line: string): void => {
    err.write(line.endsWith('\n') ? line : `${line}\n`);
  };
  let last: ProgressStats = { done: 0, total: 0, failed: 0, inFlight: 0 };
  const describe = (s: ProgressStats): string => {
    const secs = (now() - started) / 1000;
    const rate = secs > 0 ? s.done / secs : 0;
    const left = s.total - s.done;
    const eta = rate > 0 && left > 0 ? ` · ETA ${formatDuration(left / rate)}` : '';
    const failed = s.failed > 0 ? ` · ${fmt(s.failed)} not accepted` : '';
    const note = s.note !== undefined ? ` · ${s.note}` : '';
    return `sent ${fmt(s.done)}/${fmt(s.total)} · ${fmt(Math.round(rate))}/s${failed}${eta}${note}`;
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
        spinner.text = describe(s);
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

  if (o.verbose && !o.quiet) {
    const timer = setInterval(() => write(`progress: ${describe(last)}`), 10_000);
    timer.unref();
    return {
      update(s) {
        last = s;
      },
      log: write,
      stop() {
        clearInterval(timer);
      },
    };
  }

  return {
    update(s) {
      last = s;
    },
    log: (line) => {
      if (!o.quiet) write(line);
    },
    stop() {
      // Nothing was shown.
    },
  };
}

export function fmt(n: number): string {
  return n.toLocaleString('en-US');
}

export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${String(sec).padStart(2, '0')}` : `${m}:${String(sec).padStart(2, '0')}`;
}
