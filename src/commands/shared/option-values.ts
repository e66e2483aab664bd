// Typed values from commander's option bag, each error naming the flag. Shared by the run
// modules of every command; hand-written rather than zod because this runs on every send and
// zod's import alone would cost more than the rest of a dry run (docs/performance.md; docs/design.md).
import { UsageError } from '../../errors.js';
import { formatCount } from '../../output/count.js';

export type Raw = Readonly<Record<string, unknown>>;

export function flagName(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

export function str(raw: Raw, key: string): string | undefined {
  const v = raw[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new UsageError(`${flagName(key)}: expected a value`);
  return v;
}

export function bool(raw: Raw, key: string): boolean | undefined {
  const v = raw[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') throw new UsageError(`${flagName(key)} takes no value`);
  return v;
}

export function list(raw: Raw, key: string): string[] | undefined {
  const v = raw[key];
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || !v.every((x): x is string => typeof x === 'string')) throw new UsageError(`${flagName(key)}: expected values`);
  return v;
}

/** Seconds (fractions allowed) to milliseconds; 30 s by default. */
export function parseTimeout(value: string | undefined): number {
  if (value === undefined) return 30_000;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0 || n > 3600) {
    throw new UsageError(`--timeout: "${value}" is not a number of seconds between 0 and 3600`);
  }
  return Math.round(n * 1000);
}

export function int(raw: Raw, key: string, min: number, max: number): number | undefined {
  const v = str(raw, key);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!/^\s*\d+\s*$/.test(v) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${flagName(key)}: "${v}" is not a whole number from ${min} to ${formatCount(max)}`);
  }
  return n;
}

/** A campaign key is a name, not a document: long enough for `reminders-2026-11-28` or an order id with a suffix. */
export const MAX_ONCE_KEY = 200;

/** `--once KEY` (send, send-bulk; src/once/keys.ts): not empty, on one line, at most MAX_ONCE_KEY characters. */
export function onceKey(raw: Raw): string | undefined {
  const key = str(raw, 'once');
  if (key === undefined) return undefined;
  if (key.trim() === '') throw new UsageError('--once: give a key (e.g. --once "reminders-$(date +%F)")', { hint: 'A key names one campaign or message: a later command with the same key sends nothing twice.' });
  if (key.length > MAX_ONCE_KEY) throw new UsageError(`--once: the key is ${key.length} characters long; at most ${MAX_ONCE_KEY}`);
  if (/[\u0000-\u001f\u007f]/.test(key)) throw new UsageError('--once: the key has a control character (a line break, a tab); give it on one line');
  return key;
}
