// A long-running msgr (listen, sandbox) in a child process, as a user starts one: ready once its
// output says so, stopped with a signal, its output kept.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer } from 'node:net';
import { msgrCommand, ROOT } from './cli.js';

export interface Daemon {
  readonly child: ChildProcessWithoutNullStreams;
  /** What the readiness pattern captured (its first group, else the whole match). */
  readonly ready: string;
  stdout(): string;
  stderr(): string;
  readonly exit: Promise<number | null>;
  /** Sends the signal and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `msgr ...args`; resolves once stdout or stderr matches `ready`. */
export function startMsgr(args: string[], env: Record<string, string>, ready: RegExp, timeoutMs = 15_000): Promise<Daemon> {
  return new Promise((resolve, reject) => {
    // The msgr under test: bin/msgr.js, or the single executable when MSGR_TEST_EXE names one.
    const child = spawn(...msgrCommand(args), { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let done = false;
    const exit = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`msgr ${args.join(' ')} was not ready in time; stderr: ${err}; stdout: ${out}`));
    }, timeoutMs);
    const check = (): void => {
      if (done) return;
      const m = ready.exec(err) ?? ready.exec(out);
      if (m === null) return;
      done = true;
      clearTimeout(timer);
      resolve({
        child,
        ready: m[1] ?? m[0],
        stdout: () => out,
        stderr: () => err,
        exit,
        stop: async (signal = 'SIGINT') => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exit;
        },
      });
    };
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      check();
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      check();
    });
    void exit.then((code) => {
      clearTimeout(timer);
      if (!done) reject(new Error(`msgr ${args.join(' ')} exited (${code}) before it was ready; stderr: ${err}`));
    });
  });
}

/** A port that was free a moment ago (for a process that must be restarted on the same port). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Polls `fn` until it returns (or resolves to) true, or fails after `timeoutMs` with `what`. */
export async function waitFor(what: string, fn: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const start = Date.now();
  while (!(await fn())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const LISTENING = /receiving on (http:\/\/\S+)/;
export const SANDBOX_URL = /^(http:\/\/127\.0\.0\.1:\d+)$/m;
