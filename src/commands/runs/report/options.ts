// argv → options for `msgr runs report`.
import { str, type Raw } from '../../shared/option-values.js';
import { parseOutputOptions, parseReceiptOptions, type OutputOptions, type ReceiptOptions } from '../shared.js';

export interface ReportOptions extends OutputOptions, ReceiptOptions {
  /** The report to write: .csv or .jsonl (a required option). */
  readonly report?: string | undefined;
}

export function parseReportOptions(raw: unknown): ReportOptions {
  const r = raw as Raw;
  return { ...parseOutputOptions(r), report: str(r, 'report'), ...parseReceiptOptions(r) };
}
