// The profile store: one JSON file (0600) in a folder of its own (0700).
//
// Reading is a plain readFileSync + JSON.parse + zod check, exactly what conf's getter does,
// without conf's ~90 ms import on every send. Every change goes through conf (atomic write,
// file mode) inside a lock file, re-reading the file inside the lock first: conf alone loses
// concurrent updates (docs/dependencies.md: "conf 15"). An invalid file is an error naming the file
// and the problem; msgr never resets it (conf's clearInvalidConfig would wipe every profile).
import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { makePrivate } from '../files/private.js';
import { createUi } from '../output/ui.js';
import { waitForLock, type Lock } from '../files/lock.js';
import { CONFIG_NAME, storePaths, type StorePaths } from './paths.js';
import { join } from 'node:path';

export type Channel = 'SMS' | 'RCS';

export interface Profile {
  apiKey?: string | undefined;
  account?: string | undefined;
  baseUrl?: string | undefined;
  from?: string | undefined;
  channel?: Channel | undefined;
  /** Production guard: every send asks first (or needs --yes without a terminal). */
  confirm?: boolean | undefined;
  /** PEM file of extra trusted roots (a TLS-inspecting network's), as an absolute path. */
  caFile?: string | undefined;
  /** ISO 3166 code national numbers are read in (`GB`). */
  defaultCountry?: string | undefined;
  /** Quiet hours kept: the send windows every send of the profile keeps (space-separated, as --window takes them). */
  window?: string | undefined;
  /** Whose clock the window is read on (as --tz takes it). */
  tz?: string | undefined;
  /** Prices per SMS part (as --price-file takes it; an absolute path): the preflight estimates a campaign's cost. */
  priceFile?: string | undefined;
}

const PROFILE_FIELDS: Record<keyof Profile, 'string' | 'channel' | 'boolean' | 'country'> = {
  apiKey: 'string',
  account: 'string',
  baseUrl: 'string',
  from: 'string',
  channel: 'channel',
  confirm: 'boolean',
  caFile: 'string',
  defaultCountry: 'country',
  window: 'string',
  tz: 'string',
  priceFile: 'string',
};

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Checks the store's shape by hand rather than with zod: this runs on every send, and zod's
 * import alone costs more than the rest of a dry run (docs/performance.md). Returns the problems found,
 * each as "where: what".
 */
export function checkStoreShape(raw: unknown): string[] {
  const problems: string[] = [];
  if (!isObject(raw)) return ['(top level): expected an object'];
  // conf keeps its own bookkeeping under __internal__ when migrations are used.
  const unknownTop = Object.keys(raw).filter((k) => k !== 'default' && k !== 'profiles' && k !== '__internal__');
  if (unknownTop.length > 0) problems.push(`(top level): unknown field${unknownTop.length > 1 ? 's' : ''} ${unknownTop.join(', ')}`);
  if (raw.default !== undefined && (typeof raw.default !== 'string' || raw.default === '')) {
    problems.push(typeof raw.default === 'string' ? 'default: is empty' : 'default: expected a string');
  }
  if (raw.profiles !== undefined) {
    if (!isObject(raw.profiles)) {
      problems.push('profiles: expected an object');
    } else {
      for (const [name, profile] of Object.entries(raw.profiles)) {
        if (!isObject(profile)) {
          problems.push(`profiles.${name}: expected an object`);
          continue;
        }
        const unknown = Object.keys(profile).filter((k) => !(k in PROFILE_FIELDS));
        if (unknown.length > 0) problems.push(`profiles.${name}: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`);
        for (const [field, kind] of Object.entries(PROFILE_FIELDS)) {
          const v = profile[field];
          if (v === undefined) continue;
          const where = `profiles.${name}.${field}`;
          if (kind === 'boolean') {
            if (typeof v !== 'boolean') problems.push(`${where}: expected true or false`);
          } else if (typeof v !== 'string') {
            problems.push(`${where}: expected a string`);
          } else if (v === '') {
            problems.push(`${where}: is empty`);
          } else if (kind === 'channel' && v !== 'SMS' && v !== 'RCS') {
            problems.push(`${where}: expected "SMS" or "RCS"`);
          } else if (kind === 'country' && !/^[A-Z]{2}$/.test(v)) {
            problems.push(`${where}: expected a two-letter country code such as "GB"`);
          }
        }
      }
    }
  }
  return problems;
}

export interface StoreData {
  default?: string | undefined;
  profiles: Record<string, Profile>;
}

export interface LoadedStore {
  readonly paths: StorePaths;
  readonly data: StoreData;
}

export type Warn = (line: string) => void;

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Profile names are typed on command lines and in cron files: keep them plain. */
export function checkProfileName(name: string): void {
  if (!PROFILE_NAME.test(name)) {
    throw new UsageError(`"${name}" is not a valid profile name`, {
      hint: 'Use up to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit (e.g. prod-eu).',
    });
  }
}

export function profileNames(data: StoreData): string[] {
  return Object.keys(data.profiles).sort();
}

export function getProfile(data: StoreData, name: string): Profile | undefined {
  return Object.hasOwn(data.profiles, name) ? data.profiles[name] : undefined;
}

/** The error for a profile that is not there, listing the ones that are. */
export function unknownProfileError(data: StoreData, name: string, origin?: string): UsageError {
  const names = profileNames(data);
  const from = origin !== undefined ? ` (from ${origin})` : '';
  if (names.length === 0) {
    return new UsageError(`profile "${name}"${from} does not exist: no profiles are saved yet`, {
      hint: `Add it with: msgr profile add ${PROFILE_NAME.test(name) ? name : '<name>'} --api-key-stdin --account REF --base-url https://...`,
    });
  }
  return new UsageError(`profile "${name}"${from} does not exist; profiles: ${names.join(', ')}`, {
    hint: 'See them with `msgr profile list`, or add it with `msgr profile add`.',
  });
}

function defaultWarn(ctx: Context): Warn {
  return (line) => createUi(ctx).warn(line);
}

/** Reads the store. A missing file is an empty store; nothing is created by reading. */
export function loadStore(ctx: Context, warn: Warn = defaultWarn(ctx)): LoadedStore {
  const paths = storePaths(ctx.env, ctx.cwd);
  const text = readStoreText(paths.file);
  if (text === undefined) return { paths, data: { profiles: {} } };
  tightenModes(paths, warn);
  return { paths, data: parseStore(text, paths.file) };
}

/**
 * Changes the store under the lock: re-reads it, passes it to change (which may throw to
 * abort, or mutate and return it), and writes the result through conf.
 */
export async function updateStore<T>(
  ctx: Context,
  change: (data: StoreData) => T,
  warn: Warn = defaultWarn(ctx),
): Promise<{ paths: StorePaths; data: StoreData; result: T }> {
  const paths = storePaths(ctx.env, ctx.cwd);
  ensureDir(paths, warn);
  const { default: Conf } = await import('conf');
  const lock = await lockStore(ctx, paths.lock);
  try {
    const text = readStoreText(paths.file);
    if (text !== undefined) tightenModes(paths, warn);
    const data: StoreData = text === undefined ? { profiles: {} } : parseStore(text, paths.file);
    const result = change(data);
    const next: Record<string, unknown> = { profiles: data.profiles };
    if (data.default !== undefined) next.default = data.default;
    // Validate what we write as strictly as what we read: a bug must not leave a file
    // that the next run refuses.
    const problems = checkStoreShape(next);
    if (problems.length > 0) throw new Error(`internal: refusing to write an invalid profile store: ${problems.join('; ')}`);
    const conf = new Conf<Record<string, unknown>>({
      projectName: 'msgr',
      projectSuffix: '',
      cwd: paths.dir,
      configName: CONFIG_NAME,
      configFileMode: 0o600,
      clearInvalidConfig: false,
      accessPropertiesByDotNotation: false,
    });
    conf.store = next;
    // conf creates the file with configFileMode through the umask; make sure.
    chmodSync(paths.file, 0o600);
    return { paths, data, result };
  } finally {
    lock.release();
  }
}

/** The store's lock: held for milliseconds, so a lock older than 10 s was left by a crash. */
async function lockStore(ctx: Context, path: string): Promise<Lock> {
  try {
    return await waitForLock(path, 'msgr profile', ctx, { timeoutMs: 5000, staleMs: 10_000 });
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot create the lock file ${path} (${(err as NodeJS.ErrnoException).code ?? String(err)})`, {
      hint: 'Check that the profile folder exists and is writable by you (MSGR_CONFIG_DIR moves it).',
    });
  }
}

function readStoreText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new UsageError(`cannot read the profile file ${file} (${code ?? String(err)})`, {
      hint: 'Check its owner and permissions; MSGR_CONFIG_DIR moves the profile folder.',
    });
  }
}

/** Parses and checks the file's text; every problem names the file. Exported for tests. */
export function parseStore(text: string, file: string): StoreData {
  const hint = `Fix ${file} by hand, or move it aside and add the profiles again (msgr profile add). msgr never resets it.`;
  if (text.trim() === '') throw new UsageError(`the profile file ${file} is empty (not valid JSON)`, { hint });
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`the profile file ${file} is not valid JSON: ${describeJsonError(err, text)}`, { hint });
  }
  const problems = checkStoreShape(raw);
  if (problems.length > 0) {
    throw new UsageError(`the profile file ${file} is not a valid profile store: ${problems.join('; ')}`, { hint });
  }
  const store = raw as { default?: string; profiles?: Record<string, Profile> };
  const data: StoreData = { profiles: { ...store.profiles } };
  if (store.default !== undefined) data.default = store.default;
  return data;
}

/**
 * The parser's message with a line and column, and without any of the file's text: Node 22+
 * quotes the text around the error, which in this file is likely to be an API key.
 */
export function describeJsonError(err: unknown, text: string): string {
  let message = err instanceof Error ? err.message : String(err);
  let pos: number | undefined;
  const at = /at position (\d+)/.exec(message);
  if (at !== null) pos = Number(at[1]);
  // `Unexpected token 'x', ..."<20 characters of the file>"... is not valid JSON`
  const quoted = /^(Unexpected token '(.)'), (\.\.\.)?"([\s\S]*)"(?:\.\.\.)? is not valid JSON$/.exec(message);
  if (quoted !== null) {
    const [, , token = '', ellipsis, snippet = ''] = quoted;
    // V8 shows 10 characters either side of the error when it shortens the text.
    const found = ellipsis !== undefined ? text.indexOf(snippet) : -1;
    if (found >= 0) pos = found + 10;
    message = /[A-Za-z0-9]/.test(token) ? 'unexpected text' : `unexpected '${token}'`;
  }
  message = message.replace(/ (?:in JSON )?at position \d+/, '').replace(/ \(line \d+ column \d+\)/, '');
  if (pos === undefined) return message;
  const before = text.slice(0, pos);
  const line = before.split('\n').length;
  const column = pos - before.lastIndexOf('\n');
  return `${message} at line ${line} column ${column}`;
}

/** Creates the folder 0700 (and tightens it when it exists). */
function ensureDir(paths: StorePaths, warn: Warn): void {
  try {
    mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new UsageError(`cannot create the profile folder ${paths.dir} (${(err as NodeJS.ErrnoException).code ?? String(err)})`, {
      hint: 'Check the permissions of its parent, or set MSGR_CONFIG_DIR to a folder you own.',
    });
  }
  tightenModes(paths, warn);
}

/** The folders warned about: a command reads and writes its store several times, and says it once. */
const warnedModes = new Set<string>();

/**
 * The key file must be private: 0600 in a 0700 folder (docs/contract.md: "Security"). Anything more
 * open is tightened, with one warning, since the key may already have been read by others.
 */
export function tightenModes(paths: StorePaths, warn: Warn): void {
  const t = makePrivate([
    [paths.dir, 0o700],
    [paths.file, 0o600],
  ]);
  const { changed, failed } = t;
  const shared = t.shared.length > 0;
  if (warnedModes.has(paths.dir) || (changed.length === 0 && failed.length === 0 && !shared)) return;
  warnedModes.add(paths.dir);
  if (shared) {
    warn(`the profile folder ${paths.dir} is shared by all users (a sticky folder, such as /tmp): msgr leaves its permissions alone and keeps its files private in it; give msgr a folder of its own (MSGR_CONFIG_DIR=${join(paths.dir, 'msgr')}).`);
  }
  if (changed.length > 0) {
    warn(`the profile store was accessible to other users; msgr made it private: ${changed.join(', ')}. If others could read it, rotate the API keys saved in it.`);
  }
  if (failed.length > 0) {
    warn(`the profile store is accessible to other users and msgr could not change that: ${failed.join(', ')}. Fix the owner or mode yourself.`);
  }
}
