// A big send-bulk starts itself again, once, before it reads anything, with two settings that
// count only when a process starts: V8's young generation capped at 8 MB a semi-space (it grows
// to 32 MB on Node 24 and 26, where the send pass of 1,000,000 rows peaked at 182–187 MB), and
// glibc's trim threshold fixed, so that the malloc arena V8 leaves after compiling undici's
// parser is given back (freeing the preflight's big arrays raises that threshold otherwise).
// Measured on Node 24, the `{{day}}` send of 1,000,000 rows: 182–187 MB as it was, 166 MB with
// the cap alone, 155 MB with the threshold alone, 141–144 MB with both (docs/performance-history.md:
// "Memory, 2026-12-07 (branch m39, second round)"). Node 20 has no execve and needs neither.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Context } from '../../context.js';

/** Input files at least this big restart; so does stdin ('-'), whose size is not known before it is read. */
export const RESTART_MIN_BYTES = 8 * 1024 * 1024;
export const HEAP_FLAG = '--max-semi-space-size=8';
/** glibc's default trim threshold, set: a value given turns its dynamic thresholds off (mallopt(3)). */
export const MALLOC_ENV: Readonly<Record<string, string>> = { MALLOC_TRIM_THRESHOLD_: '131072' };

/**
 * Restarts this send-bulk with HEAP_FLAG when it sends a big input, where Node can
 * (ctx.restart), unless the user's own Node flags already size the young generation; MALLOC_ENV
 * is added unless the environment already tunes malloc (theirs is kept). A dry run, a preview or
 * a sample is not restarted: its peak is in the preflight, which neither setting lowers (Node 26,
 * 143.2 MB on average over 7 dry runs as it is, 145.4 MB restarted). Returns when it does not restart.
 */
export function restartForMemory(ctx: Context, file: string | undefined, opts: { dryRun?: unknown; preview?: unknown; sampleTo?: unknown }): void {
  if (opts.dryRun === true || opts.preview !== undefined || opts.sampleTo !== undefined) return;
  if (file === undefined || (file !== '-' && sizeOf(resolve(ctx.cwd, file)) < RESTART_MIN_BYTES)) return;
  const restart = ctx.restart;
  if (restart === undefined || restart.nodeFlags.some((flag) => /^--max[-_]semi[-_]space[-_]size\b/.test(flag))) return;
  const tuned = Object.keys(ctx.env).some((name) => name.startsWith('MALLOC_'));
  try {
    restart.run([HEAP_FLAG], tuned ? {} : MALLOC_ENV);
  } catch {
    // The exec failed (its errno): the run goes on in this process, as it would have on Node 20.
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
