// argv → options for `msgr profile remove`: the output flags (../options.ts), no more.
import type { Raw } from '../../shared/option-values.js';
import { parseOutputOptions, type OutputOptions } from '../options.js';

export type RemoveOptions = OutputOptions;

export function parseRemoveOptions(raw: unknown): RemoveOptions {
  return parseOutputOptions(raw as Raw);
}
