// argv → the options every subcommand of `msgr optout` takes (flags.ts): whose store, and the
// output. Each subcommand's own are in <sub>/options.ts.
import { UsageError } from '../../errors.js';
import { verbosity } from '../../output/ui.js';
import { bool, str, type Raw } from '../shared/option-values.js';

export interface StoreOptions {
  readonly profile?: string | undefined;
  readonly account?: string | undefined;
  readonly allAccounts: boolean;
  /** Read by the subcommands that take --default-country; undefined for the others. */
  readonly defaultCountry?: string | undefined;
  readonly json: boolean;
  readonly quiet: boolean;
  readonly verbose: boolean;
}

/** The options, unchecked: a subcommand checks its own first where they must come first (export's --format). */
export function readStoreOptions(raw: Raw): StoreOptions {
  const { quiet, verbose } = verbosity({ quiet: bool(raw, 'quiet'), verbose: bool(raw, 'verbose') });
  return {
    profile: str(raw, 'profile'),
    account: str(raw, 'account'),
    allAccounts: bool(raw, 'allAccounts') === true,
    defaultCountry: str(raw, 'defaultCountry'),
    json: bool(raw, 'json') === true,
    quiet,
    verbose,
  };
}

export function checkStoreOptions(opts: StoreOptions): void {
  if (opts.allAccounts && opts.account !== undefined) throw new UsageError('--all-accounts and --account cannot be used together', { hint: '--all-accounts is the store whose numbers every account leaves out.' });
}

export function parseStoreOptions(raw: Raw): StoreOptions {
  const opts = readStoreOptions(raw);
  checkStoreOptions(opts);
  return opts;
}

/** --source, as add and import take it. */
export function parseSource(raw: Raw): string | undefined {
  const source = str(raw, 'source');
  if (source !== undefined && !/^[\w .:/-]{1,64}$/.test(source)) throw new UsageError(`--source: "${source}" must be 1 to 64 letters, digits, spaces or . : / - _`);
  return source;
}
