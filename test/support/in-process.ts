// Commands run in-process: argv through the real Commander wiring into typed options (the runF
// seam, as gh's commands take one), and send-bulk run with a Context of the test's (a fake API:
// test/support/fake-api.ts), its error returned rather than thrown.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import type { ClientFactory, Context } from '../../src/context.js';
import type { Http } from '../../src/http-interface.js';
import { registerSendBulk } from '../../src/commands/send-bulk/index.js';
import type { BulkOptions } from '../../src/commands/send-bulk/options.js';
import { MsgrError } from '../../src/errors.js';
import { cleanEnv, ROOT, tempDir, type RunOptions, type RunResult } from './cli.js';
import { fakeContext, type FakeContext } from './fake-context.js';

/** `msgr send-bulk ARGV` parsed as the CLI parses it; the run is not called. */
export async function bulkOptions(argv: string[]): Promise<BulkOptions> {
  const program = new Command('msgr').exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
  let got: BulkOptions | undefined;
  registerSendBulk(program, fakeContext(), (opts) => {
    got = opts;
    return Promise.resolve();
  });
  await program.parseAsync(['send-bulk', ...argv], { from: 'user' });
  assert.ok(got !== undefined, 'the run was not called');
  return got;
}

/** `msgr send-bulk ARGV` run in-process: the error it ends with (its exit code, its hint), or undefined. */
export async function sendBulk(ctx: Context, argv: string[]): Promise<MsgrError | undefined> {
  const { runSendBulk } = await import('../../src/commands/send-bulk/run.js');
  try {
    await runSendBulk(ctx, await bulkOptions(argv));
    return undefined;
  } catch (err) {
    if (err instanceof MsgrError) return err;
    throw err;
  }
}

/** The API key the in-process runs send with (it must never reach their output). */
export const FAKE_KEY = 'fake-key-0123456789';

/** A CSV of `n` UK mobile numbers with a name, and an environment with a state folder of its own. */
export function bulkFiles(n: number, prefix = 'msgr-in-process-'): { dir: string; file: string; numbers: string[]; env: Record<string, string> } {
  const dir = tempDir(prefix);
  const numbers = Array.from({ length: n }, (_, i) => `+4479111${String(i).padStart(5, '0')}`);
  const file = join(dir, 'list.csv');
  writeFileSync(file, ['msisdn,name', ...numbers.map((m, i) => `${m},N${i}`)].join('\n') + '\n');
  const env = { MSGR_CONFIG_DIR: join(dir, 'state'), MSGR_API_KEY: FAKE_KEY, MSGR_BASE_URL: 'https://api.example.test', MSGR_ACCOUNT_REFERENCE: 'ACME01', NO_COLOR: '1' };
  return { dir, file, numbers, env };
}

type InProcessOptions = RunOptions & { http?: ClientFactory | null; hook?: Http['hook'] };

/**
 * The Context of a command run in-process, and what it asked to run at exit. HTTP: the real
 * provider's (src/http/provider.ts: the API's clients and the requests outside the API, such as
 * msgr trigger's and the sandbox's webhooks), unless the test gives `http` (a fake API; null: none)
 * or `hook`.
 */
async function inProcessContext(args: string[], options: InProcessOptions, interrupt?: AbortSignal): Promise<{ ctx: FakeContext; atExit: Array<() => Promise<void> | void> }> {
  const real = options.http === undefined ? (await import('../../src/http/provider.js')).http : undefined;
  const http = options.http === null ? undefined : (options.http ?? real?.client);
  const hook = options.hook ?? real?.hook;
  const base = fakeContext({ env: options.env ?? cleanEnv({ MSGR_CONFIG_DIR: tempDir() }), input: options.input ?? '', ...(http !== undefined ? { http } : {}), ...(hook !== undefined ? { hook } : {}) });
  const atExit: Array<() => Promise<void> | void> = [];
  const ctx: FakeContext = { ...base, argv: args, cwd: options.cwd ?? ROOT, onExit: (fn) => void atExit.push(fn), ...(interrupt !== undefined ? { interrupt } : {}) };
  return { ctx, atExit };
}

/** main() on the Context, then what the command asked to run at exit, as bin/msgr.js does. */
async function runMain(ctx: FakeContext, atExit: Array<() => Promise<void> | void>): Promise<RunResult> {
  const { main } = await import('../../src/main.js');
  const code = await main(ctx);
  for (const fn of atExit.reverse()) await fn();
  return { code, signal: null, stdout: ctx.out(), stderr: ctx.err() };
}

/**
 * `msgr ARGS` run in-process as bin/msgr.js runs it (src/main.ts: the program, its error report,
 * its exit code; then what the command asked to run at exit), with a Context of the test's:
 * what stdout and stderr got, the exit code; the same shape as runCli (test/support/cli.ts), so a
 * test that needs no process reads the same. HTTP goes through the Context: by default the real
 * one (to a test server of the test's on 127.0.0.1, a listener of the test's), or `http`
 * (test/support/fake-api.ts; null: none, a request fails the test).
 * stdin is `input`, or empty and ended, as runCli gives it. Nothing of the process is touched:
 * env, cwd and exit code are the Context's, so runs cannot leak into each other.
 */
export async function runInProcess(args: string[], options: InProcessOptions = {}): Promise<RunResult> {
  const { ctx, atExit } = await inProcessContext(args, options);
  return runMain(ctx, atExit);
}

/** A command that runs until stopped (msgr listen, msgr sandbox), running in-process. */
export interface InProcessDaemon {
  /** What the readiness pattern captured (its first group, else the whole match). */
  readonly ready: string;
  stdout(): string;
  stderr(): string;
  /** Ctrl-C (the Context's interrupt, as main.ts aborts it on SIGINT); then what the command printed and its exit code. */
  stop(): Promise<RunResult>;
}

/**
 * `msgr ARGS` started in-process, as startMsgr (test/support/daemon.ts) starts one in a child:
 * ready once its stdout or stderr matches `ready` (or, for one that prints nothing, such as a
 * listener with -q, once `ready` says so: its URL answers). For the tests whose listener or
 * sandbox is a means, not the point: signals, a process's files and its command line stay with
 * startMsgr.
 * Commands running side by side share main.ts's module state (whether the last parsed --json),
 * which only changes lines wrapped for a terminal, never off one.
 */
export async function startInProcess(args: string[], env: Record<string, string>, ready: RegExp | (() => Promise<boolean>), options: Omit<InProcessOptions, 'env'> = {}, timeoutMs = 15_000): Promise<InProcessDaemon> {
  const controller = new AbortController();
  const { ctx, atExit } = await inProcessContext(args, { ...options, env }, controller.signal);
  let ended: RunResult | undefined;
  const result = runMain(ctx, atExit).then((r) => (ended = r));
  const start = Date.now();
  for (;;) {
    const m = ready instanceof RegExp ? (ready.exec(ctx.err()) ?? ready.exec(ctx.out())) : (await ready()) ? [''] : null;
    if (m !== null) {
      return {
        ready: m[1] ?? m[0] ?? '',
        stdout: () => ctx.out(),
        stderr: () => ctx.err(),
        stop: () => {
          controller.abort('SIGINT');
          return result;
        },
      };
    }
    if (ended !== undefined) throw new Error(`msgr ${args.join(' ')} ended (${ended.code}) before it was ready; stderr: ${ended.stderr}`);
    if (Date.now() - start > timeoutMs) {
      controller.abort('SIGINT');
      throw new Error(`msgr ${args.join(' ')} was not ready in time; stderr: ${ctx.err()}; stdout: ${ctx.out()}`);
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}
