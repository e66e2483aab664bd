// How a file is known again (docs/files.md: "Nothing lost, nothing sent twice"): its size and a quick
// hash of its first and last MiB, cheap enough for every resume and `msgr runs`, and its whole
// content's hash where those agree.
import { closeSync, createReadStream, openSync, readSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { fileHint, fileProblem, UsageError } from '../../errors.js';
import { pipeError } from '../../csv/reader.js';

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
