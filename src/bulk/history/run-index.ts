// What a new run asks of the runs kept before it, answered without reading them all (docs/files.md:
// "The runs' index"): which runs read the same data (by size and quick hash, whatever the file's
// name), and whether a run finished and when. A state folder of 100,000 runs took every new run
// half a minute to read each journal's header, and a file sent every day re-read every earlier
// day's journal whole. The journals stay the record: this index, beside the runs folder
// (`runs.index/`, `sandbox/runs.index/`), is derived from them and checked against them.
//   data/<size>-<quick hash>/<id>   one small file per journal that read that data: its path,
//                                   written before the journal's header is (noteRunData)
//   same/<data hash>/<id>           the same, by the hash of the data however saved (the header's
//                                   input.dataHash, csv/data-hash.ts): the same export saved
//                                   again, with other line ends or quoting, is found by it
//   runs/<id>.json                  a finished journal's state, with the journal's size, inode and
//                                   modification time it holds for (journalState)
//   complete                        every journal there was when it was written is in data/, and
//                                   every msgr since notes its runs before writing them
// <id> is a hash of the journal's path. Without `complete` (a state folder from an older msgr) the
// first run that asks reads every journal once and writes the index. A run an older msgr starts
// after that is found by its file's path, but not by its data under another name.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { runsRoot } from '../../files/state-dir.js';
import { isAnswered, type RunHeader } from '../journal/records.js';
import { loadJournal, readHeader } from '../journal/load.js';
import { journalPaths } from './catalogue.js';

const VERSION = 'v1';

function indexRoot(state: string, sandbox: boolean): string {
  return `${runsRoot(state, sandbox)}.index`;
}

function idOf(journal: string): string {
  return createHash('sha256').update(journal).digest('hex').slice(0, 16);
}

function dataDir(root: string, data: { readonly size: number; readonly quickHash: string }): string {
  return join(root, 'data', `${data.size}-${data.quickHash.slice(0, 32)}`);
}

/** Written aside and renamed: a reader finds a whole file or none. */
function writeWhole(path: string, text: string): void {
  const tmp = `${path}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}.new`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, path);
}

function sameDir(root: string, dataHash: string): string {
  return join(root, 'same', dataHash.slice(0, 32));
}

function note(root: string, data: { readonly size: number; readonly quickHash: string; readonly dataHash?: string | undefined }, journal: string): void {
  for (const dir of [dataDir(root, data), ...(data.dataHash !== undefined && data.dataHash !== '' ? [sameDir(root, data.dataHash)] : [])]) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, idOf(journal));
    if (!existsSync(path)) writeWhole(path, journal);
  }
}

/**
 * Notes that `journal` reads data of this size and quick hash, before its header is written (so
 * a complete index never misses a journal with a header). Best effort: an index that cannot be
 * written is marked incomplete, and the next run that asks reads every journal.
 */
export function noteRunData(state: string, sandbox: boolean, data: { readonly size: number; readonly quickHash: string; readonly dataHash?: string | undefined }, journal: string): void {
  const root = indexRoot(state, sandbox);
  try {
    note(root, data, journal);
  } catch {
    try {
      writeWhole(join(root, 'complete'), 'incomplete');
    } catch {
      // No index at all then, and no marker: read whole next time.
    }
  }
}

/**
 * The journals (real or sandbox runs) whose input had `data`'s size and quick hash, as far as their
 * headers say now. Reads every journal once when the index is not complete, and completes it.
 */
export function journalsWithData(state: string, sandbox: boolean, data: { readonly size: number; readonly quickHash: string }): Array<{ readonly journal: string; readonly header: RunHeader }> {
  const root = indexRoot(state, sandbox);
  let complete = false;
  try {
    complete = readFileSync(join(root, 'complete'), 'utf8') === VERSION;
  } catch {
    // No index yet.
  }
  const out: Array<{ journal: string; header: RunHeader }> = [];
  if (!complete) {
    // Every journal, once: the index is made as they are read.
    const all: Array<{ journal: string; header: RunHeader }> = [];
    for (const journal of journalPaths(state)) {
      const header = readHeader(journal);
      if (header === undefined || (header.target?.sandbox === true) !== sandbox) continue;
      all.push({ journal, header });
    }
    try {
      // No runs, nothing to index (and nothing written to a state folder a dry run only reads).
      if (all.length > 0) {
        for (const { journal, header } of all) note(root, header.input, journal);
        writeWhole(join(root, 'complete'), VERSION);
      }
    } catch {
      // A state folder that cannot be written: read whole again next time.
    }
    for (const r of all) if (r.header.input.size === data.size && r.header.input.quickHash === data.quickHash) out.push(r);
    return out;
  }
  let names: string[] = [];
  try {
    names = readdirSync(dataDir(root, data)).filter((n) => !n.endsWith('.new'));
  } catch {
    // No run read this data.
  }
  const seen = new Set<string>();
  const take = (journal: string, header: RunHeader | undefined): boolean => {
    if (header === undefined || header.input.size !== data.size || header.input.quickHash !== data.quickHash || seen.has(journal)) return false;
    seen.add(journal);
    out.push({ journal, header });
    return true;
  };
  for (const name of names.sort()) {
    let journal: string;
    try {
      journal = readFileSync(join(dataDir(root, data), name), 'utf8');
    } catch {
      continue;
    }
    if (take(journal, readHeader(journal))) continue;
    // Kept under its run id when its file ran again (journal.<run id>[.abandoned].jsonl, runs/
    // open.ts), or gone (pruned), or never written (a run stopped before its header).
    const folder = dirname(journal);
    const stem = basename(journal).replace(/\.jsonl$/, '');
    let siblings: string[] = [];
    try {
      siblings = readdirSync(folder).filter((f) => f.startsWith(`${stem}.`) && f.endsWith('.jsonl'));
    } catch {
      // The folder is gone.
    }
    for (const f of siblings.sort()) take(join(folder, f), readHeader(join(folder, f)));
  }
  return out;
}

/**
 * The journals (real or sandbox runs) whose input held the same data as `dataHash` says, however
 * saved (csv/data-hash.ts), as far as their headers say now. A journal of an older msgr has no
 * data hash: found by its bytes alone (journalsWithData). Without a complete index, every header.
 */
export function journalsWithSameData(state: string, sandbox: boolean, dataHash: string): Array<{ readonly journal: string; readonly header: RunHeader }> {
  const root = indexRoot(state, sandbox);
  let complete = false;
  try {
    complete = readFileSync(join(root, 'complete'), 'utf8') === VERSION;
  } catch {
    // No index yet.
  }
  const candidates: string[] = [];
  if (!complete) candidates.push(...journalPaths(state));
  else {
    const dir = sameDir(root, dataHash);
    let names: string[] = [];
    try {
      names = readdirSync(dir).filter((n) => !n.endsWith('.new'));
    } catch {
      // No run read this data.
    }
    for (const name of names.sort()) {
      let journal: string;
      try {
        journal = readFileSync(join(dir, name), 'utf8');
      } catch {
        continue;
      }
      candidates.push(journal);
      // Kept under its run id when its file ran again (journal.<run id>[.abandoned].jsonl).
      const stem = basename(journal).replace(/\.jsonl$/, '');
      try {
        for (const f of readdirSync(dirname(journal)).sort()) if (f.startsWith(`${stem}.`) && f.endsWith('.jsonl')) candidates.push(join(dirname(journal), f));
      } catch {
        // The folder is gone.
      }
    }
  }
  const out: Array<{ journal: string; header: RunHeader }> = [];
  for (const journal of new Set(candidates)) {
    const header = readHeader(journal);
    if (header === undefined || header.input.dataHash !== dataHash || (header.target?.sandbox === true) !== sandbox) continue;
    out.push({ journal, header });
  }
  return out;
}

/** Whether a journal's every batch is answered, and when its last answer came. */
export interface JournalState {
  readonly finished: boolean;
  readonly finishedAt: string | undefined;
}

interface StoredState extends JournalState {
  readonly journal: string;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
}

/**
 * A journal's state: from the index while the journal is as it was when it was noted (size,
 * inode, modification time), else read whole (undefined when it cannot be read). A finished
 * journal's state is noted; an unfinished one is read again each time (it may go on).
 */
export async function journalState(state: string, sandbox: boolean, journal: string): Promise<JournalState | undefined> {
  let st;
  try {
    st = statSync(journal);
  } catch {
    return undefined;
  }
  const path = join(indexRoot(state, sandbox), 'runs', `${idOf(journal)}.json`);
  try {
    const s = JSON.parse(readFileSync(path, 'utf8')) as StoredState;
    if (s.journal === journal && s.ino === st.ino && s.size === st.size && s.mtimeMs === st.mtimeMs) return { finished: s.finished, finishedAt: s.finishedAt };
  } catch {
    // Not noted yet, or unreadable: read the journal.
  }
  const loaded = await loadJournal(journal).catch(() => undefined);
  if (loaded === undefined) return undefined;
  const found: JournalState = { finished: loaded.states.every(isAnswered), finishedAt: loaded.lastAnswerAt };
  if (found.finished) noteState(path, journal, st, found);
  return found;
}

/**
 * A run that wrote its whole journal and ended with every batch answered notes so itself, as
 * journalState would after reading it (Journal.finished): the next command of the file reads
 * none of it.
 */
export function noteFinished(state: string, sandbox: boolean, journal: string, finishedAt: string | undefined): void {
  let st;
  try {
    st = statSync(journal);
  } catch {
    return;
  }
  noteState(join(indexRoot(state, sandbox), 'runs', `${idOf(journal)}.json`), journal, st, { finished: true, finishedAt });
}

function noteState(path: string, journal: string, st: { readonly ino: number; readonly size: number; readonly mtimeMs: number }, found: JournalState): void {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeWhole(path, `${JSON.stringify({ journal, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ...found } satisfies StoredState)}\n`);
  } catch {
    // Read whole again next time.
  }
}
