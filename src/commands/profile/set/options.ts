// argv → options for `msgr profile set`.
import type { Raw } from '../../shared/option-values.js';
import { parseKeyOptions, parseOutputOptions, type KeyOptions, type OutputOptions } from '../options.js';

export interface SetOptions extends OutputOptions, KeyOptions {}

export function parseSetOptions(raw: unknown): SetOptions {
  const r = raw as Raw;
  return { ...parseOutputOptions(r), ...parseKeyOptions(r) };
}
