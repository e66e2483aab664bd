// argv → options for `msgr optout repair`: whose store, and the output (../options.ts), no more.
import type { Raw } from '../../shared/option-values.js';
import { parseStoreOptions, type StoreOptions } from '../options.js';

export type RepairOptions = StoreOptions;

export function parseRepairOptions(raw: unknown): RepairOptions {
  return parseStoreOptions(raw as Raw);
}
