// Where the profile store lives. MSGR_CONFIG_DIR wins (tests, containers); otherwise the OS
// config folder the way conf's env-paths names it, without the `-nodejs` suffix. msgr computes
// the folder itself and always hands it to conf as `cwd`, so reading (which does not load conf,
// to keep ~90 ms off every send) and writing (through conf) can never disagree on the file.
import { platform as osPlatform } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { homeFolder } from '../files/home.js';

export interface StorePaths {
  readonly dir: string;
  readonly file: string;
  readonly lock: string;
}

export const CONFIG_NAME = 'config';

export function storePaths(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  platform: NodeJS.Platform = osPlatform(),
  home?: string,
): StorePaths {
  const dir = configDir(env, cwd, platform, home);
  const file = join(dir, `${CONFIG_NAME}.json`);
  return { dir, file, lock: `${file}.lock` };
}

function configDir(env: Readonly<Record<string, string | undefined>>, cwd: string, platform: NodeJS.Platform, home: string | undefined): string {
  const override = env.MSGR_CONFIG_DIR;
  if (override !== undefined && override !== '') return isAbsolute(override) ? override : resolve(cwd, override);
  // Looked up only when needed: with MSGR_CONFIG_DIR set, a user without a home is no problem.
  const base = (): string => home ?? homeFolder();
  if (platform === 'darwin') return join(base(), 'Library', 'Preferences', 'msgr');
  if (platform === 'win32') return join(nonEmpty(env.APPDATA) ?? join(base(), 'AppData', 'Roaming'), 'msgr', 'Config');
  return join(nonEmpty(env.XDG_CONFIG_HOME) ?? join(base(), '.config'), 'msgr');
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}
