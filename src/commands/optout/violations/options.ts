// argv → options for `msgr optout violations`.
import { bool, type Raw } from '../../shared/option-values.js';
import { parseStoreOptions, type StoreOptions } from '../options.js';

export interface ViolationsOptions extends StoreOptions {
  /** The sandbox's runs instead of the real ones. */
  readonly sandbox: boolean;
}

export function parseViolationsOptions(raw: unknown): ViolationsOptions {
  const r = raw as Raw;
  return { ...parseStoreOptions(r), sandbox: bool(r, 'sandbox') === true };
}
