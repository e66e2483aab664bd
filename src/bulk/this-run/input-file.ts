// The file a bulk run reads and how it is known again: the CSV itself, or stdin copied to a file
// first (so it can be read twice and resumed), with the size and quick hash a resume compares
// (docs/files.md: "Nothing lost, nothing sent twice").
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Context } from '../../context.js';
import { InterruptedError, UsageError } from '../../errors.js';
import type { Run, RunInput } from './open.js';
import { journalOf, type Campaign } from '../campaign.js';
import { ensureDir } from '../../files/dirs.js';
import { formatCount } from '../../output/count.js';
import { statInput } from '../input/identity.js';
import { FLAG } from '../flag-names.js';

/**
 * The input of the run (stdin copied to a file beside the journal, or to a temporary folder for
 * a dry run), with its identity; a resumed run must read the same bytes.
 */
export async function openInput(ctx: Context, campaign: Campaign, state: Run, defer: (cleanup: () => void) => void): Promise<RunInput> {
  const { journalPath } = state;
  // A dry run, a preview or a sample copies stdin to a folder of its own, removed at the end.
  const scratch = journalOf(campaign.purpose) === 'none';
  let path: string;
  let stdin: boolean;
  let kept = false;
  if (state.kind === 'resume') {
    // A keyed run goes on from whichever path holds its data (checked: bulk/earlier/campaign-key.ts).
    path = campaign.earlier.once !== undefined && state.fileAbs !== undefined && !state.resumed.header.input.stdin ? state.fileAbs : state.resumed.header.input.path;
    stdin = state.resumed.header.input.stdin;
  } else if (campaign.input.file === '-') {
    const dir = scratch ? mkdtempSync(join(tmpdir(), 'msgr-bulk-')) : dirname(journalPath);
    ensureDir(dir);
    path = join(dir, scratch ? 'stdin.csv' : `${state.runId}.stdin.csv`);
    // Kept only once a journal refers to it.
    const spool = path;
    defer(() => {
      if (scratch) rmSync(dir, { recursive: true, force: true });
      else if (!kept) rmSync(spool, { force: true });
    });
    await spoolStdin(ctx, path);
    stdin = true;
  } else {
    path = state.fileAbs as string;
    stdin = false;
  }
  const label = stdin ? 'stdin' : (campaign.input.file ?? path);
  const identity = statInput(path, label);
  if (state.kind === 'resume') {
    const was = state.resumed.header.input;
    if (identity.size !== was.size || identity.quickHash !== was.quickHash) {
      throw new UsageError(`${FLAG.resume}: ${label} changed since run ${state.runId} started (${formatCount(was.size)} bytes then, ${formatCount(identity.size)} now)`, {
        hint: `A resumed run must read the same file, or rows could be skipped or sent twice. Restore the file, or start a new run of the changed file with ${FLAG.restart}: it leaves out every number this run accepted.`,
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

