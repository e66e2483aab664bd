// One resolution of connection settings for every command (cli-contract: precedence):
// command-line flag > environment variable > the selected profile > built-in default.
// Each value carries its source so `msgr profile show` can answer "why that account?".
import { readFile } from 'node:fs/promises';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';

export type SettingSource = 'flag' | 'env' | 'profile' | 'default' | 'unset';

export interface Resolved<T> {
  readonly value: T;
  readonly source: SettingSource;
  /** The flag, variable or profile name the value came from, for `profile show`. */
  readonly origin?: string;
}

export interface ConnectionFlags {
  profile?: string | undefined;
  baseUrl?: string | undefined;
  account?: string | undefined;
  apiKeyFile?: string | undefined;
  apiKeyStdin?: boolean | undefined;
  from?: string | undefined;
  channel?: string | undefined;
}

export interface Settings {
  readonly profile: Resolved<string | undefined>;
  readonly baseUrl: Resolved<string | undefined>;
  readonly account: Resolved<string | undefined>;
  readonly apiKey: Resolved<string | undefined>;
  readonly from: Resolved<string | undefined>;
  readonly channel: Resolved<string | undefined>;
  /** The profile asks for confirmation before every send (production guard, issue 3). */
  readonly confirm: boolean;
}

const unset: Resolved<undefined> = { value: undefined, source: 'unset' };

function pick(flag: string | undefined, flagName: string, envValue: string | undefined, envName: string): Resolved<string | undefined> {
  if (flag !== undefined && flag !== '') return { value: flag, source: 'flag', origin: flagName };
  if (envValue !== undefined && envValue !== '') return { value: envValue, source: 'env', origin: envName };
  return unset;
}

/** Reads an API key from a file or stdin: the first line, trimmed. Never echoes it. */
export async function readApiKey(ctx: Context, flags: ConnectionFlags): Promise<Resolved<string> | undefined> {
  if (flags.apiKeyFile !== undefined && flags.apiKeyStdin === true) {
    throw new UsageError('--api-key-file and --api-key-stdin cannot be used together', { hint: 'Pick one source for the API key.' });
  }
  if (flags.apiKeyFile !== undefined) {
    let text: string;
    try {
      text = await readFile(flags.apiKeyFile, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      throw new UsageError(`--api-key-file: cannot read ${flags.apiKeyFile} (${code})`, { hint: 'Give the path of a file that holds the API key on its first line.' });
    }
    const key = firstLine(text);
    if (key === '') throw new UsageError(`--api-key-file: ${flags.apiKeyFile} is empty`, { hint: 'Put the API key on the first line of the file.' });
    return { value: key, source: 'flag', origin: '--api-key-file' };
  }
  if (flags.apiKeyStdin === true) {
    if (ctx.stdin.isTTY) {
      throw new UsageError('--api-key-stdin: stdin is a terminal', { hint: 'Pipe the key in: `pass show msgr | msgr ... --api-key-stdin`.' });
    }
    let text = '';
    for await (const chunk of ctx.stdin) {
      text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      if (text.includes('\n')) break;
    }
    const key = firstLine(text);
    if (key === '') throw new UsageError('--api-key-stdin: no key on stdin', { hint: 'Pipe the API key on the first line of stdin.' });
    return { value: key, source: 'flag', origin: '--api-key-stdin' };
  }
  return undefined;
}

function firstLine(text: string): string {
  return (text.split(/\r?\n/, 1)[0] ?? '').trim();
}

/**
 * Resolves settings from flags and environment. Profiles (issue 3) slot in between the
 * environment and the defaults.
 */
export async function resolveSettings(ctx: Context, flags: ConnectionFlags): Promise<Settings> {
  const env = ctx.env;
  const keyFromFlag = await readApiKey(ctx, flags);
  const apiKey: Resolved<string | undefined> =
    keyFromFlag ?? (env.MSGR_API_KEY !== undefined && env.MSGR_API_KEY !== '' ? { value: env.MSGR_API_KEY.trim(), source: 'env', origin: 'MSGR_API_KEY' } : unset);
  return {
    profile: pick(flags.profile, '--profile', env.MSGR_PROFILE, 'MSGR_PROFILE'),
    baseUrl: pick(flags.baseUrl, '--base-url', env.MSGR_BASE_URL, 'MSGR_BASE_URL'),
    account: pick(flags.account, '--account', env.MSGR_ACCOUNT_REFERENCE, 'MSGR_ACCOUNT_REFERENCE'),
    apiKey,
    from: pick(flags.from, '--from', undefined, ''),
    channel: pick(flags.channel, '--channel', undefined, ''),
    confirm: false,
  };
}
