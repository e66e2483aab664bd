// argv → options for `msgr runs list`.
import { bool, type Raw } from '../../shared/option-values.js';
import { parseOutputOptions, type OutputOptions } from '../shared.js';

export interface ListOptions extends OutputOptions {
  /** Full run ids, paths and targets, every count. */
  readonly wide: boolean;
}

export function parseListOptions(raw: unknown): ListOptions {
  const r = raw as Raw;
  return { ...parseOutputOptions(r), wide: bool(r, 'wide') ?? false };
}
