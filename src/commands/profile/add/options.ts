// argv → options for `msgr profile add`.
import { bool, str, type Raw } from '../../shared/option-values.js';
import { parseKeyOptions, parseOutputOptions, type KeyOptions, type OutputOptions } from '../options.js';

export interface AddOptions extends OutputOptions, KeyOptions {
  readonly account?: string | undefined;
  readonly baseUrl?: string | undefined;
  readonly from?: string | undefined;
  readonly channel?: string | undefined;
  readonly caFile?: string | undefined;
  readonly defaultCountry?: string | undefined;
  readonly default?: boolean | undefined;
  readonly confirm?: boolean | undefined;
  readonly force?: boolean | undefined;
}

export function parseAddOptions(raw: unknown): AddOptions {
  const r = raw as Raw;
  return {
    ...parseOutputOptions(r),
    ...parseKeyOptions(r),
    account: str(r, 'account'),
    baseUrl: str(r, 'baseUrl'),
    from: str(r, 'from'),
    channel: str(r, 'channel'),
    caFile: str(r, 'caFile'),
    defaultCountry: str(r, 'defaultCountry'),
    default: bool(r, 'default'),
    confirm: bool(r, 'confirm'),
    force: bool(r, 'force'),
  };
}
