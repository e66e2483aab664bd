// The file a bulk run reads and how it is known again: the CSV itself, or stdin copied to a file
// first (so it can be read twice and resumed), with the size and quick hash a resume compares
// (docs/bulk.md: Nothing lost, nothing sent twice).
import { closeSync, createReadStream, mkdtempSync, openSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Context } from '../context.js';
import { fileHint, fileProblem, InterruptedError, UsageError } from '../errors.js';
import { pipeError } from './reader.js';
import { fmt } from './progress.js';
import type { RunFlags, RunState } from './run-state.js';
import { ensureDir } from './state.js';

/** The file the run reads: the CSV, or the copy of stdin. */
export interface RunInput {
  readonly path: string;
  readonly stdin: boolean;
  /** For messages: the file as given, or "stdin". */
  readonly label: string;
  readonly identity: InputStat;
  /** A journal now refers to the copy of stdin: it stays after the run. */
  keep(): void;
}

/**
 * The input of the run (stdin copied to a file beside the journal, or to a temporary folder for
 * a dry run), with its identity; a resumed run must read the same bytes.
 */
export async function openInput(ctx: Context, flags: RunFlags, state: RunState, defer: (cleanup: () => void) => void): Promise<RunInput> {
  const { previous, journalPath } = state;
  let path: string;
  let stdin: boolean;
  let kept = false;
  if (previous !== undefined) {
    // A keyed run goes on from whichever path holds its data (checked: bulk/once.ts).
    path = flags.once !== undefined && state.fileAbs !== undefined && !previous.header.input.stdin ? state.fileAbs : previous.header.input.path;
    stdin = previous.header.input.stdin;
  } else if (flags.file === '-') {
    const dir = flags.dryRun ? mkdtempSync(join(tmpdir(), 'msgr-bulk-')) : dirname(journalPath);
    ensureDir(dir);
    path = join(dir, flags.dryRun ? 'stdin.csv' : `${state.runId}.stdin.csv`);
    // Kept only once a journal refers to it.
    const spool = path;
    defer(() => {
      if (flags.dryRun) rmSync(dir, { recursive: true, force: true });
      else if (!kept) rmSync(spool, { force: true });
    });
    await spoolStdin(ctx, path);
    stdin = true;
  } else {
    path = state.fileAbs as string;
    stdin = false;
  }
  const label = stdin ? 'stdin' : (flags.file ?? path);
  const identity = statInput(path, label);
  if (previous !== undefined) {
    const was = previous.header.input;
    if (identity.size !== was.size || identity.quickHash !== was.quickHash) {
      throw new UsageError(`--resume: ${label} changed since run ${state.runId} started (${fmt(was.size)} bytes then, ${fmt(identity.size)} now)`, {
        hint: 'A resumed run must read the same file, or rows could be skipped or sent twice. Restore the file, or start a new run of the changed file with --restart: it leaves out every number this run accepted.',
      });
    }
  }
  return {
    path,
    stdin,
    label,
    identity,
    keep: () => {
      kept = true;
    },
  };
}

export interface InputStat {
  size: number;
  mtimeMs: number;
  quickHash: string;
}

/** The file is still there with the size and quick hash a journal recorded. */
export function sameInput(path: string, was: Pick<InputStat, 'size' | 'quickHash'>): boolean {
  try {
    const now = statInput(path, path);
    return now.size === was.size && now.quickHash === was.quickHash;
  } catch {
    return false;
  }
}

/** The quick hash reads the first and last MiB: a file of at most two is compared whole by it. */
const QUICK_HASH_COVERS = 2 * 1024 * 1024;

/**
 * Whether the data at `path` (its identity `now`) is a run's input again: the same size and quick
 * hash and, for a file longer than the quick hash covers, the SHA-256 of the whole (the preflight's
 * hash), read at most once per `memo`.
 */
export async function sameData(path: string, now: Pick<InputStat, 'size' | 'quickHash'>, was: { readonly size: number; readonly quickHash: string; readonly hash: string }, memo: { hash?: string } = {}): Promise<boolean> {
  if (now.size !== was.size || now.quickHash !== was.quickHash) return false;
  if (now.size <= QUICK_HASH_COVERS) return true;
  memo.hash ??= await contentHash(path);
  return memo.hash === was.hash;
}

function contentHash(path: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolvePromise(hash.digest('hex')));
  });
}

/** Size, mtime and a hash of size + first and last MiB: a cheap check that the file is the same. */
export function statInput(path: string, label: string): InputStat {
  let st;
  try {
    st = statSync(path);
  } catch (err) {
    throw new UsageError(`cannot read ${label} (${fileProblem(err)})`, { hint: fileHint(err) });
  }
  if (st.isDirectory()) throw new UsageError(`${label} is a folder, not a CSV file`);
  const pipe = pipeError(st, true);
  if (pipe !== undefined) throw new UsageError(`${label} ${pipe.message}; nothing was sent`, { hint: pipe.hint });
  const hash = createHash('sha256').update(String(st.size));
  const fd = openSync(path, 'r');
  try {
    const mib = 1024 * 1024;
    const head = Buffer.alloc(Math.min(mib, st.size));
    readSync(fd, head, 0, head.length, 0);
    hash.update(head);
    if (st.size > mib) {
      const tail = Buffer.alloc(Math.min(mib, st.size - mib));
      readSync(fd, tail, 0, tail.length, st.size - tail.length);
      hash.update(tail);
    }
  } finally {
    closeSync(fd);
  }
  return { size: st.size, mtimeMs: st.mtimeMs, quickHash: hash.digest('hex') };
}

/** Copies stdin to `path` (mode 0600): the run reads it more than once, and a resume reads it again. */
export async function spoolStdin(ctx: Context, path: string): Promise<void> {
  if (ctx.stdin.isTTY === true) {
    throw new UsageError('send-bulk -: stdin is a terminal', { hint: 'Pipe the CSV in: `cat recipients.csv | msgr send-bulk - ...`, or give the file name.' });
  }
  const fd = openSync(path, 'w', 0o600);
  // A stop while a writer is slow to finish must not wait for it: nothing has been sent.
  const stopped = new Promise<'stopped'>((resolve) => {
    if (ctx.interrupt.aborted) resolve('stopped');
    else ctx.interrupt.addEventListener('abort', () => resolve('stopped'), { once: true });
  });
  const chunks = ctx.stdin[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await Promise.race([chunks.next(), stopped]);
      if (next === 'stopped') throw new InterruptedError('interrupted while reading stdin; nothing was sent', { hint: 'Run the same command again.' });
      if (next.done === true) break;
      const chunk: Buffer | string = next.value;
      const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      let off = 0;
      while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    }
  } finally {
    closeSync(fd);
  }
}

