// argv → options for `msgr optout check`: whose store, and the output (../options.ts), no more.
import type { Raw } from '../../shared/option-values.js';
import { parseStoreOptions, type StoreOptions } from '../options.js';

export type CheckOptions = StoreOptions;

export function parseCheckOptions(raw: unknown): CheckOptions {
  return parseStoreOptions(raw as Raw);
}
