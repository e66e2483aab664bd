// What the subcommands of `msgr profile` share when they run: the checks of a setting's value
// (add and set), the key read without echoing it, and how a profile is told. The API key is never
// printed: only its last 4 characters (docs/contract.md: "Security").
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { maskSecret, maskUrl, showControls } from '../../output/sanitize.js';
import type { Ui } from '../../output/ui.js';
import { formatTable } from '../../output/table.js';
import { lineWidth } from '../../output/wrap.js';
import { checkApiKey, readApiKey } from '../../settings/resolve.js';
import { canPrompt, promptHidden } from '../../profiles/prompt.js';
import type { Profile, Warn } from '../../profiles/profile-file.js';
import { parseChannel, type Channel } from '../../message/channel.js';

export const warnTo =
  (ui: Ui): Warn =>
  (line) =>
    ui.warn(line);

// Value checks shared by add and set.

export const SETTINGS = ['account', 'base-url', 'from', 'channel', 'default-country', 'confirm', 'api-key', 'ca-file', 'window', 'tz', 'price-file'] as const;
export type SettingName = (typeof SETTINGS)[number];

export function settingName(input: string): SettingName {
  const normal = input.trim().toLowerCase().replace(/[_\s]/g, '-').replace(/^baseurl$/, 'base-url').replace(/^apikey$/, 'api-key');
  const alias: Record<string, SettingName> = { 'account-reference': 'account', key: 'api-key', url: 'base-url', sender: 'from', cafile: 'ca-file', ca: 'ca-file', country: 'default-country' };
  const name = alias[normal] ?? normal;
  if ((SETTINGS as readonly string[]).includes(name)) return name as SettingName;
  throw new UsageError(`"${input}" is not a profile setting`, { hint: `Settings: ${SETTINGS.join(', ')}.` });
}

/** The one channel rule (src/message/channel.ts), with the flag or setting named. */
export function checkChannel(input: string, flag: string): Channel {
  const parsed = parseChannel(input);
  if (!parsed.ok) throw new UsageError(`${flag}: ${parsed.reason}`);
  return parsed.value;
}

export function checkText(input: string, flag: string): string {
  const v = input.trim();
  if (v === '') throw new UsageError(`${flag} is empty`);
  if (/[\u0000-\u001f\u007f]/.test(v)) throw new UsageError(`${flag} has control characters`);
  return v;
}

/** A CA file is saved as an absolute path once it reads as PEM: the profile is used from anywhere. */
export async function checkCaFile(ctx: Context, input: string, flag: string): Promise<string> {
  const path = (await import('node:path')).resolve(ctx.cwd, checkText(input, flag));
  const { readCaFile } = await import('../../http/ca-file.js');
  readCaFile(path, flag);
  return path;
}

/** A price file's absolute path, its lines checked as --price-file checks them (loaded only here). */
export async function checkPriceFile(ctx: Context, input: string): Promise<string> {
  const path = (await import('node:path')).resolve(ctx.cwd, checkText(input, 'price-file'));
  const { readPriceFile } = await import('../../pricing/price-file.js');
  readPriceFile(path, input);
  return path;
}

/** The ISO code, checked against the numbering data (loaded only here, not on every read). */
export async function checkCountryCode(input: string, flag: string): Promise<string> {
  const { checkCountry } = await import('../../message/numbers.js');
  return checkCountry(input, flag);
}

export function checkBool(input: string, flag: string): boolean {
  const v = input.trim().toLowerCase();
  if (['true', 'yes', 'on', '1'].includes(v)) return true;
  if (['false', 'no', 'off', '0'].includes(v)) return false;
  throw new UsageError(`${flag}: "${input}" is not true or false`);
}

/** Never echoes the key in a message: only its length. */
export function checkKey(key: string): string {
  const v = key.trim();
  if (v === '') throw new UsageError('the API key is empty');
  return checkApiKey(v, 'profile');
}

/** The key from --api-key-stdin, --api-key-file, or a hidden prompt on a terminal. */
export async function obtainKey(ctx: Context, name: string, opts: { apiKeyStdin?: boolean | undefined; apiKeyFile?: string | undefined }): Promise<string> {
  const given = await readApiKey(ctx, opts);
  if (given !== undefined) return checkKey(given.value);
  if (!canPrompt(ctx)) {
    throw new UsageError(`no API key for profile "${name}", and stdin is not a terminal to ask on`, {
      hint: `Pipe it in with --api-key-stdin (e.g. \`pass show msgr/${name} | msgr profile add ${name} --api-key-stdin ...\`) or give --api-key-file PATH.`,
    });
  }
  return checkKey(await promptHidden(ctx, `API key for profile "${name}" (input hidden): `));
}

export function describeProfile(p: Profile): string {
  const parts = [p.account !== undefined ? `account ${p.account}` : 'no account', p.baseUrl !== undefined ? maskUrl(p.baseUrl) : 'no base URL'];
  if (p.apiKey !== undefined) parts.push(`key ${maskSecret(p.apiKey)}`);
  return showControls(parts.join(', '));
}

export function warnIncomplete(ui: Ui, name: string, p: Profile): void {
  if (p.baseUrl === undefined) ui.warn(`profile "${name}" has no base URL: sends with it need --base-url or MSGR_BASE_URL (msgr profile set ${name} base-url URL)`);
  if (p.account === undefined) ui.warn(`profile "${name}" has no account: sends with it need --account or MSGR_ACCOUNT_REFERENCE (msgr profile set ${name} account REF)`);
}

/** Cells with control characters made visible (a profile's values are the user's), as a table for the terminal (output/table.ts). */
export function profileTable(ctx: Context, rows: string[][], title: number): string {
  return `${formatTable(rows.map((r) => r.map((c) => showControls(c))), lineWidth(ctx.stdout), title)}\n`;
}
