// argv → options for `msgr profile show`: the flags a send resolves its settings from.
import { str, type Raw } from '../../shared/option-values.js';
import { parseKeyOptions, parseOutputOptions, type KeyOptions, type OutputOptions } from '../options.js';

export interface ShowOptions extends OutputOptions, KeyOptions {
  readonly profile?: string | undefined;
  readonly baseUrl?: string | undefined;
  readonly account?: string | undefined;
  readonly from?: string | undefined;
  readonly channel?: string | undefined;
  readonly caFile?: string | undefined;
  readonly defaultCountry?: string | undefined;
}

export function parseShowOptions(raw: unknown): ShowOptions {
  const r = raw as Raw;
  return {
    ...parseOutputOptions(r),
    ...parseKeyOptions(r),
    profile: str(r, 'profile'),
    baseUrl: str(r, 'baseUrl'),
    account: str(r, 'account'),
    from: str(r, 'from'),
    channel: str(r, 'channel'),
    caFile: str(r, 'caFile'),
    defaultCountry: str(r, 'defaultCountry'),
  };
}
