// argv → options for `msgr optout possible`.
import { UsageError } from '../../../errors.js';
import { list, str, type Raw } from '../../shared/option-values.js';
import { parseStoreOptions, type StoreOptions } from '../options.js';

export interface PossibleOptions extends StoreOptions {
  /** The numbers whose possible opt-outs are accepted, or dismissed; neither: the list of them. */
  readonly accept: readonly string[];
  readonly dismiss: readonly string[];
  readonly note?: string | undefined;
}

export function parsePossibleOptions(raw: unknown): PossibleOptions {
  const r = raw as Raw;
  const opts: PossibleOptions = { ...parseStoreOptions(r), accept: list(r, 'accept') ?? [], dismiss: list(r, 'dismiss') ?? [], note: str(r, 'note') };
  const both = opts.accept.find((n) => opts.dismiss.includes(n));
  if (both !== undefined) throw new UsageError(`${both} is given to both --accept and --dismiss`, { hint: 'Decide once for each number.' });
  return opts;
}
