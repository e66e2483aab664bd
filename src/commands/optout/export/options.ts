// argv → options for `msgr optout export`.
import { UsageError } from '../../../errors.js';
import { str, type Raw } from '../../shared/option-values.js';
import { checkStoreOptions, readStoreOptions, type StoreOptions } from '../options.js';

export type ExportFormat = 'list' | 'csv' | 'jsonl';

export interface ExportOptions extends StoreOptions {
  readonly format: ExportFormat;
  readonly out?: string | undefined;
}

export function parseExportOptions(raw: unknown): ExportOptions {
  const r = raw as Raw;
  const store = readStoreOptions(r);
  const format = str(r, 'format') ?? 'list';
  if (format !== 'list' && format !== 'csv' && format !== 'jsonl') throw new UsageError(`--format: "${format}" is not list, csv or jsonl`, { hint: 'list is one number a line, what send-bulk --exclude reads.' });
  checkStoreOptions(store);
  if (store.json && format !== 'list') throw new UsageError('--json and --format cannot be used together', { hint: '--json prints one document; --format jsonl prints one line per number.' });
  return { ...store, format, out: str(r, 'out') };
}
