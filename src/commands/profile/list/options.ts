// argv → options for `msgr profile list`: the output flags (../options.ts), no more.
import type { Raw } from '../../shared/option-values.js';
import { parseOutputOptions, type OutputOptions } from '../options.js';

export type ListOptions = OutputOptions;

export function parseListOptions(raw: unknown): ListOptions {
  return parseOutputOptions(raw as Raw);
}
