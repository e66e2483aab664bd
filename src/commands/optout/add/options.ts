// argv → options for `msgr optout add`.
import { bool, str, type Raw } from '../../shared/option-values.js';
import { parseSource, parseStoreOptions, type StoreOptions } from '../options.js';

export interface AddOptions extends StoreOptions {
  readonly source?: string | undefined;
  readonly note?: string | undefined;
  readonly undeliverable: boolean;
}

export function parseAddOptions(raw: unknown): AddOptions {
  const r = raw as Raw;
  const store = parseStoreOptions(r);
  return { ...store, source: parseSource(r), note: str(r, 'note'), undeliverable: bool(r, 'undeliverable') === true };
}
