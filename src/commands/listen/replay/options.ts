// argv → options for `msgr listen replay`, every refusal naming its flag.
import { UsageError } from '../../../errors.js';
import type { FieldPaths } from '../../../events/fields.js';
import { forwardTarget, type ForwardTarget } from '../../../events/forward.js';
import { durationMs } from '../../../message/request-fields/validity.js';
import { verbosity } from '../../../output/ui.js';
import { bool, list, str, type Raw } from '../../shared/option-values.js';
import { fieldPaths } from '../../shared/field-paths.js';
import type { AccountFlags } from '../options.js';

export interface ReplayOptions extends AccountFlags {
  readonly events?: string | undefined;
  readonly since?: Date | undefined;
  readonly until?: Date | undefined;
  readonly filters: ReadonlyArray<{ readonly key: string; readonly values: readonly string[] }>;
  readonly forwardTo?: ForwardTarget | undefined;
  readonly fields: FieldPaths;
  readonly json: boolean;
  readonly quiet: boolean;
  readonly verbose: boolean;
}

/** `--since 2h` or `--since 2030-01-01T09:00`: a time; an age counts back from now. */
export function parseWhen(flag: string, value: string | undefined, now: Date): Date | undefined {
  if (value === undefined) return undefined;
  const age = durationMs(value);
  if (age !== undefined) return new Date(now.getTime() - age);
  const t = /^\d{4}-\d{2}-\d{2}/.test(value.trim()) ? Date.parse(value.trim()) : Number.NaN;
  if (!Number.isFinite(t)) throw new UsageError(`${flag}: "${value}" is neither a time nor an age`, { hint: 'Give a time (2030-01-01T09:00, local unless it has an offset such as Z) or an age (30m, 2h, 3d).' });
  return new Date(t);
}

export function parseReplayOptions(raw: Raw, now: Date): ReplayOptions {
  const { quiet, verbose } = verbosity({ quiet: bool(raw, 'quiet'), verbose: bool(raw, 'verbose') });
  const filters = (list(raw, 'filter') ?? []).map((f) => {
    const eq = f.indexOf('=');
    const key = eq > 0 ? f.slice(0, eq).trim() : '';
    const values = eq > 0 ? f.slice(eq + 1).split(',').map((v) => v.trim()).filter((v) => v !== '') : [];
    if (key === '' || values.length === 0) throw new UsageError(`--filter: "${f}" is not key=value`, { hint: 'For example --filter status=failed,expired or --filter kind=inbound or --filter data.type=sms.' });
    return { key, values };
  });
  const opts: ReplayOptions = {
    events: str(raw, 'events'),
    since: parseWhen('--since', str(raw, 'since'), now),
    until: parseWhen('--until', str(raw, 'until'), now),
    filters,
    forwardTo: forwardToFlag(str(raw, 'forwardTo')),
    profile: str(raw, 'profile'),
    account: str(raw, 'account'),
    fields: fieldPaths(raw),
    json: bool(raw, 'json') === true,
    quiet,
    verbose,
  };
  if (opts.since !== undefined && opts.until !== undefined && opts.since >= opts.until) throw new UsageError('--since must be earlier than --until');
  return opts;
}

function forwardToFlag(value: string | undefined): ForwardTarget | undefined {
  return value === undefined ? undefined : forwardTarget(value);
}
