// One resolution of connection settings for every command (docs/contract.md: "Precedence"):
// command-line flag > environment variable > the selected profile > built-in default.
// Each value carries its source so `msgr profile show` can answer "why that account?".
// `profile` is where the profile name came from: flag --profile, env MSGR_PROFILE, or source
// 'profile' with origin 'default profile' / 'only profile'; values from the profile have source
// 'profile' and the profile's name as origin.
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
  caFile?: string | undefined;
  defaultCountry?: string | undefined;
}

export interface Settings {
  readonly profile: Resolved<string | undefined>;
  readonly baseUrl: Resolved<string | undefined>;
  readonly account: Resolved<string | undefined>;
  readonly apiKey: Resolved<string | undefined>;
  readonly from: Resolved<string | undefined>;
  readonly channel: Resolved<string | undefined>;
  /** Extra trusted CA file: --ca-file > MSGR_CA_FILE > the profile's ca-file. */
  readonly caFile: Resolved<string | undefined>;
  /** The country national numbers are read in; no built-in default (a guess would misroute). */
  readonly defaultCountry: Resolved<string | undefined>;
  /** The profile's send window and zone rule (src/schedule/): a default the command's --window, --tz or --any-time sets aside. */
  readonly window: Resolved<string | undefined>;
  readonly tz: Resolved<string | undefined>;
  /** The profile's price file (docs/cost-and-canary.md): a default --price-file sets aside. */
  readonly priceFile: Resolved<string | undefined>;
  /** The profile asks for confirmation before every send (the production guard: docs/configuration.md: "The production guard"). */
  readonly confirm: boolean;
  /** The profile store's file, for messages (it may not exist yet). */
  readonly configFile: string;
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
      text = await (await import('node:fs/promises')).readFile(flags.apiKeyFile, 'utf8');
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

/**
 * An API key travels in an HTTP header: printable ASCII only. A pasted zero-width space or a
 * control character would otherwise fail deep inside the HTTP client.
 */
export function checkApiKey(key: string, source: string): string {
  if (!/^[\x21-\x7e]+$/.test(key)) {
    throw new UsageError(`${source}: the API key has characters an HTTP header cannot carry (spaces, control or non-ASCII characters)`, {
      hint: 'Copy the key again without surrounding text; it is sent as the X-Api-Key header.',
    });
  }
  // A .env file or `docker run --env-file` keeps the quotes of KEY="…" as part of the value: sent
  // so, the key would be refused (exit 3) with nothing to say why.
  if (/^(["']).*\1$/.test(key)) {
    throw new UsageError(`${source}: the API key is in quotes, which are not part of it`, {
      hint: 'Remove the quotes (a .env file or docker --env-file keeps KEY="…" quotes as part of the value).',
    });
  }
  return key;
}

function firstLine(text: string): string {
  return (text.split(/\r?\n/, 1)[0] ?? '').trim();
}

export interface ResolveOptions {
  /** Where store warnings go (file modes tightened); stderr by default. */
  readonly warn?: (line: string) => void;
  /**
   * Nothing needs a real account (`--sandbox`): with several profiles, no default and none
   * chosen, use no profile instead of refusing to guess.
   */
  readonly profileOptional?: boolean;
}

/**
 * Resolves every connection setting, each with its source:
 * flag > environment variable > selected profile > built-in default.
 *
 * The profile is the one named by -p/--profile or MSGR_PROFILE (it must exist), else the
 * default profile, else the only profile. With several profiles, none default and none chosen,
 * msgr refuses to guess (UsageError) unless flags and environment give the base URL, account
 * and key between them, in which case no profile is used. Missing values are left unset (the
 * sender names the flag, variable and `msgr profile add` in its error; `--sandbox` needs none).
 */
export async function resolveSettings(ctx: Context, flags: ConnectionFlags, options: ResolveOptions = {}): Promise<Settings> {
  const env = ctx.env;
  const keyFromFlag = await readApiKey(ctx, flags);
  const envKey = env.MSGR_API_KEY?.trim();
  const keyOverride: Resolved<string | undefined> | undefined =
    keyFromFlag ?? (envKey !== undefined && envKey !== '' ? { value: envKey, source: 'env', origin: 'MSGR_API_KEY' } : undefined);
  const baseOverride = pick(flags.baseUrl, '--base-url', env.MSGR_BASE_URL, 'MSGR_BASE_URL');
  const accountOverride = pick(flags.account, '--account', env.MSGR_ACCOUNT_REFERENCE, 'MSGR_ACCOUNT_REFERENCE');
  const chosen = pick(flags.profile, '--profile', env.MSGR_PROFILE, 'MSGR_PROFILE');

  // One read of the store, without conf's import cost (profiles/profile-file.ts).
  const store = await import('../profiles/profile-file.js');
  const { paths, data } = store.loadStore(ctx, options.warn);
  const names = store.profileNames(data);

  let profileName: Resolved<string | undefined>;
  if (chosen.value !== undefined) {
    if (store.getProfile(data, chosen.value) === undefined) throw store.unknownProfileError(data, chosen.value, chosen.origin);
    profileName = chosen;
  } else if (data.default !== undefined) {
    if (store.getProfile(data, data.default) === undefined) {
      throw new UsageError(`the default profile "${data.default}" (in ${paths.file}) does not exist; profiles: ${names.length > 0 ? names.join(', ') : 'none'}`, {
        hint: names.length > 0 ? 'Make one of them the default with `msgr profile use NAME`, or choose one with -p NAME.' : 'Add a profile with `msgr profile add NAME --default`.',
      });
    }
    profileName = { value: data.default, source: 'profile', origin: 'default profile' };
  } else if (names.length === 1) {
    profileName = { value: names[0], source: 'profile', origin: 'only profile' };
  } else if (names.length === 0) {
    profileName = { value: undefined, source: 'unset', origin: 'no profiles saved' };
  } else if (options.profileOptional === true || (baseOverride.value !== undefined && accountOverride.value !== undefined && keyOverride !== undefined)) {
    // Nothing would come from a profile that matters for where the message goes.
    profileName = { value: undefined, source: 'unset', origin: 'none chosen; flags and environment give the rest' };
  } else {
    throw new UsageError(`there are ${names.length} profiles (${names.join(', ')}) and none is the default: msgr will not guess which account to send from`, {
      hint: 'Choose one with -p NAME or MSGR_PROFILE=NAME, or make one the default: msgr profile use NAME.',
    });
  }

  const name = profileName.value;
  const profile = name !== undefined ? store.getProfile(data, name) : undefined;
  const fromProfile = (value: string | undefined): Resolved<string | undefined> | undefined =>
    value !== undefined && name !== undefined ? { value, source: 'profile', origin: name } : undefined;
  const orUnset = (r: Resolved<string | undefined>): Resolved<string | undefined> | undefined => (r.value !== undefined ? r : undefined);

  return {
    profile: profileName,
    baseUrl: orUnset(baseOverride) ?? fromProfile(profile?.baseUrl) ?? unset,
    account: orUnset(accountOverride) ?? fromProfile(profile?.account) ?? unset,
    apiKey: keyOverride ?? fromProfile(profile?.apiKey) ?? unset,
    from: orUnset(pick(flags.from, '--from', undefined, '')) ?? fromProfile(profile?.from) ?? unset,
    channel: orUnset(pick(flags.channel, '--channel', undefined, '')) ?? fromProfile(profile?.channel) ?? { value: DEFAULT_CHANNEL, source: 'default' },
    caFile: orUnset(pick(flags.caFile, '--ca-file', env.MSGR_CA_FILE, 'MSGR_CA_FILE')) ?? fromProfile(profile?.caFile) ?? unset,
    defaultCountry: orUnset(pick(flags.defaultCountry, '--default-country', env.MSGR_DEFAULT_COUNTRY, 'MSGR_DEFAULT_COUNTRY')) ?? fromProfile(profile?.defaultCountry) ?? unset,
    window: fromProfile(profile?.window) ?? unset,
    tz: fromProfile(profile?.tz) ?? unset,
    priceFile: fromProfile(profile?.priceFile) ?? unset,
    confirm: profile?.confirm === true,
    configFile: paths.file,
  };
}

/** Built-in defaults. The base URL has none: it is deployment-specific (docs/api.md: "Endpoint"). */
export const DEFAULT_CHANNEL = 'SMS';

/** "flag --account", "env MSGR_API_KEY", "profile prod", "built-in default", "not set". */
export function describeSource(r: Resolved<unknown>): string {
  switch (r.source) {
    case 'flag':
      return `flag ${r.origin ?? ''}`.trim();
    case 'env':
      return `env ${r.origin ?? ''}`.trim();
    case 'profile':
      return r.origin === 'default profile' || r.origin === 'only profile' ? (r.origin ?? 'profile') : `profile ${r.origin ?? ''}`.trim();
    case 'default':
      return 'built-in default';
    case 'unset':
      return r.origin !== undefined ? `not set (${r.origin})` : 'not set';
  }
}
