// argv → options for `msgr optout list`: whose store, and the output (../options.ts), no more.
import type { Raw } from '../../shared/option-values.js';
import { parseStoreOptions, type StoreOptions } from '../options.js';

export type ListOptions = StoreOptions;

export function parseListOptions(raw: unknown): ListOptions {
  return parseStoreOptions(raw as Raw);
}
