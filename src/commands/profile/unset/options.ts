// argv → options for `msgr profile unset`: the output flags (../options.ts), no more.
import type { Raw } from '../../shared/option-values.js';
import { parseOutputOptions, type OutputOptions } from '../options.js';

export type UnsetOptions = OutputOptions;

export function parseUnsetOptions(raw: unknown): UnsetOptions {
  return parseOutputOptions(raw as Raw);
}
