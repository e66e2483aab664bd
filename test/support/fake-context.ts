// A Context for running commands and domain code in-process: captured stdout and stderr, a
// PassThrough stdin that can pretend to be a terminal, and no process.* anywhere.
import { PassThrough } from 'node:stream';
import { after } from 'node:test';
import type { ClientFactory, Context, Http } from '../../src/context.js';

// What a command asks to run at exit (an in-process sandbox's close): run after the file's tests,
// as main.ts runs them when a real process ends, so nothing is left open to keep the file alive.
const exitHooks: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const fn of exitHooks.splice(0)) await fn();
});

export type FakeStdin = PassThrough & { isTTY?: boolean; setRawMode?: (raw: boolean) => void; rawCalls: boolean[] };

export interface FakeContextOptions {
  env?: Record<string, string | undefined>;
  /** stdin and stderr (and stdout) claim to be a terminal. */
  tty?: boolean;
  /** The terminal's width, with `tty` (undefined: the terminal does not say). */
  columns?: number;
  /** Written to stdin, which then ends. */
  input?: string;
  /** The API clients the command gets (test/support/fake-api.ts); by default none: a request fails the test. */
  http?: ClientFactory;
  /** The requests outside the API (forwards, triggers, webhooks); by default none: one fails the test. */
  hook?: Http['hook'];
}

export type FakeContext = Context & { out: () => string; err: () => string; stdinStream: FakeStdin; type: (s: string) => void };

/** The process facts of a Context, from this test process (Node's version pinned for hints). */
export const testProcess: Pick<Context, 'nodeVersion' | 'pid' | 'platform' | 'isProcessAlive'> = {
  nodeVersion: '20.20.2',
  pid: process.pid,
  platform: process.platform,
  isProcessAlive: (pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'EPERM';
    }
  },
};

/** For a Context that must send nothing: asking for its HTTP fails the test. */
export const noHttp = (): Promise<Http> => Promise.reject(new Error('this test gives the command no HTTP: pass fakeContext({ http }) or ({ hook })'));

const noHook: Http['hook'] = () => Promise.reject(new Error('this test gives the command no requests outside the API: pass fakeContext({ hook })'));
const noClient: ClientFactory = () => {
  throw new Error('this test gives the command no API client: pass fakeContext({ http })');
};

export function fakeContext(options: FakeContextOptions = {}): FakeContext {
  let out = '';
  let err = '';
  const tty = options.tty === true;
  const stdin = new PassThrough() as FakeStdin;
  stdin.rawCalls = [];
  if (tty) {
    stdin.isTTY = true;
    stdin.setRawMode = (raw) => void stdin.rawCalls.push(raw);
  }
  if (options.input !== undefined) stdin.end(options.input);
  return {
    argv: [],
    env: options.env ?? {},
    cwd: process.cwd(),
    stdout: { write: (s: string) => ((out += s), true), isTTY: tty, columns: tty ? options.columns : undefined },
    stderr: { write: (s: string) => ((err += s), true), isTTY: tty, columns: tty ? options.columns : undefined },
    stdin,
    now: () => new Date(),
    interrupt: new AbortController().signal,
    version: 'test',
    ...testProcess,
    onExit: (fn) => void exitHooks.push(fn),
    atQuit: () => {},
    enableGracefulInterrupt: () => {},
    onHangup: () => {},
    http: options.http !== undefined || options.hook !== undefined ? () => Promise.resolve({ client: options.http ?? noClient, hook: options.hook ?? noHook }) : noHttp,
    out: () => out,
    err: () => err,
    stdinStream: stdin,
    type: (s) => void stdin.write(s),
  };
}
