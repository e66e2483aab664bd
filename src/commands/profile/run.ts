// `msgr profile add|set|unset|list|show|use|remove`: argv options (zod) → store change → output.
// Data (list, show) goes to stdout; confirmations and warnings to stderr. The API key is never
// printed: only its last 4 characters (docs/contract.md: "Security").
import { z } from 'zod';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { maskSecret, maskUrl, showControls } from '../../output/sanitize.js';
import { createUi, type Ui } from '../../output/ui.js';
import { formatSources, formatTable } from '../../output/table.js';
import { lineWidth, wrap } from '../../output/wrap.js';
import { checkApiKey, describeSource, readApiKey, resolveSettings, type Resolved, type Settings } from '../../settings/resolve.js';
import { checkBaseUrl } from '../../profiles/base-url.js';
import { msgrCommand, shellQuote } from '../../output/shell.js';
import { canPrompt, promptHidden, promptYesNo } from '../../profiles/prompt.js';
import { checkProfileName, getProfile, loadStore, profileNames, unknownProfileError, updateStore, type Profile, type StoreData, type Warn } from '../../profiles/store.js';
import { parseChannel, type Channel } from '../../message/channel.js';

const str = z.string().optional();
const flag = z.boolean().optional();
const common = { quiet: flag, verbose: flag, json: flag };

export const AddOptionsSchema = z.object({
  ...common,
  apiKeyStdin: flag,
  apiKeyFile: str,
  account: str,
  baseUrl: str,
  from: str,
  channel: str,
  caFile: str,
  defaultCountry: str,
  default: flag,
  confirm: flag,
  force: flag,
});
export type AddOptions = z.infer<typeof AddOptionsSchema>;

export const KeyOptionsSchema = z.object({ ...common, apiKeyStdin: flag, apiKeyFile: str });

export const ShowOptionsSchema = z.object({
  ...common,
  profile: str,
  baseUrl: str,
  account: str,
  apiKeyFile: str,
  apiKeyStdin: flag,
  from: str,
  channel: str,
  caFile: str,
  defaultCountry: str,
});

export const QuietOptionsSchema = z.object(common);

function parse<T extends z.ZodType>(schema: T, raw: unknown): z.infer<T> {
  const r = schema.safeParse(raw);
  if (!r.success) throw new UsageError(r.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('; '));
  return r.data;
}

const warnTo =
  (ui: Ui): Warn =>
  (line) =>
    ui.warn(line);

// Value checks shared by add and set.

const SETTINGS = ['account', 'base-url', 'from', 'channel', 'default-country', 'confirm', 'api-key', 'ca-file'] as const;
type SettingName = (typeof SETTINGS)[number];

function settingName(input: string): SettingName {
  const normal = input.trim().toLowerCase().replace(/[_\s]/g, '-').replace(/^baseurl$/, 'base-url').replace(/^apikey$/, 'api-key');
  const alias: Record<string, SettingName> = { 'account-reference': 'account', key: 'api-key', url: 'base-url', sender: 'from', cafile: 'ca-file', ca: 'ca-file', country: 'default-country' };
  const name = alias[normal] ?? normal;
  if ((SETTINGS as readonly string[]).includes(name)) return name as SettingName;
  throw new UsageError(`"${input}" is not a profile setting`, { hint: `Settings: ${SETTINGS.join(', ')}.` });
}

/** The one channel rule (src/message/channel.ts), with the flag or setting named. */
function checkChannel(input: string, flag: string): Channel {
  const parsed = parseChannel(input);
  if (!parsed.ok) throw new UsageError(`${flag}: ${parsed.reason}`);
  return parsed.value;
}

function checkText(input: string, flag: string): string {
  const v = input.trim();
  if (v === '') throw new UsageError(`${flag} is empty`);
  if (/[\u0000-\u001f\u007f]/.test(v)) throw new UsageError(`${flag} has control characters`);
  return v;
}

/** A CA file is saved as an absolute path once it reads as PEM: the profile is used from anywhere. */
async function checkCaFile(ctx: Context, input: string, flag: string): Promise<string> {
  const path = (await import('node:path')).resolve(ctx.cwd, checkText(input, flag));
  const { readCaFile } = await import('../../http/ca-file.js');
  readCaFile(path, flag);
  return path;
}

/** The ISO code, checked against the numbering data (loaded only here, not on every read). */
async function checkCountryCode(input: string, flag: string): Promise<string> {
  const { checkCountry } = await import('../../message/numbers.js');
  return checkCountry(input, flag);
}

function checkBool(input: string, flag: string): boolean {
  const v = input.trim().toLowerCase();
  if (['true', 'yes', 'on', '1'].includes(v)) return true;
  if (['false', 'no', 'off', '0'].includes(v)) return false;
  throw new UsageError(`${flag}: "${input}" is not true or false`);
}

/** Never echoes the key in a message: only its length. */
function checkKey(key: string): string {
  const v = key.trim();
  if (v === '') throw new UsageError('the API key is empty');
  return checkApiKey(v, 'profile');
}

/** The key from --api-key-stdin, --api-key-file, or a hidden prompt on a terminal. */
async function obtainKey(ctx: Context, name: string, opts: { apiKeyStdin?: boolean | undefined; apiKeyFile?: string | undefined }): Promise<string> {
  const given = await readApiKey(ctx, opts);
  if (given !== undefined) return checkKey(given.value);
  if (!canPrompt(ctx)) {
    throw new UsageError(`no API key for profile "${name}", and stdin is not a terminal to ask on`, {
      hint: `Pipe it in with --api-key-stdin (e.g. \`pass show msgr/${name} | msgr profile add ${name} --api-key-stdin ...\`) or give --api-key-file PATH.`,
    });
  }
  return checkKey(await promptHidden(ctx, `API key for profile "${name}" (input hidden): `));
}

function describeProfile(p: Profile): string {
  const parts = [p.account !== undefined ? `account ${p.account}` : 'no account', p.baseUrl !== undefined ? maskUrl(p.baseUrl) : 'no base URL'];
  if (p.apiKey !== undefined) parts.push(`key ${maskSecret(p.apiKey)}`);
  return showControls(parts.join(', '));
}

function warnIncomplete(ui: Ui, name: string, p: Profile): void {
  if (p.baseUrl === undefined) ui.warn(`profile "${name}" has no base URL: sends with it need --base-url or MSGR_BASE_URL (msgr profile set ${name} base-url URL)`);
  if (p.account === undefined) ui.warn(`profile "${name}" has no account: sends with it need --account or MSGR_ACCOUNT_REFERENCE (msgr profile set ${name} account REF)`);
}

// msgr profile add

export async function runAdd(ctx: Context, name: string, raw: unknown): Promise<void> {
  const opts = parse(AddOptionsSchema, raw);
  const ui = createUi(ctx, opts);
  checkProfileName(name);
  const profile: Profile = {};
  if (opts.account !== undefined) profile.account = checkText(opts.account, '--account');
  if (opts.baseUrl !== undefined) profile.baseUrl = checkBaseUrl(opts.baseUrl, '--base-url', (fixed) => msgrCommand(ctx.argv, { set: ['--base-url', fixed] }));
  if (opts.from !== undefined) profile.from = checkText(opts.from, '--from');
  if (opts.channel !== undefined) profile.channel = checkChannel(opts.channel, '--channel');
  if (opts.caFile !== undefined) profile.caFile = await checkCaFile(ctx, opts.caFile, '--ca-file');
  if (opts.defaultCountry !== undefined) profile.defaultCountry = await checkCountryCode(opts.defaultCountry, '--default-country');
  if (opts.confirm === true) profile.confirm = true;

  // Asked before the key, so nobody types a key only to be refused.
  let replace = opts.force === true;
  const existing = getProfile(loadStore(ctx, warnTo(ui)).data, name);
  if (existing !== undefined && !replace) {
    if (!canPrompt(ctx)) {
      throw new UsageError(`profile "${name}" already exists (${describeProfile(existing)})`, {
        hint: `Add --force to replace it, or change one setting with \`msgr profile set ${name} SETTING VALUE\`.`,
      });
    }
    replace = await promptYesNo(ctx, `Profile "${name}" already exists (${describeProfile(existing)}). Replace it?`);
    if (!replace) throw new UsageError(`profile "${name}" was not replaced`);
  }
  profile.apiKey = await obtainKey(ctx, name, opts);

  const { paths, data, result: madeDefault } = await updateStore(
    ctx,
    (store) => {
      // Re-checked inside the lock: another msgr may have added it since.
      if (getProfile(store, name) !== undefined && !replace) {
        throw new UsageError(`profile "${name}" already exists`, { hint: 'Add --force to replace it.' });
      }
      const first = profileNames(store).length === 0;
      store.profiles[name] = profile;
      const makeDefault = opts.default === true || first;
      if (makeDefault) store.default = name;
      return makeDefault;
    },
    warnTo(ui),
  );
  ui.success(`saved profile "${name}" (${describeProfile(profile)}) in ${paths.file}`);
  if (madeDefault) ui.info(`"${name}" is the default profile`);
  else if (data.default === undefined && profileNames(data).length > 1) ui.info(`there is no default profile: choose one with -p, or \`msgr profile use ${name}\``);
  if (profile.confirm === true) ui.info(`sends with "${name}" will ask for confirmation (or need --yes)`);
  warnIncomplete(ui, name, profile);
}

// msgr profile set, unset

export async function runSet(ctx: Context, name: string, setting: string, value: string | undefined, raw: unknown): Promise<void> {
  const opts = parse(KeyOptionsSchema, raw);
  const ui = createUi(ctx, opts);
  const which = settingName(setting);
  const apply = await settingChange(ctx, name, which, value, opts);
  const { result } = await updateStore(
    ctx,
    (store) => {
      const p = getProfile(store, name);
      if (p === undefined) throw unknownProfileError(store, name);
      apply(p);
      return p;
    },
    warnTo(ui),
  );
  ui.success(`profile "${name}": ${which} ${which === 'api-key' ? `set to ${maskSecret(result.apiKey ?? '')}` : 'updated'} (${describeProfile(result)})`);
}

async function settingChange(
  ctx: Context,
  name: string,
  which: SettingName,
  value: string | undefined,
  opts: { apiKeyStdin?: boolean | undefined; apiKeyFile?: string | undefined },
): Promise<(p: Profile) => void> {
  if (which === 'api-key') {
    if (value !== undefined) {
      // The value is not repeated: it may be the key, and this line may end up in a log.
      throw new UsageError('the API key is never taken as an argument (shell history, ps)', {
        hint: `Use \`msgr profile set ${name} api-key --api-key-stdin\` (piped), --api-key-file PATH, or leave both out to be asked on a terminal.`,
      });
    }
    // Check the profile exists before asking for a key.
    const { data } = loadStore(ctx);
    if (getProfile(data, name) === undefined) throw unknownProfileError(data, name);
    const key = await obtainKey(ctx, name, opts);
    return (p) => {
      p.apiKey = key;
    };
  }
  if (value === undefined) throw new UsageError(`no value for ${which}`, { hint: `msgr profile set ${name} ${which} VALUE (or msgr profile unset ${name} ${which})` });
  switch (which) {
    case 'account': {
      const v = checkText(value, 'account');
      return (p) => {
        p.account = v;
      };
    }
    case 'base-url': {
      const v = checkBaseUrl(value, 'base-url', (fixed) => `msgr profile set ${shellQuote(name)} base-url ${shellQuote(fixed)}`);
      return (p) => {
        p.baseUrl = v;
      };
    }
    case 'from': {
      const v = checkText(value, 'from');
      return (p) => {
        p.from = v;
      };
    }
    case 'channel': {
      const v = checkChannel(value, 'channel');
      return (p) => {
        p.channel = v;
      };
    }
    case 'default-country': {
      const v = await checkCountryCode(value, 'default-country');
      return (p) => {
        p.defaultCountry = v;
      };
    }
    case 'confirm': {
      const v = checkBool(value, 'confirm');
      return (p) => {
        if (v) p.confirm = true;
        else delete p.confirm;
      };
    }
    case 'ca-file': {
      const v = await checkCaFile(ctx, value, 'ca-file');
      return (p) => {
        p.caFile = v;
      };
    }
  }
}

export async function runUnset(ctx: Context, name: string, setting: string, raw: unknown): Promise<void> {
  const opts = parse(QuietOptionsSchema, raw);
  const ui = createUi(ctx, opts);
  const which = settingName(setting);
  const field = ({ account: 'account', 'base-url': 'baseUrl', from: 'from', channel: 'channel', 'default-country': 'defaultCountry', confirm: 'confirm', 'api-key': 'apiKey', 'ca-file': 'caFile' } as const)[which];
  const { result } = await updateStore(
    ctx,
    (store) => {
      const p = getProfile(store, name);
      if (p === undefined) throw unknownProfileError(store, name);
      delete p[field];
      return p;
    },
    warnTo(ui),
  );
  ui.success(`profile "${name}": ${which} removed (${describeProfile(result)})`);
}

// msgr profile use, remove

export async function runUse(ctx: Context, name: string, raw: unknown): Promise<void> {
  const opts = parse(QuietOptionsSchema, raw);
  const ui = createUi(ctx, opts);
  const { result } = await updateStore(
    ctx,
    (store) => {
      const p = getProfile(store, name);
      if (p === undefined) throw unknownProfileError(store, name);
      store.default = name;
      return p;
    },
    warnTo(ui),
  );
  ui.success(`"${name}" is now the default profile (${describeProfile(result)})`);
}

export async function runRemove(ctx: Context, name: string, raw: unknown): Promise<void> {
  const opts = parse(QuietOptionsSchema, raw);
  const ui = createUi(ctx, opts);
  const { data, result: wasDefault } = await updateStore(
    ctx,
    (store) => {
      if (getProfile(store, name) === undefined) throw unknownProfileError(store, name);
      delete store.profiles[name];
      const wasDefault = store.default === name;
      if (wasDefault) delete store.default;
      return wasDefault;
    },
    warnTo(ui),
  );
  ui.success(`removed profile "${name}"`);
  const left = profileNames(data);
  if (wasDefault && left.length > 1) ui.warn(`there is no default profile now: choose one with \`msgr profile use NAME\` (profiles: ${left.join(', ')})`);
  else if (wasDefault && left.length === 1) ui.info(`"${left[0] ?? ''}" is the only profile left; it is used when none is chosen`);
}

// msgr profile list

interface ListedProfile {
  name: string;
  default: boolean;
  account: string | null;
  baseUrl: string | null;
  apiKey: string | null;
  from: string | null;
  channel: string | null;
  defaultCountry: string | null;
  confirm: boolean;
}

export function listProfiles(data: StoreData): ListedProfile[] {
  return profileNames(data).map((name) => {
    const p = getProfile(data, name) ?? {};
    return {
      name,
      default: data.default === name,
      account: p.account ?? null,
      baseUrl: p.baseUrl ?? null,
      apiKey: p.apiKey !== undefined ? maskSecret(p.apiKey) : null,
      from: p.from ?? null,
      channel: p.channel ?? null,
      defaultCountry: p.defaultCountry ?? null,
      confirm: p.confirm === true,
    };
  });
}

export function runList(ctx: Context, raw: unknown): void {
  const opts = parse(QuietOptionsSchema, raw);
  const ui = createUi(ctx, opts);
  const { paths, data } = loadStore(ctx, warnTo(ui));
  const rows = listProfiles(data);
  if (opts.json === true) {
    ctx.stdout.write(`${JSON.stringify({ configFile: paths.file, default: data.default ?? null, profiles: rows }, null, 2)}\n`);
    return;
  }
  if (rows.length === 0) {
    ui.info(`no profiles yet (${paths.file}); add one with: msgr profile add NAME --base-url https://... --account REF`);
    return;
  }
  const table = [
    ['', 'NAME', 'ACCOUNT', 'BASE URL', 'API KEY', 'FROM', 'CHANNEL', 'COUNTRY', ''],
    ...rows.map((r) => [r.default ? '*' : '', r.name, r.account ?? '-', r.baseUrl ?? '-', r.apiKey ?? '-', r.from ?? '-', r.channel ?? '-', r.defaultCountry ?? '-', r.confirm ? 'confirm' : '']),
  ];
  ctx.stdout.write(profileTable(ctx, table, 2));
  if (data.default === undefined && rows.length > 1) ui.info('no default profile: sends need -p NAME or MSGR_PROFILE (msgr profile use NAME sets one)');
}

/** Cells with control characters made visible (a profile's values are the user's), as a table for the terminal (output/table.ts). */
function profileTable(ctx: Context, rows: string[][], title: number): string {
  return `${formatTable(rows.map((r) => r.map((c) => showControls(c))), lineWidth(ctx.stdout), title)}\n`;
}

// msgr profile show

export async function runShow(ctx: Context, name: string | undefined, raw: unknown): Promise<void> {
  const opts = parse(ShowOptionsSchema, raw);
  const ui = createUi(ctx, opts);
  if (name !== undefined && opts.profile !== undefined && name !== opts.profile) {
    throw new UsageError(`two profiles given: "${name}" and --profile ${opts.profile}`, { hint: 'Give one.' });
  }
  const settings = await resolveSettings(ctx, { ...opts, profile: name ?? opts.profile }, { warn: warnTo(ui) });
  const key = settings.apiKey.value !== undefined ? maskSecret(settings.apiKey.value) : undefined;
  if (opts.json === true) {
    const entry = (r: Resolved<string | undefined>, value: string | undefined = r.value) => ({
      value: value ?? null,
      source: r.source,
      ...(r.origin !== undefined ? { origin: r.origin } : {}),
    });
    const doc = {
      profile: entry(settings.profile),
      baseUrl: entry(settings.baseUrl),
      account: entry(settings.account),
      apiKey: entry(settings.apiKey, key),
      from: entry(settings.from),
      channel: entry(settings.channel),
      caFile: entry(settings.caFile),
      defaultCountry: entry(settings.defaultCountry),
      confirm: { value: settings.confirm, source: settings.confirm ? 'profile' : 'default', ...(settings.confirm ? { origin: settings.profile.value } : {}) },
      configFile: settings.configFile,
    };
    ctx.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  } else {
    const confirmRow: Resolved<string | undefined> = settings.confirm
      ? { value: 'yes', source: 'profile', origin: settings.profile.value ?? '' }
      : { value: 'no', source: 'default' };
    const rows: Array<[string, string, string]> = [
      ['profile', settings.profile.value ?? '(none)', describeSource(settings.profile)],
      ['base URL', settings.baseUrl.value ?? '(not set)', describeSource(settings.baseUrl)],
      ['account', settings.account.value ?? '(not set)', describeSource(settings.account)],
      ['API key', key ?? '(not set)', describeSource(settings.apiKey)],
      ['from', settings.from.value ?? '(not set)', describeSource(settings.from)],
      ['channel', settings.channel.value ?? '(not set)', describeSource(settings.channel)],
      ['CA file', settings.caFile.value ?? '(not set)', describeSource(settings.caFile)],
      ['country', settings.defaultCountry.value ?? '(not set)', describeSource(settings.defaultCountry)],
      ['confirm', confirmRow.value ?? '', describeSource(confirmRow)],
    ];
    // The path is long: outside the table, so it does not widen the value column.
    // On a narrow terminal each source goes under its value (output/table.ts).
    const width = lineWidth(ctx.stdout);
    const shown = formatSources(rows.map(([name, value, source]) => [name, showControls(value), showControls(source)] as const), width);
    ctx.stdout.write(`${shown.join('\n')}\n${wrap(`${'config'.padEnd(8)}  ${showControls(settings.configFile)}`, lineWidth(ctx.stdout), { hang: 10 })}\n`);
  }
  await warnMissing(ui, settings);
}

/** The problems a send would stop on, as warnings: `show` lists the settings even when they are wrong. */
async function warnMissing(ui: Ui, s: Settings): Promise<void> {
  if (s.baseUrl.value === undefined) ui.warn('no base URL: sends need --base-url, MSGR_BASE_URL, or a profile with one (msgr profile add / set)');
  else {
    try {
      checkBaseUrl(s.baseUrl.value, describeSource(s.baseUrl));
    } catch (err) {
      if (err instanceof UsageError) ui.warn(err.message);
    }
  }
  if (s.account.value === undefined) ui.warn('no account: sends need --account, MSGR_ACCOUNT_REFERENCE, or a profile with one');
  if (s.apiKey.value === undefined) ui.warn('no API key: sends need MSGR_API_KEY, --api-key-file, --api-key-stdin, or a profile with one');
  if (s.defaultCountry.value !== undefined) {
    try {
      await checkCountryCode(s.defaultCountry.value, describeSource(s.defaultCountry));
    } catch (err) {
      if (err instanceof UsageError) ui.warn(`${err.message}${err.hint !== undefined ? ` (${err.hint})` : ''}`);
    }
  }
}
