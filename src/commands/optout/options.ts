// argv → options for `msgr optout …`.
import { UsageError } from '../../errors.js';
import { verbosity } from '../../output/ui.js';
import { bool, list, str, type Raw } from '../shared/option-values.js';

export type ExportFormat = 'list' | 'csv' | 'jsonl';

export interface OptoutOptions {
  readonly profile?: string | undefined;
  readonly account?: string | undefined;
  readonly allAccounts: boolean;
  readonly source?: string | undefined;
  readonly note?: string | undefined;
  readonly undeliverable: boolean;
  readonly defaultCountry?: string | undefined;
  readonly column?: string | undefined;
  readonly format: ExportFormat;
  readonly out?: string | undefined;
  readonly json: boolean;
  /** possible: the numbers whose possible opt-outs are accepted, or dismissed. */
  readonly accept: readonly string[];
  readonly dismiss: readonly string[];
  /** violations: the sandbox's runs instead of the real ones. */
  readonly sandbox: boolean;
  readonly quiet: boolean;
  readonly verbose: boolean;
}

export function parseOptoutOptions(sub: string, raw: Raw): OptoutOptions {
  const { quiet, verbose } = verbosity({ quiet: bool(raw, 'quiet'), verbose: bool(raw, 'verbose') });
  const format = str(raw, 'format') ?? 'list';
  if (format !== 'list' && format !== 'csv' && format !== 'jsonl') throw new UsageError(`--format: "${format}" is not list, csv or jsonl`, { hint: 'list is one number a line, what send-bulk --exclude reads.' });
  const opts: OptoutOptions = {
    profile: str(raw, 'profile'),
    account: str(raw, 'account'),
    allAccounts: bool(raw, 'allAccounts') === true,
    source: str(raw, 'source'),
    note: str(raw, 'note'),
    undeliverable: bool(raw, 'undeliverable') === true,
    defaultCountry: str(raw, 'defaultCountry'),
    column: str(raw, 'column'),
    format,
    out: str(raw, 'out'),
    json: bool(raw, 'json') === true,
    sandbox: bool(raw, 'sandbox') === true,
    accept: list(raw, 'accept') ?? [],
    dismiss: list(raw, 'dismiss') ?? [],
    quiet,
    verbose,
  };
  if (opts.allAccounts && opts.account !== undefined) throw new UsageError('--all-accounts and --account cannot be used together', { hint: '--all-accounts is the store whose numbers every account leaves out.' });
  if (opts.source !== undefined && !/^[\w .:/-]{1,64}$/.test(opts.source)) throw new UsageError(`--source: "${opts.source}" must be 1 to 64 letters, digits, spaces or . : / - _`);
  const both = opts.accept.find((n) => opts.dismiss.includes(n));
  if (both !== undefined) throw new UsageError(`${both} is given to both --accept and --dismiss`, { hint: 'Decide once for each number.' });
  if (sub === 'export' && opts.json && opts.format !== 'list') throw new UsageError('--json and --format cannot be used together', { hint: '--json prints one document; --format jsonl prints one line per number.' });
  return opts;
}
