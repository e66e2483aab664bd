// argv → options for `msgr optout import`.
import { str, type Raw } from '../../shared/option-values.js';
import { parseSource, parseStoreOptions, type StoreOptions } from '../options.js';

export interface ImportOptions extends StoreOptions {
  readonly column?: string | undefined;
  readonly source?: string | undefined;
  readonly note?: string | undefined;
}

export function parseImportOptions(raw: unknown): ImportOptions {
  const r = raw as Raw;
  const store = parseStoreOptions(r);
  return { ...store, column: str(r, 'column'), source: parseSource(r), note: str(r, 'note') };
}
