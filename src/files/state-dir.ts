// msgr's state folder: MSGR_CONFIG_DIR when set (tests, containers), else the OS's per-user state
// folder. Runs live under its runs/ (the sandbox's under sandbox/runs/, so a trial never blocks or
// shadows the real campaign of the same file); profiles, opt-outs, events and campaign keys beside them.
import { platform as osPlatform } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { homeFolder } from './home.js';

export function stateDir(env: Readonly<Record<string, string | undefined>>, cwd: string, platform: NodeJS.Platform = osPlatform(), home?: string): string {
  const override = env.MSGR_CONFIG_DIR;
  if (override !== undefined && override !== '') return isAbsolute(override) ? override : resolve(cwd, override);
  // Looked up only when needed: with MSGR_CONFIG_DIR set, a user without a home is no problem.
  const base = (): string => home ?? homeFolder();
  if (platform === 'darwin') return join(base(), 'Library', 'Application Support', 'msgr');
  if (platform === 'win32') return join(nonEmpty(env.LOCALAPPDATA) ?? join(base(), 'AppData', 'Local'), 'msgr');
  return join(nonEmpty(env.XDG_STATE_HOME) ?? join(base(), '.local', 'state'), 'msgr');
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}

/** The folder holding the run folders: real runs', or the sandbox's. */
export function runsRoot(state: string, sandbox = false): string {
  return sandbox ? join(state, 'sandbox', 'runs') : join(state, 'runs');
}
