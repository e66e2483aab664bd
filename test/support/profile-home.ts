// A msgr home for the profile tests: a temporary MSGR_CONFIG_DIR, and the two profiles most of
// them start from. Shared by the in-process tests and the end-to-end ones, each with its runner.
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, tempDir, type RunResult } from './cli.js';

export const PROD_KEY = 'sk_live_PRODsecretVALUE_7777';
export const TEST_KEY = 'sk_test_TESTsecretVALUE_2222';

/** runCli or runInProcess. */
export type Runner = (args: string[], opts: { env: Record<string, string>; input?: string }) => Promise<RunResult>;

export interface Home {
  dir: string;
  file: string;
  env: (extra?: Record<string, string | undefined>) => Record<string, string>;
  run: (args: string[], opts?: { input?: string; env?: Record<string, string | undefined> }) => Promise<RunResult>;
}

export function homeWith(runner: Runner): Home {
  const dir = join(tempDir('msgr-e2e-profile-'), 'cfg');
  const env = (extra: Record<string, string | undefined> = {}): Record<string, string> => cleanEnv({ MSGR_CONFIG_DIR: dir, ...extra });
  return {
    dir,
    file: join(dir, 'config.json'),
    env,
    run: (args, opts = {}) => runner(args, { env: env(opts.env), ...(opts.input !== undefined ? { input: opts.input } : {}) }),
  };
}

/** A home with prod (default, guarded) and test profiles, test pointing at `testUrl`. */
export async function twoProfilesWith(runner: Runner, testUrl: string): Promise<Home> {
  const h = homeWith(runner);
  ok(await h.run(['profile', 'add', 'prod', '--api-key-stdin', '--account', 'PROD01', '--base-url', 'https://prod.example.com', '--from', 'ProdCo', '--channel', 'rcs', '--confirm'], { input: `${PROD_KEY}\n` }));
  ok(await h.run(['profile', 'add', 'test', '--api-key-stdin', '--account', 'TEST01', '--base-url', testUrl, '--from', 'TestCo'], { input: `${TEST_KEY}\n` }));
  return h;
}

export function ok(r: RunResult): RunResult {
  assert.equal(r.code, 0, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

/** A file's permission bits. */
export function mode(path: string): number {
  return statSync(path).mode & 0o777;
}

interface ShowEntry {
  value: string | null;
  source: string;
  origin?: string;
}
export type ShowDoc = Record<'profile' | 'baseUrl' | 'account' | 'apiKey' | 'from' | 'channel', ShowEntry> & { confirm: { value: boolean }; configFile: string };

/** `msgr profile show --json` in this home, which must succeed. */
export async function show(h: Home, args: string[] = [], env: Record<string, string | undefined> = {}, input?: string): Promise<ShowDoc> {
  const r = ok(await h.run(['profile', 'show', '--json', ...args], { env, ...(input !== undefined ? { input } : {}) }));
  return JSON.parse(r.stdout) as ShowDoc;
}

/** A machine with one profile, `prod`, the default (account ACME01, sender Acme, `key`), against `url`: its environment. */
export async function oneProfileWith(runner: Runner, url: string, key: string): Promise<Record<string, string>> {
  const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir() });
  ok(await runner(['profile', 'add', 'prod', '--api-key-stdin', '--account', 'ACME01', '--base-url', url, '--from', 'Acme'], { env, input: `${key}\n` }));
  return env;
}
