// argv → options for `msgr runs prune`.
import { UsageError } from '../../../errors.js';
import { bool, str, type Raw } from '../../shared/option-values.js';
import { parseOutputOptions, type OutputOptions } from '../shared.js';

export interface PruneOptions extends OutputOptions {
  /** Milliseconds. */
  readonly olderThanMs?: number | undefined;
  readonly dryRun: boolean;
}

export function parsePruneOptions(raw: unknown): PruneOptions {
  const r = raw as Raw;
  const age = str(r, 'olderThan');
  const olderThanMs = age !== undefined ? parseAge(age) : undefined;
  if (age !== undefined && olderThanMs === undefined) {
    throw new UsageError(`--older-than: "${age}" is not an age`, { hint: 'Give minutes, hours, days or weeks: 90m, 12h, 30d, 2w.' });
  }
  return { ...parseOutputOptions(r), olderThanMs, dryRun: bool(r, 'dryRun') ?? false };
}

/** `30d`, `12h`, `2w`, `90m` → milliseconds. */
export function parseAge(text: string): number | undefined {
  const m = /^(\d+)\s*(m|min|h|d|w)$/i.exec(text.trim());
  if (m === null) return undefined;
  const unit = (m[2] ?? 'd').toLowerCase();
  const ms = { m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[unit] ?? 86_400_000;
  return Number(m[1]) * ms;
}
