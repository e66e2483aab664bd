// A send-bulk of a big input starts itself again in the same process (execve: ctx.reexec), once,
// before it reads anything, with two settings that count only when a process starts: V8's young
// generation capped at 2 MB a semi-space (on Node 24 it grows to 32 MB in the send pass, on 26 it
// reaches its cap in some runs and not in others), and glibc's trim threshold set, which stops
// glibc raising it when the preflight's worker frees its big arrays, so the malloc arena V8 leaves
// after compiling undici's HTTP parser is given back. The `{{day}}` send of 1,000,000 rows
// (docs/performance-history.md: "Personalised messages", the second memory round of 2026-12-07):
// Node 24 177–187 MB as it was, 166 MB with an 8 MB cap alone, 155 MB with the threshold alone, with
// both 135–150 MB (8 MB) and 130–147 MB (4 MB; CPU 10.4 s against 10.0–10.1 s and 10.5–11.7 s as
// it was); Node 26 141–165 MB as it was, 136–148 MB with the threshold alone, 131–144 MB with both
// (8 MB), 136–146 MB (4 MB; CPU perhaps 10 % more there, not settled). Node 20 has no execve and
// needs neither (124–128 MB). 2 MB, not 4, since the preflight's worker takes the flag's young
// generation too (V8's flag overrides a worker's own limit): Node 24, 2026-12-08, with the number
// sets sized to their rows, 4 alternated runs each: peaks of 138.4–154.3 MB at 4 MB (1 of 4 over the
// line) and 139.1–144.4 MB at 2 MB; CPU 10.7–13.2 s at 4 MB and 10.7–15.7 s at 2 MB (~9 % more on
// average, at load 1.3–1.6).
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Context } from '../../context.js';
import { lineWidth, wrap } from '../../output/wrap.js';

/** Input files at least this big start again; so does stdin ('-') from a pipe, whose size is not known before it is read. */
export const REEXEC_MIN_BYTES = 8 * 1024 * 1024;
export const HEAP_FLAG = '--max-semi-space-size=2';
/** glibc's default trim threshold, set: a value given turns its dynamic thresholds off (mallopt(3)). */
export const MALLOC_ENV: Readonly<Record<string, string>> = { MALLOC_TRIM_THRESHOLD_: '131072' };

/**
 * Starts this send-bulk again with HEAP_FLAG when it sends a big input, where Node can
 * (ctx.reexec), unless the user's own Node flags already size the young generation; MALLOC_ENV
 * is added unless the environment already tunes malloc (theirs is kept). A dry run, a preview or
 * a sample is not started again: its peak is in the preflight, which neither setting lowers (Node
 * 26, 143.2 MB on average over 7 dry runs as it is, 145.4 MB started again). Returns when it does
 * not start again.
 */
export function reexecForMemory(ctx: Context, file: string | undefined, opts: { dryRun?: unknown; preview?: unknown; sampleTo?: unknown; verbose?: unknown; quiet?: unknown }): void {
  if (opts.dryRun === true || opts.preview !== undefined || opts.sampleTo !== undefined) return;
  const reexec = ctx.reexec;
  if (file === undefined || reexec === undefined) return;
  // stdin's size is known when it is a file (`< list.csv`), not for a pipe.
  const bytes = file === '-' ? reexec.stdinBytes() : sizeOf(resolve(ctx.cwd, file));
  if (bytes !== undefined && bytes < REEXEC_MIN_BYTES) return;
  if (reexec.nodeFlags.some((flag) => /^--max[-_]semi[-_]space[-_]size\b/.test(flag))) return;
  const tuned = Object.keys(ctx.env).some((name) => name.startsWith('MALLOC_'));
  // --verbose says why `ps` shows a Node flag the user did not give. stderr is written at once
  // on Linux (a terminal, a pipe or a file), so the line is out before the exec.
  const say = opts.verbose === true && opts.quiet !== true ? (line: string) => ctx.stderr.write(`${wrap(line, lineWidth(ctx.stderr))}\n`) : () => true;
  const settings = [HEAP_FLAG, ...(tuned ? [] : Object.entries(MALLOC_ENV).map(([k, v]) => `${k}=${v}`))];
  say(`starting msgr again in this process with ${settings.join(' and ')}, for a big send's memory`);
  try {
    reexec.run([HEAP_FLAG], tuned ? {} : MALLOC_ENV);
  } catch {
    say('msgr could not start again: the send goes on as it started');
    // The exec failed (Node 26 throws its errno; before 26 Node aborts instead, which is why
    // ctx.reexec is offered only for a binary that can be run again): the run goes on in this
    // process, as it would have on Node 20.
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    // Missing or unreadable: the run says so itself, in this process.
    return 0;
  }
}
