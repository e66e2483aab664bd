// What a command may use. Commands never touch process.*: main.ts builds a Context from the
// real process, and tests build one with in-memory streams.
import type { ExitCode } from './errors.js';
import type { Http } from './http-interface.js';

export type { ClientFactory, Http } from './http-interface.js';

export interface OutStream {
  write(chunk: string): boolean;
  readonly isTTY?: boolean | undefined;
  readonly columns?: number | undefined;
}

export interface InStream extends AsyncIterable<Buffer | string> {
  readonly isTTY?: boolean | undefined;
}

export interface Context {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly stdout: OutStream;
  readonly stderr: OutStream;
  /** The raw stdin stream (a node Readable in production), for piped text, keys and CSV. */
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean | undefined };
  readonly now: () => Date;
  /**
   * Aborted, with the signal's name as its reason, when a graceful stop starts (SIGINT, SIGTERM
   * or SIGHUP once the command enabled it); only a second Ctrl-C exits at once (main.ts).
   */
  readonly interrupt: AbortSignal;
  readonly version: string;
  /** Node's version (`process.versions.node`), for what msgr can offer on it. */
  readonly nodeVersion: string;
  /** This process's id and platform, and whether another process is alive (for lock owners). */
  readonly pid: number;
  readonly platform: NodeJS.Platform;
  readonly isProcessAlive: (pid: number, procStart?: string) => boolean;
  /** When this process started, as the system counts it (Linux), for the locks it takes. */
  readonly procStart?: string | undefined;
  /** Registers cleanup run before exit (close HTTP agents, servers). */
  readonly onExit: (fn: () => Promise<void> | void) => void;
  /**
   * Registers a synchronous tidy-up for a signal that quits at once (in a command that cannot
   * wind down, or at a second Ctrl-C): the temporary files the command would remove itself had it
   * ended (a report being written, a scratch folder). Run before the exit, last registered first.
   */
  readonly atQuit: (fn: () => void) => void;
  /**
   * A command that can wind down cleanly (bulk: finish in-flight batches, write the journal;
   * send: wait for the answer) calls this once it gets there; a signal then aborts `interrupt`
   * instead of exiting at once. Whatever it waits on from then must also end on `interrupt`.
   * `onQuit` runs, synchronously, when a second Ctrl-C quits at once anyway: it tidies what it
   * can and says whether quitting leaves anything in doubt (the exit code says so: 7, not 130).
   */
  readonly enableGracefulInterrupt: (onQuit?: () => QuitState) => void;
  /**
   * A command that keeps files open for a long time (msgr listen) takes SIGHUP to mean "open
   * them again", as daemons do for log rotation (docs/events.md: "Rotating the events file"),
   * instead of a stop. A SIGHUP that comes because the terminal msgr runs in was closed still
   * stops it (main.ts).
   */
  readonly onHangup: (reopen: () => void) => void;
  /**
   * The one way out to HTTP: the clients that talk to the API and single requests to URLs outside
   * it (forwards, triggers, the sandbox's webhooks), with one sorting of their failures
   * (docs/design.md: "HTTP"). The HTTP stack (undici) loads on the first call, never at start-up,
   * so `--help` and a dry run pay nothing for it (docs/performance.md; a bundle per package,
   * loaded on first use). main.ts gives the real one (src/http/provider.ts); tests give a fake,
   * so a command runs in-process against canned answers.
   */
  readonly http: () => Promise<Http>;
  /**
   * Starts this command again in this process, with Node flags and environment variables that
   * count only at start-up (src/commands/send-bulk/heap.ts): `execve`, so the same process id,
   * stdin, stdout, stderr, arguments and environment, plus these. Undefined where Node cannot
   * (no `process.execve` before Node 22.15, Windows, the single executable file). Returns only if
   * the exec failed, on Node 26 and later (before 26 a failed execve aborts the process, so it is
   * offered only for a Node binary that can be run again); the command then goes on as it is.
   */
  readonly reexec?: Reexec | undefined;
}

export interface Reexec {
  /** The Node flags this process started with: `process.execArgv`, then NODE_OPTIONS. */
  readonly nodeFlags: readonly string[];
  /** The size of stdin when it is a file (`< list.csv`); undefined for a pipe or a terminal, whose size is not known. */
  readonly stdinBytes: () => number | undefined;
  readonly run: (nodeFlags: readonly string[], env: Readonly<Record<string, string>>) => void;
}

/** What quitting at once leaves behind, as the command knows it at that moment. */
export interface QuitState {
  /** A request that may have reached the API has no answer written down. */
  readonly inDoubt: boolean;
  /**
   * The exit code when in doubt: a bulk run's 7 (rows not accepted, some in doubt) unless the
   * command says otherwise (send and api: 6, their one request's outcome unknown).
   */
  readonly inDoubtCode?: ExitCode;
  /** The command that continues the work, once there is something to continue. */
  readonly resume?: string | undefined;
}

/** Colour decision for one stream: NO_COLOR wins, then FORCE_COLOR, then the TTY. */
export function colorLevel(env: Context['env'], stream: OutStream): 0 | 1 | 2 | 3 {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return 0;
  const force = env.FORCE_COLOR;
  if (force !== undefined) {
    if (force === '0' || force === 'false') return 0;
    if (force === '2') return 2;
    if (force === '3') return 3;
    return 1;
  }
  if (!stream.isTTY) return 0;
  if (env.TERM === 'dumb') return 0;
  return env.COLORTERM === 'truecolor' || env.COLORTERM === '24bit' ? 3 : 2;
}
