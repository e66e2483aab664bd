// argv → options for `msgr runs show`.
import type { Raw } from '../../shared/option-values.js';
import { parseOutputOptions, parseReceiptOptions, type OutputOptions, type ReceiptOptions } from '../shared.js';

export interface ShowOptions extends OutputOptions, ReceiptOptions {}

export function parseShowOptions(raw: unknown): ShowOptions {
  const r = raw as Raw;
  return { ...parseOutputOptions(r), ...parseReceiptOptions(r) };
}
