// argv → the options every subcommand of `msgr profile` takes: -q, -v and, where declared, --json
// (flags.ts); and the key's, as add and set take them. Each subcommand's own are in
// <sub>/options.ts. Hand-written, as every command's options are (../shared/option-values.ts).
import { bool, str, type Raw } from '../shared/option-values.js';

export interface OutputOptions {
  readonly quiet?: boolean | undefined;
  readonly verbose?: boolean | undefined;
  readonly json?: boolean | undefined;
}

export function parseOutputOptions(raw: Raw): OutputOptions {
  return { quiet: bool(raw, 'quiet'), verbose: bool(raw, 'verbose'), json: bool(raw, 'json') };
}

/** Where a new API key is read from: stdin, a file, else a hidden prompt on a terminal. */
export interface KeyOptions {
  readonly apiKeyStdin?: boolean | undefined;
  readonly apiKeyFile?: string | undefined;
}

export function parseKeyOptions(raw: Raw): KeyOptions {
  return { apiKeyStdin: bool(raw, 'apiKeyStdin'), apiKeyFile: str(raw, 'apiKeyFile') };
}
