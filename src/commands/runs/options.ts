// argv → options for `msgr runs`.
import { UsageError } from '../../errors.js';
import type { FieldPaths } from '../../events/fields.js';
import { bool, list, str, type Raw } from '../shared/option-values.js';
import { fieldPaths } from '../shared/field-paths.js';

export interface RunsOptions {
  readonly json: boolean;
  readonly quiet: boolean;
  readonly verbose: boolean;
  readonly report?: string | undefined;
  /** prune: milliseconds. */
  readonly olderThanMs?: number | undefined;
  readonly dryRun: boolean;
  /** list: full run ids, paths and targets, every count. */
  readonly wide: boolean;
  /** show, report: events files saved elsewhere (default: the listener's for the run's account). */
  readonly events?: readonly string[] | undefined;
  /** show, report: where a receipt's fields are, when the usual names miss them. */
  readonly fields: FieldPaths;
}

export function parseRunsOptions(raw: unknown): RunsOptions {
  const r = raw as Raw;
  const age = str(r, 'olderThan');
  const olderThanMs = age !== undefined ? parseAge(age) : undefined;
  if (age !== undefined && olderThanMs === undefined) {
    throw new UsageError(`--older-than: "${age}" is not an age`, { hint: 'Give minutes, hours, days or weeks: 90m, 12h, 30d, 2w.' });
  }
  return {
    json: bool(r, 'json') ?? false,
    quiet: bool(r, 'quiet') ?? false,
    verbose: bool(r, 'verbose') ?? false,
    report: str(r, 'report'),
    olderThanMs,
    dryRun: bool(r, 'dryRun') ?? false,
    wide: bool(r, 'wide') ?? false,
    events: list(r, 'events'),
    fields: fieldPaths(r),
  };
}

/** `30d`, `12h`, `2w`, `90m` → milliseconds. */
export function parseAge(text: string): number | undefined {
  const m = /^(\d+)\s*(m|min|h|d|w)$/i.exec(text.trim());
  if (m === null) return undefined;
  const unit = (m[2] ?? 'd').toLowerCase();
  const ms = { m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[unit] ?? 86_400_000;
  return Number(m[1]) * ms;
}
