// argv → options for `msgr profile use`: the output flags (../options.ts), no more.
import type { Raw } from '../../shared/option-values.js';
import { parseOutputOptions, type OutputOptions } from '../options.js';

export type UseOptions = OutputOptions;

export function parseUseOptions(raw: unknown): UseOptions {
  return parseOutputOptions(raw as Raw);
}
