// Runs the built CLI as a user would, in a child process: `node bin/msgr.js ...`, or with
// MSGR_TEST_EXE=<path> the single executable file (`npm run test:exe`, which builds it and runs
// the e2e tests of scripts/run-tests.mjs's `exe` set against it). Every test spawns msgr through
// MSGR or msgrCommand(), so that one switch decides what all of them run.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..', '..', '..');
/** The single executable file under test, or undefined: `node bin/msgr.js`. */
export const EXE = process.env.MSGR_TEST_EXE !== undefined && process.env.MSGR_TEST_EXE !== '' ? resolve(ROOT, process.env.MSGR_TEST_EXE) : undefined;
/**
 * bin/msgr.js, for the tests of the npm install itself. Against the binary it names no file, and
 * says why: a test that spawns `node BIN` there would not be testing the binary.
 */
export const BIN = EXE === undefined ? join(ROOT, 'bin', 'msgr.js') : join(ROOT, 'bin', 'msgr.js (MSGR_TEST_EXE is set: spawn msgr with MSGR or msgrCommand() from test/support/cli.ts)');
/** The words that run msgr: [node, bin/msgr.js], or [the binary]. */
export const MSGR: readonly string[] = EXE !== undefined ? [EXE] : [process.execPath, BIN];

/** spawn()'s command and arguments for `msgr ...args`. */
export function msgrCommand(args: readonly string[]): [string, string[]] {
  const [command, ...rest] = MSGR as [string, ...string[]];
  return [command, [...rest, ...args]];
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  cwd?: string;
  timeoutMs?: number;
}

/** Folders made by tempDir in this test file's process, removed when it exits. */
const made: string[] = [];

/**
 * A new folder under the system's temporary folder, removed with everything in it when the test
 * file's process exits (each file runs in a process of its own). Left behind, a day of test runs
 * had put 39,000 folders and 4.5 GB in /tmp, and every esbuild build under /tmp then read that
 * folder's listing: 40 s for a build that takes 2.
 */
export function tempDir(prefix = 'msgr-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (made.length === 0) {
    process.once('exit', () => {
      for (const d of made) {
        try {
          rmSync(d, { recursive: true, force: true });
        } catch {
          // A folder a test made unreadable or unwritable stays; it never fails the run.
        }
      }
    });
  }
  made.push(dir);
  return dir;
}

/** The inherited environment without msgr's own variables, proxies or colour forcing. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue;
    if (/^MSGR_/.test(k) || /^(https?|no)_proxy$/i.test(k) || k === 'FORCE_COLOR' || k === 'NODE_EXTRA_CA_CERTS' || k === 'CI') continue;
    env[k] = v;
  }
  env.NO_COLOR = '1';
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export function runCli(args: string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(...msgrCommand(args), {
      cwd: options.cwd ?? ROOT,
      env: options.env ?? cleanEnv({ MSGR_CONFIG_DIR: tempDir() }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
    if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();
  });
}

/**
 * Runs `msgr send-bulk` and kills it with SIGKILL at a random moment, up to `tries` times: the
 * first run with `args`, each next one with `resume` once the journal exists. Returns how many
 * runs were killed; a run that ends before its kill stops the loop.
 */
export async function killRepeatedly(o: { args: string[]; resume: string[]; journal: string; env: Record<string, string>; tries?: number; afterMs?: [min: number, spread: number] }): Promise<number> {
  const [min, spread] = o.afterMs ?? [300, 400];
  let kills = 0;
  for (let i = 0; i < (o.tries ?? 4); i++) {
    const child = spawn(...msgrCommand(['send-bulk', ...(existsSync(o.journal) ? o.resume : o.args)]), { cwd: ROOT, env: o.env, stdio: 'ignore' });
    const closed = new Promise<NodeJS.Signals | null>((r) => child.on('close', (_code, signal) => r(signal)));
    await new Promise((r) => setTimeout(r, min + Math.random() * spread));
    child.kill('SIGKILL');
    if ((await closed) !== 'SIGKILL') break;
    kills++;
  }
  return kills;
}

/**
 * The msgr command a hint offers after `lead` (to the end of its line, or a `(` that explains it),
 * as arguments for runCli: `msgr` dropped, single quotes undone. Running it proves the hint is a
 * command msgr accepts.
 */
export function offeredCommand(stderr: string, lead: string): string[] {
  const at = stderr.indexOf(lead);
  if (at < 0) throw new Error(`no "${lead}" in: ${stderr}`);
  const line = stderr.slice(at + lead.length).split('\n', 1)[0] ?? '';
  const words: string[] = [];
  for (const m of line.matchAll(/'([^']*)'|(\S+)/g)) {
    if (m[2]?.startsWith('(') === true) break;
    words.push(m[1] ?? m[2] ?? '');
  }
  if (words[0] !== 'msgr') throw new Error(`not a msgr command: ${line}`);
  return words.slice(1);
}
