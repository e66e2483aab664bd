// Throttling for bulk sends (docs/campaigns.md: "Sending"): a rate limiter in recipients per time unit, a
// gate that pauses every worker when the server answers 429, and a concurrency window that
// halves on 429 and grows back one step at a time (additive increase, multiplicative decrease).
import type { Rate } from '../campaign.js';

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Resolves after `ms`, or at once when the signal aborts (never rejects). */
export const sleep: Sleep = (ms, signal) =>
  new Promise((resolve) => {
    if (ms <= 0 || signal?.aborted === true) {
      resolve();
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * Virtual scheduling (GCRA with a tolerance of one share): batch k starts at k shares from the
 * first, so the long-run rate is exact however timers drift, and a pause (429) does not turn
 * into a burst afterwards.
 */
export class RateLimiter {
  #perMs: number;
  #next = 0;
  readonly #now: () => number;
  readonly #sleep: Sleep;

  constructor(rate: Rate, now: () => number = () => performance.now(), sleeper: Sleep = sleep) {
    this.#perMs = rate.perMs;
    this.#now = now;
    this.#sleep = sleeper;
  }

  get perMs(): number {
    return this.#perMs;
  }

  /** Slows the rate down (429): never below 1 recipient a minute. */
  slowDown(factor: number): void {
    this.#perMs = Math.max(1 / 60_000, this.#perMs * factor);
  }

  /** Starts the schedule again from now (after the first request warmed the connection up). */
  restart(): void {
    this.#next = this.#now();
  }

  async take(n: number, signal?: AbortSignal): Promise<void> {
    const now = this.#now();
    const share = n / this.#perMs;
    // A timer that fires a little late must not shift every later batch (the rate would sag by
    // the sum of the delays); more than one share behind is a pause (429, a slow server), and
    // catching up after it would be a burst.
    if (now - this.#next > share) this.#next = now;
    const start = Math.max(now, this.#next);
    this.#next += share;
    if (start > now) await this.#sleep(start - now, signal);
  }
}

/** Holds every worker until a time: the server's Retry-After applies to the whole run. */
export class Gate {
  #until = 0;
  readonly #now: () => number;
  readonly #sleep: Sleep;

  constructor(now: () => number = () => performance.now(), sleeper: Sleep = sleep) {
    this.#now = now;
    this.#sleep = sleeper;
  }

  pauseFor(ms: number): void {
    this.#until = Math.max(this.#until, this.#now() + ms);
  }

  get pausedFor(): number {
    return Math.max(0, this.#until - this.#now());
  }

  async wait(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const left = this.#until - this.#now();
      if (left <= 0 || signal?.aborted === true) return;
      await this.#sleep(left, signal);
    }
  }
}

/** A semaphore whose size adapts: halves on throttling, +1 after a window of successes. */
export class Window {
  #limit: number;
  readonly #max: number;
  #active = 0;
  #streak = 0;
  readonly #waiters: Array<() => void> = [];

  constructor(max: number) {
    this.#max = max;
    this.#limit = max;
  }

  get limit(): number {
    return this.#limit;
  }

  get active(): number {
    return this.#active;
  }

  async acquire(signal?: AbortSignal): Promise<boolean> {
    while (this.#active >= this.#limit) {
      if (signal?.aborted === true) return false;
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          signal?.removeEventListener('abort', wake);
          resolve();
        };
        this.#waiters.push(wake);
        signal?.addEventListener('abort', wake, { once: true });
      });
    }
    if (signal?.aborted === true) return false;
    this.#active++;
    return true;
  }

  release(): void {
    this.#active--;
    this.#wake();
  }

  throttled(): void {
    this.#limit = Math.max(1, Math.floor(this.#limit / 2));
    this.#streak = 0;
  }

  succeeded(): void {
    if (this.#limit >= this.#max) return;
    this.#streak++;
    if (this.#streak >= this.#limit * 2) {
      this.#limit++;
      this.#streak = 0;
      this.#wake();
    }
  }

  /** Resolves when nothing is in flight. */
  async idle(): Promise<void> {
    while (this.#active > 0) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  #wake(): void {
    const waiters = this.#waiters.splice(0);
    for (const w of waiters) w();
  }
}
