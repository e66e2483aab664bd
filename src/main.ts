// Builds the program, runs it, maps errors to exit codes. The only module that touches
// process.* (argv, env, stdio, exit, signals). Commander is the one eager import: every
// command's real work is imported when that command runs, so `--version` and `--help` cost
// about as much as bare Node (docs/performance.md).
import { procStartOf, stillThatProcess } from './files/processes.js';
import { accessSync, closeSync, constants, fstatSync, openSync, statSync, writeSync } from 'node:fs';
import { basename } from 'node:path';
import { Command, CommanderError, Help } from 'commander';
import { colorLevel, type Context, type OutStream, type QuitState, type Reexec } from './context.js';
import { errorDocument, ExitCode } from './errors.js';
import { COMMANDS, WHOLE_TREE } from './commands/index.js';
import { optionEnvFromContext, REPEATED_OPTION, refuseRepeatedOptions } from './commands/shared/flags.js';
import { exitCodesHelp } from './commands/help/topics.js';
import { VERSION } from './version.js';
import { showControls } from './output/sanitize.js';
import { lineWidth, pageWidth, wrap, wrapForScripts, wrapPage } from './output/wrap.js';


/**
 * The program. `scope` 'all' registers every command whatever argv says: the build renders the
 * top-level help from it, and `npm run docs` the manual (scripts/docs.mjs walks the tree, so a
 * command added to commands/index.ts gets its pages with no other change).
 */
export function buildProgram(ctx: Context, scope: 'invoked' | 'all' = 'invoked'): Command {
  const program = new Command('msgr');
  program
    .description('Send SMS and RCS messages through the messaging API, one at a time or in bulk from CSV.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .showSuggestionAfterError(true)
    .configureHelp({
      // A command's line in the list is its usage (`api [method] <path>`), not every argument name.
      subcommandTerm: (cmd) => `${cmd.name()} ${cmd.usage()}`.trim(),
      // Fitted to the terminal by the one wrapping function (output/wrap.ts), as the rest of the help.
      boxWrap: (str, width) => wrap(str, width, { hang: 0 }),
      formatItem: fitItem,
      minWidthToWrap: 30,
      // An option group's title (`Delivery (the receipts …):`) fitted too.
      formatItemList: (heading, items, helper) => (items.length === 0 ? [] : [wrap(helper.styleTitle(heading), helper.helpWidth ?? 80), ...items, '']),
    })
    .exitOverride()
    .configureOutput({
      writeOut: (s) => ctx.stdout.write(s),
      // Commander's own errors: on a terminal, fitted to it like every other line for people.
      writeErr: (s) => ctx.stderr.write(wrap(s, lineWidth(ctx.stderr))),
      // "error: …" as every other error; the hint line follows (see the catch below). The message
      // quotes the command line, which a script may have built from a stranger's text: shown as
      // msgr shows any text it did not write (docs/contract.md: "Streams").
      outputError: (s, write) => write(showControls(s)),
      getOutHelpWidth: () => pageWidth(ctx.stdout),
      getErrHelpWidth: () => pageWidth(ctx.stderr),
      // The one colour decision (NO_COLOR, FORCE_COLOR, the terminal) from the Context, as for
      // every other line: commander's own reads process.env.
      getOutHasColors: () => colorLevel(ctx.env, ctx.stdout) > 0,
      getErrHasColors: () => colorLevel(ctx.env, ctx.stderr) > 0,
    })
    .addHelpText('after', (c) => `${exitCodesHelp(pageWidth(c.error ? ctx.stderr : ctx.stdout))}\nRun \`msgr <command> --help\` for a command's options and examples, and \`msgr help\` for the help topics: exit codes, CSV files, placeholders, cron, ...\n`);
  // Only the command being run needs its options built (commander parses every flag string as it
  // is declared): `msgr send` skips the other commands' ~60 options. Anything else, a typo (for
  // suggestions), `help`, any --help (`msgr --help send` is the top-level help), or no command at
  // all, gets every command; so do `help` and `completion`, which describe the whole tree.
  const commands = COMMANDS;
  const first = ctx.argv.find((arg) => !arg.startsWith('-'));
  const help = ctx.argv.includes('-h') || ctx.argv.includes('--help');
  const only = scope === 'all' || help || (first !== undefined && WHOLE_TREE.has(first)) ? undefined : commands.find(([name]) => name === first);
  for (const [, register] of only !== undefined ? [only] : commands) register(program, ctx);
  fitHelpText(program, ctx);
  refuseRepeatedOptions(program);
  optionEnvFromContext(program, ctx.env);
  return program;
}

/**
 * Each command's text before and after its options (`addHelpText`) fitted to the page as the
 * options are: paragraphs filled, examples broken with ` \` (output/wrap.ts, wrapPage). The text
 * is written as it reads, and wrapped only when shown.
 */
function fitHelpText(cmd: Command, ctx: Context): void {
  // A Command is an EventEmitter (addHelpText listens for these events), which its typings omit.
  const emitter = cmd as unknown as NodeJS.EventEmitter;
  for (const event of ['beforeHelp', 'afterHelp']) {
    for (const listener of emitter.listeners(event) as Array<(c: HelpContext) => void>) {
      emitter.off(event, listener);
      emitter.on(event, (c: HelpContext) => listener({ ...c, write: (s: string) => c.write(wrapPage(s, pageWidth(c.error ? ctx.stderr : ctx.stdout))) }));
    }
  }
  for (const sub of cmd.commands) fitHelpText(sub, ctx);
}

interface HelpContext {
  readonly error: boolean;
  readonly write: (s: string) => void;
}

/**
 * An option or a command in the help: Commander's two columns where the description keeps 30
 * columns, else (a narrow terminal, a long option) the description under its term.
 */
function fitItem(this: Help, term: string, termWidth: number, description: string, helper: Help): string {
  const width = helper.helpWidth ?? 80;
  if (description === '' || width - termWidth - 4 >= 30) return Help.prototype.formatItem.call(this, term, termWidth, description, helper);
  return `  ${term}\n${wrap(`      ${description}`, width, { hang: 0 })}`;
}

/** The command's name as typed after `msgr` (`profile add`). */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent != null; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Whether the command being run parsed --json: a quit at once (run() below) still owes its document. */
let jsonAsked = false;
/** What to do after quitting at once with a request in flight, for the command being run. */
let inFlightHint = 'A request in flight may have reached the API: check whether it arrived before sending it again.';

/** Runs msgr with a context; returns the exit code. Never throws. */
export async function main(ctx: Context): Promise<number> {
  wrapForScripts(false);
  const program = buildProgram(ctx);
  // `msgr` alone is a question, not a mistake: its help on stdout, exit 0, as `gh` does.
  // (bin/msgr.js answers it from dist/help.txt without loading this bundle.)
  if (ctx.argv.length === 0) {
    program.outputHelp();
    return ExitCode.OK;
  }
  // --json and --verbose as the command parsed them, never from argv: in `--text --json`,
  // "--json" is the text. Recorded before the action runs, for the errors it throws.
  let parsed: Readonly<Record<string, unknown>> | undefined;
  program.hook('preAction', (_program, action) => {
    parsed = action.opts();
    jsonAsked = parsed.json === true;
    wrapForScripts(jsonAsked);
    if (action.name() === 'send-bulk') inFlightHint = 'A batch in flight may have reached the API: `msgr runs show FILE` lists the run\'s batches in doubt, and --resume continues it.';
  });
  // Which command refused the command line, for the hint.
  let refusedBy: Command = program;
  const watch = (cmd: Command): void => {
    cmd.exitOverride((err) => {
      refusedBy = cmd;
      throw err;
    });
    for (const sub of cmd.commands) watch(sub);
  };
  watch(program);
  try {
    await program.parseAsync([...ctx.argv], { from: 'user' });
    return ExitCode.OK;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here with exit code 0. Parse errors, and help shown because a
      // subcommand was missing (`msgr profile`), are usage errors.
      if (err.exitCode === 0) return ExitCode.OK;
      // --json promises one document on stdout, even when the command line itself is wrong: the
      // options Commander had parsed when it stopped say whether --json was given as a flag.
      // A command that takes no --json refuses it as an unknown option, and an unknown command
      // is refused before its flags are read: there "--json" cannot be another flag's value,
      // so the user asked for JSON and gets the document.
      const askedJson = (err.code === 'commander.unknownOption' && /'--json'/.test(err.message)) || (err.code === 'commander.unknownCommand' && ctx.argv.includes('--json'));
      const path = commandPath(refusedBy);
      const hint = err.code === REPEATED_OPTION
        ? `Give it once. The options that take several values say "repeatable" in: msgr ${path} --help`
        : `See the ${path === '' ? 'commands' : 'options'} with: msgr ${path === '' ? '' : `${path} `}--help`;
      if (parsedFlag(program, 'json') || askedJson) {
        ctx.stdout.write(`${JSON.stringify(errorDocument(err.message.replace(/^error: /, ''), hint, ExitCode.USAGE), null, 2)}\n`);
      } else if (err.code !== 'commander.help' && err.code !== 'commander.helpDisplayed') {
        // Commander wrote the "error:" line (outputError); what to do comes next, as for every error.
        ctx.stderr.write(`${wrap(`hint: ${hint}`, lineWidth(ctx.stderr))}\n`);
      }
      return ExitCode.USAGE;
    }
    const { reportError } = await import('./output/report-error.js');
    const { verbosity } = await import('./output/ui.js');
    // An error thrown while parsing (an option refused by its own listener, such as --api-key)
    // comes before any action: the flags Commander had parsed by then decide.
    const opts = parsed ?? { json: parsedFlag(program, 'json'), quiet: parsedFlag(program, 'quiet'), verbose: parsedFlag(program, 'verbose') };
    let verbose = false;
    try {
      verbose = verbosity({ quiet: opts.quiet === true, verbose: opts.verbose === true }).verbose;
    } catch {
      // -q with -v: the usage error says so, without a stack trace.
    }
    return reportError(ctx, err, { verbose, json: opts.json === true });
  }
}

/** A boolean flag some command of the program had parsed when parsing stopped. */
function parsedFlag(command: Command, name: string): boolean {
  return command.opts()[name] === true || command.commands.some((sub) => parsedFlag(sub, name));
}

/**
 * What a signal does (docs/unattended.md: "Stopping"). A command that can wind down (finish what is
 * in flight, write down where it stopped) asks for it with ctx.enableGracefulInterrupt(); before
 * that, or in any other command, every signal quits at once, as nothing is in flight. Then:
 * SIGINT, SIGTERM and SIGHUP all start the same stop. SIGTERM and SIGHUP never do more, however
 * often they come: supervisors repeat them (GNU `timeout` signals the process and then its whole
 * group; systemd and a closing ssh session each send their own) and escalate with SIGKILL, never
 * with another SIGTERM. Only a second Ctrl-C, a person's choice, quits at once. A SIGINT within
 * SAME_SIGNAL_MS of the stop's start is the first one delivered twice (`timeout -s INT` does
 * that too), not a second press.
 */
export type SignalAction = 'stop' | 'quit' | 'ignore';
export const SAME_SIGNAL_MS = 100;

export function signalAction(sig: NodeJS.Signals, state: { readonly graceful: boolean; readonly stoppingSince: number | undefined }, now: number): SignalAction {
  if (!state.graceful) return 'quit';
  if (state.stoppingSince === undefined) return 'stop';
  if (sig !== 'SIGINT') return 'ignore';
  return now - state.stoppingSince < SAME_SIGNAL_MS ? 'ignore' : 'quit';
}

const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Whether this process has a controlling terminal that still works: /dev/tty opens (ENXIO once
 * the terminal hung up, or in a service that never had one). Measured with `script` and setsid.
 */
function hasTerminal(): boolean {
  if (process.platform === 'win32') return false;
  try {
    closeSync(openSync('/dev/tty', 'r'));
    return true;
  } catch {
    return false;
  }
}

/** stdout or stderr as run() writes to it, and launch() flushes it before the exit. */
interface Output extends OutStream {
  write(chunk: string, done?: () => void): boolean;
}
interface Outputs {
  readonly stdout: Output;
  readonly stderr: Output;
}

/** The process's stdout and stderr: written directly where they are files, else Node's streams. */
function processOutputs(): Outputs {
  return { stdout: fileOutput(1) ?? nodeOutput(process.stdout), stderr: fileOutput(2) ?? nodeOutput(process.stderr) };
}

/**
 * Standard output or error (`fd` 1 or 2) where it is a file or /dev/null (`>> log` or
 * `> /dev/null` from cron, the bench): there Node's own stream is a SyncWriteStream, which makes
 * one fs.writeSync() of each chunk; here the same writes are made without it, as it loads
 * node:stream and its ~40 modules: ~9 M instructions of `send --dry-run` (docs/
 * performance-history.md: "What start-up costs"). As with that stream, a failed write is dropped
 * and so is every later one. Anything else (a terminal, a pipe): undefined, for Node's stream.
 */
function fileOutput(fd: 1 | 2): Output | undefined {
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() && !(stat.isCharacterDevice() && stat.rdev === statSync('/dev/null').rdev)) return undefined;
  } catch {
    return undefined;
  }
  let failed = false;
  return {
    write: (chunk, done) => {
      try {
        if (!failed && chunk !== '') writeSync(fd, chunk);
      } catch {
        failed = true;
      }
      done?.();
      return !failed;
    },
  };
}

/** Node's stream for a terminal or a pipe. */
function nodeOutput(stream: NodeJS.WriteStream): Output {
  // A reader that went away (`msgr ... | head -1`, a closed ssh session: EPIPE, EIO) must not
  // crash the run or change its outcome: what was to be written is dropped, the work goes on, and
  // the exit code is the work's. A stream that failed once stays failed; Node then drops writes.
  stream.on('error', () => undefined);
  return stream;
}

/** Entry from bin/msgr.js: a Context from the real process, signals, and cleanup. */
export async function run({ stdout, stderr }: Outputs = processOutputs()): Promise<number> {
  const controller = new AbortController();
  const cleanups: Array<() => Promise<void> | void> = [];
  const quitTidies: Array<() => void> = [];
  const state = { graceful: false, stoppingSince: undefined as number | undefined, finished: false, onQuit: undefined as (() => QuitState) | undefined, onHangup: undefined as (() => void) | undefined, hadTerminal: false };
  let wroteStdout = false;
  const onSignal = (sig: NodeJS.Signals): void => {
    if (state.finished) return;
    // A reopen (log rotation), unless the terminal msgr was started from is gone: closing it
    // sends SIGHUP too, and then it stops as ever.
    if (sig === 'SIGHUP' && state.onHangup !== undefined && state.stoppingSince === undefined && !(state.hadTerminal && !hasTerminal())) {
      state.onHangup();
      return;
    }
    const now = performance.now();
    const action = signalAction(sig, state, now);
    if (action === 'ignore') return;
    if (action === 'stop') {
      state.stoppingSince = now;
      controller.abort(sig);
      return;
    }
    // A second Ctrl-C, or a command with nothing to wind down: leave now. Bulk journals are
    // written append-only and flushed per record, so an abrupt exit leaves them consistent.
    // Requests left without their answers are in doubt: exit 7, as for a run that drained with
    // batches in doubt, or the code the command gives (send and api: 6, their one request's
    // outcome unknown; docs/contract.md: "Exit codes"). A command that does not say (no onQuit) exits 130;
    // one whose onQuit fails counts as in doubt, the side that gets the rows checked.
    let inDoubt = false;
    let inDoubtCode: ExitCode | undefined;
    let resume: string | undefined;
    if (state.graceful && state.onQuit !== undefined) {
      try {
        ({ inDoubt, inDoubtCode, resume } = state.onQuit());
      } catch {
        inDoubt = true;
      }
    }
    for (const fn of quitTidies.reverse()) {
      try {
        fn();
      } catch {
        // Temporary files only: quitting goes on.
      }
    }
    const code = inDoubt ? (inDoubtCode ?? ExitCode.PARTIAL) : ExitCode.INTERRUPTED;
    // The summary that would say how to continue is not written: the command is said here.
    const resumeHint = resume !== undefined ? `Resume with: ${resume}` : undefined;
    const left = code === ExitCode.OUTCOME_UNKNOWN ? ': the request sent is left without its answer (its outcome is unknown)' : ': batches are left in doubt (a request sent has no answer written down)';
    const width = lineWidth(stderr);
    stderr.write(`\n${wrap(`msgr: interrupted${inDoubt ? left : ''}`, width)}\n${resumeHint !== undefined ? `${wrap(`hint: ${resumeHint}`, width)}\n` : ''}`);
    // --json promises one document on stdout, also now: unless the command wrote its own already.
    // Writes to a file or a pipe are synchronous, so it is out before the exit.
    if (jsonAsked && !wroteStdout) {
      // Before a command can wind down, nothing of it is in flight (see signalAction).
      const doc = !state.graceful
        ? errorDocument('interrupted', 'Nothing was in flight: run the command again.', code)
        : state.onQuit !== undefined && !inDoubt
          ? errorDocument('interrupted: quit at once; no request was waiting for its answer, nothing is in doubt', resumeHint ?? 'Nothing was in flight: run the command again.', code)
          : errorDocument(`interrupted: quit at once, without waiting for ${code === ExitCode.OUTCOME_UNKNOWN ? 'the answer to the request' : 'the answers'} in flight`, resumeHint !== undefined ? `${inFlightHint}\n      ${resumeHint}` : inFlightHint, code);
      stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    }
    process.exit(code);
  };
  for (const sig of STOP_SIGNALS) process.on(sig, onSignal);

  const ctx: Context = {
    argv: process.argv.slice(2),
    env: process.env,
    cwd: process.cwd(),
    stdout: {
      write: (chunk: string) => {
        wroteStdout = true;
        return stdout.write(chunk);
      },
      get isTTY() {
        return stdout.isTTY;
      },
      get columns() {
        return stdout.columns;
      },
    },
    stderr,
    // Lazy: touching process.stdin opens it, and an opened stdin can hold the exit ~100 ms.
    get stdin() {
      return process.stdin;
    },
    now: clockOf(process.env.MSGR_TEST_CLOCK),
    interrupt: controller.signal,
    version: VERSION,
    nodeVersion: process.versions.node,
    pid: process.pid,
    platform: process.platform,
    isProcessAlive,
    // Read when a lock is taken (src/files/lock.ts), not at every start: the same every time.
    get procStart() {
      return procStartOf(process.pid);
    },
    onExit: (fn) => cleanups.push(fn),
    atQuit: (fn) => quitTidies.push(fn),
    enableGracefulInterrupt: (onQuit) => {
      state.graceful = true;
      state.onQuit = onQuit;
    },
    onHangup: (reopen) => {
      state.onHangup = reopen;
      state.hadTerminal = hasTerminal();
    },
    http: () => import('./http/provider.js').then((m) => m.http),
    // Lazy: only a command that would start again asks (send-bulk of a big file).
    get reexec() {
      return reexecOf();
    },
  };
  const code = await main(ctx);
  for (const fn of cleanups.reverse()) {
    try {
      await fn();
    } catch {
      // Cleanup failures must not change the exit code the user relies on.
    }
  }
  // The outcome is decided: a late signal must not turn it into 130 while the output drains.
  state.finished = true;
  return code;
}

/**
 * Entry from the launchers (bin/msgr.js; bin/sea.cjs in the single executable file): runs msgr
 * and exits with its code. run() reports every error itself; a failure while reporting one (a
 * damaged install) is one line, exit 1, no stack unless asked for. Leaves once stdout and stderr
 * are flushed: undici's closed sockets can hold the event loop ~100 ms after every send.
 */
export function launch(): void {
  const { stdout, stderr } = processOutputs();
  run({ stdout, stderr }).then((code) => {
    process.exitCode = code;
    stdout.write('', () => stderr.write('', () => process.exit(code)));
  }, (err: unknown) => {
    const args = process.argv.slice(2);
    const stack = args.includes('--verbose') || args.includes('-v') ? `${err instanceof Error ? err.stack : String(err)}\n` : '';
    process.stderr.write(`msgr: internal error: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}\n${stack}`);
    process.exitCode = 1;
  });
}


/**
 * ctx.reexec: `process.execve` (Node 22.15 and later, not on Windows), the same Node with the
 * flags it started with, the new ones, then msgr's own arguments. Not in the single executable
 * file, whose arguments are all msgr's (no Node flag can be passed on); not when Node was started
 * through another program (`ld-linux-x86-64.so.2 node …`, which Node reports as its own path and
 * which would take the flags as its own); not when the binary cannot be run again (before Node 26
 * a failed execve aborts the process instead of returning).
 */
function reexecOf(): Reexec | undefined {
  const execve = (process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => void }).execve;
  if (typeof execve !== 'function') return undefined;
  const sea = process.getBuiltinModule('node:sea') as { isSea?: () => boolean } | undefined;
  if (sea?.isSea?.() === true) return undefined;
  if (!/^node/i.test(basename(process.execPath))) return undefined;
  try {
    accessSync(process.execPath, constants.X_OK);
  } catch {
    return undefined;
  }
  // NODE_OPTIONS may quote a flag ("--max-semi-space-size=16"), as Node allows.
  const fromEnv = (process.env.NODE_OPTIONS ?? '').split(/\s+/).map((flag) => flag.replace(/^"|"$/g, '')).filter((flag) => flag !== '');
  return {
    nodeFlags: [...process.execArgv, ...fromEnv],
    stdinBytes: () => {
      try {
        const stat = fstatSync(0);
        return stat.isFile() ? stat.size : undefined;
      } catch {
        return undefined;
      }
    },
    run: (nodeFlags, env) => execve.call(process, process.execPath, [process.execPath, ...process.execArgv, ...nodeFlags, ...process.argv.slice(1)], { ...process.env, ...env }),
  };
}

/**
 * The clock: the real one, or in tests (MSGR_TEST_CLOCK=2026-01-15T12:00:00Z@600, read only by
 * the tests of send windows: test/e2e/send-windows.test.ts) one that starts at that instant and
 * runs that many times faster, so a run can be seen to wait for a window and go on.
 */
function clockOf(spec: string | undefined): () => Date {
  const m = spec !== undefined ? /^([^@]+)(?:@(\d+(?:\.\d+)?))?$/.exec(spec.trim()) : null;
  const start = m !== null ? Date.parse(m[1] ?? '') : Number.NaN;
  if (m === null || !Number.isFinite(start)) return () => new Date();
  const speed = Number(m[2] ?? '1');
  const t0 = performance.now();
  return () => new Date(start + (performance.now() - t0) * speed);
}

/**
 * True when a process with this id exists (EPERM: it does, but belongs to someone else) and holds
 * what it took (src/files/processes.ts: not a zombie, and, with `procStart`, the one that started then).
 */
export function isProcessAlive(pid: number, procStart?: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return stillThatProcess(pid, procStart);
}
