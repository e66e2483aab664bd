// argv → options for `msgr optout remove`.
import { str, type Raw } from '../../shared/option-values.js';
import { parseStoreOptions, type StoreOptions } from '../options.js';

export interface RemoveOptions extends StoreOptions {
  readonly note?: string | undefined;
}

export function parseRemoveOptions(raw: unknown): RemoveOptions {
  const r = raw as Raw;
  const store = parseStoreOptions(r);
  return { ...store, note: str(r, 'note') };
}
