// src/bulk/history/: the runs msgr keeps, read back. catalogue.ts (this file) lists, finds and
// prunes them; state-folder.ts is where a file's runs live; messaged.ts whom their accepted
// batches messaged, and when; run-delivery.ts what the saved receipts say became of their messages;
// run-index.ts the index that finds runs of the same data without reading them all.
// It imports journal/ alone: which run a command is, and what it sends, is this-run/'s.
//
// The runs msgr keeps (`msgr runs`): every journal in the state folder, real and sandbox, what
// each sent where (docs/files.md: "Runs"); `msgr runs report` writes a run's full report from
// them (bulk/earlier/full-report.ts).
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError } from '../../errors.js';
import { isAnswered, type DoneRecord, type RunHeader, type SendRecord } from '../journal/records.js';
import { JournalError, loadJournal, outcomeTotals, readHeader, type LoadedJournal } from '../journal/load.js';
import { lockHolder, type LockOwner, type LockProcess } from '../../files/lock.js';
import { realFile, runDirFor, stdinRunDir } from './state-folder.js';
import { ensureDir } from '../../files/dirs.js';
import { runsRoot } from '../../files/state-dir.js';
import { FLAG } from '../flag-names.js';

/** One run as `runs list` shows it. */
export interface RunInfo {
  readonly runId: string;
  readonly journal: string;
  readonly file: string;
  readonly target: RunHeader['target'] | null;
  readonly startedAt: string;
  readonly rows: number;
  readonly toSend: number;
  readonly accepted: number;
  readonly alreadySent: number;
  readonly rejected: number;
  readonly inDoubt: number;
  readonly notSent: number;
  /** Every batch accepted or rejected: nothing left to resume. */
  readonly finished: boolean;
  /** Given up for a new run (--restart). */
  readonly abandoned: boolean;
  /** When the run last wrote to its journal. */
  readonly lastActivity: string;
  readonly msgr: string;
  /** Its campaign key (--once); null: a run without one. */
  readonly once: string | null;
}

/**
 * A run whose journal is kept elsewhere (--journal) leaves its path in its file's own run folder,
 * so that a run of the file without --journal finds it (docs/files.md: "Nothing lost, nothing
 * sent twice"): one small file per journal, `elsewhere.<hash of the journal's path>.json`. A run that
 * reads stdin leaves it in a `stdin-<run id>` folder, where a run of the same data looks.
 */
const POINTER = /^elsewhere\.[0-9a-f]{12}\.json$/;

export function pointerPath(runDir: string, journal: string): string {
  return join(runDir, `elsewhere.${createHash('sha256').update(journal).digest('hex').slice(0, 12)}.json`);
}

/** Leaves the pointer to `journal` in `runDir` (written aside and renamed: never half a one). */
export function writePointer(runDir: string, journal: string): void {
  const path = pointerPath(runDir, journal);
  ensureDir(runDir);
  const tmp = `${path}.${randomBytes(4).toString('hex')}.new`;
  writeFileSync(tmp, `${JSON.stringify({ journal })}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}

/** The journal paths the pointers in `runDir` name, each once (none when it has none). */
export function pointedJournals(runDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(runDir).filter((n) => POINTER.test(n));
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of names) {
    let journal: unknown;
    try {
      journal = (JSON.parse(readFileSync(join(runDir, name), 'utf8')) as { journal?: unknown }).journal;
    } catch {
      continue;
    }
    if (typeof journal === 'string' && !out.includes(journal)) out.push(journal);
  }
  return out;
}

/**
 * The journals kept elsewhere that the run folder `runDir` points to and that are still runs of
 * its file (for a `stdin-<run id>` folder, that run): a pointer whose journal is gone, was
 * replaced by another file's run, or is no journal is passed over (never followed to another
 * file's run). Newest run first.
 */
export function journalsElsewhere(state: string, runDir: string, sandbox: boolean): Array<{ readonly journal: string; readonly header: RunHeader }> {
  const out: Array<{ journal: string; header: RunHeader }> = [];
  for (const journal of pointedJournals(runDir)) {
    const header = readHeader(journal);
    if (header === undefined) continue;
    // A run that read stdin points from a folder of its own, named after it.
    const own = header.input.stdin ? stdinRunDir(state, header.runId, sandbox) : runDirFor(state, realFile(header.input.path), sandbox);
    if (own !== runDir) continue;
    out.push({ journal, header });
  }
  return out.sort((a, b) => b.header.createdAt.localeCompare(a.header.createdAt));
}

/**
 * Every journal under the state folder's run folders (real runs, then sandbox runs), and the
 * journals kept elsewhere that they point to.
 */
export function journalPaths(state: string): string[] {
  const out: string[] = [];
  // A Set beside the list: `includes` on the list made this quadratic (100,000 runs: minutes).
  const seen = new Set<string>();
  const add = (journal: string): void => {
    if (seen.has(journal)) return;
    seen.add(journal);
    out.push(journal);
  };
  for (const root of [runsRoot(state, false), runsRoot(state, true)]) {
    let dirs: string[];
    try {
      dirs = readdirSync(root);
    } catch {
      continue;
    }
    for (const d of dirs.sort()) {
      const dir = join(root, d);
      let files: string[];
      try {
        files = readdirSync(dir);
      } catch {
        continue;
      }
      // Each journal once: a keyed run's (runs/once-…) is also pointed to from its file's folder.
      for (const f of files.sort()) if (/^journal(\..+)?\.jsonl$/.test(f) && !f.endsWith('.new')) add(join(dir, f));
      if (files.some((f) => POINTER.test(f))) for (const e of journalsElsewhere(state, dir, root === runsRoot(state, true))) add(e.journal);
    }
  }
  return out;
}

/** The journal of a CSV file's run (its real path), real or sandbox, kept in its run folder or elsewhere. */
function fileRunJournal(state: string, file: string): string | undefined {
  for (const sandbox of [false, true]) {
    const dir = runDirFor(state, file, sandbox);
    const j = join(dir, 'journal.jsonl');
    if (existsSync(j)) return j;
    const elsewhere = journalsElsewhere(state, dir, sandbox)[0];
    if (elsewhere !== undefined) return elsewhere.journal;
  }
  return undefined;
}

/**
 * The journal a user means by `ref`: a journal's path, an input file's path (its current run,
 * real or else sandbox), or a run id (or the start of one) of a run in the state folder.
 */
export function findRun(state: string, cwd: string, ref: string, flag: string): string {
  const abs = resolve(cwd, ref);
  if (existsSync(abs) && statSync(abs).isFile()) {
    if (readHeader(abs) !== undefined) return abs;
    const own = fileRunJournal(state, realFile(abs));
    if (own !== undefined) return own;
    throw new UsageError(`${flag}: ${ref} is neither a msgr journal nor a file msgr has a run of`, { hint: '`msgr runs list` shows the runs msgr has, with their ids.' });
  }
  // A CSV file moved or deleted since its run: its run folder is still known by its path.
  const gone = existsSync(abs) ? undefined : fileRunJournal(state, join(realFile(dirname(abs)), basename(abs)));
  if (gone !== undefined) return gone;
  // A run id (20261124T030218Z-dd8ae77b), its first 8 or more characters, or its random part.
  const suffix = /^[0-9a-f]{8}$/.test(ref) ? `-${ref}` : undefined;
  const matches = journalPaths(state).filter((p) => {
    const id = readHeader(p)?.runId;
    return id !== undefined && (id === ref || (ref.length >= 8 && id.startsWith(ref)) || (suffix !== undefined && id.endsWith(suffix)));
  });
  if (matches.length === 1) return matches[0] as string;
  if (matches.length > 1) throw new UsageError(`${flag}: "${ref}" names ${matches.length} runs`, { hint: 'Give the whole run id, or the journal path (`msgr runs list`).' });
  throw new UsageError(`${flag}: no run "${ref}" in ${runsRoot(state)} (nor the sandbox's)`, {
    hint: ref.length < 8
      ? 'Give at least the first 8 characters of a run id, or its last 8 (after the "-"), from `msgr runs list`.'
      : `Give a run id or journal path from \`msgr runs list\`, or the path of a journal kept elsewhere (${FLAG.journal}).`,
  });
}

export interface RunDetail {
  readonly loaded: LoadedJournal;
  /** Per batch sent: its last "send" record and its last "done" record. */
  readonly sends: Map<number, SendRecord>;
  readonly dones: Map<number, DoneRecord>;
  /** Per batch sent: when its first request left (a resend keeps the key of the first). */
  readonly firstSent: Map<number, string>;
}

export async function readRunDetail(journal: string, flag: string): Promise<RunDetail> {
  const sends = new Map<number, SendRecord>();
  const dones = new Map<number, DoneRecord>();
  const firstSent = new Map<number, string>();
  try {
    const loaded = await loadJournal(journal, {
      onSend: (r) => {
        sends.set(r.batch, r);
        if (!firstSent.has(r.batch) && typeof r.at === 'string') firstSent.set(r.batch, r.at);
      },
      onDone: (r) => dones.set(r.batch, r),
    });
    return { loaded, sends, dones, firstSent };
  } catch (err) {
    if (err instanceof JournalError) throw new UsageError(`${flag}: ${err.message}`);
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new UsageError(`${flag}: ${journal} is gone`);
    throw err;
  }
}

/** The figures of one run, from its journal. */
export async function runInfo(journal: string): Promise<RunInfo> {
  let loaded: LoadedJournal;
  try {
    loaded = await loadJournal(journal);
  } catch (err) {
    if (err instanceof JournalError) throw new UsageError(err.message);
    throw err;
  }
  const h = loaded.header;
  const { accepted, rejected, inDoubt, excluded } = outcomeTotals(loaded);
  const finished = loaded.states.every(isAnswered);
  return {
    runId: h.runId,
    journal,
    file: h.input.stdin ? 'stdin' : h.input.path,
    target: h.target ?? null,
    startedAt: h.createdAt,
    rows: h.totals.rows,
    toSend: h.totals.toSend,
    accepted,
    alreadySent: h.totals.alreadySent ?? 0,
    rejected,
    inDoubt,
    notSent: h.totals.toSend - accepted - rejected - inDoubt - excluded,
    finished,
    abandoned: /\.abandoned\.jsonl$/.test(journal),
    lastActivity: statSync(journal).mtime.toISOString(),
    msgr: h.msgr,
    once: h.once?.key ?? null,
  };
}

/** A journal msgr cannot read (emptied, cut in its header, not a journal): shown, never passed over. */
export interface UnreadableJournal {
  readonly journal: string;
  readonly why: string;
  /** When it was last written. */
  readonly lastActivity: string;
}

export async function listRuns(state: string): Promise<RunInfo[]> {
  return (await catalogueRuns(state)).runs;
}

/** Every run in the state folder, oldest first, and the journals there that cannot be read. */
export async function catalogueRuns(state: string): Promise<{ readonly runs: RunInfo[]; readonly unreadable: UnreadableJournal[] }> {
  const out: RunInfo[] = [];
  const unreadable: UnreadableJournal[] = [];
  for (const p of journalPaths(state)) {
    try {
      out.push(await runInfo(p));
    } catch (err) {
      // It may be the only record of whom a run messaged: listed as such (docs/files.md: "A journal that cannot be read").
      let lastActivity = '';
      try {
        lastActivity = statSync(p).mtime.toISOString();
      } catch {
        continue;
      }
      unreadable.push({ journal: p, why: unreadableWhy(err), lastActivity });
    }
  }
  return { runs: out.sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.runId.localeCompare(b.runId)), unreadable };
}

/** Why a journal cannot be read, for people: `it is empty`, `its first line is not a run header`. */
export function unreadableWhy(err: unknown): string {
  if (err instanceof JournalError || err instanceof UsageError) {
    const m = /(is empty|is not a msgr journal.*|is a version .*)$/.exec(err.message);
    return m !== null ? (m[1] as string).replace(/^is /, 'it is ') : err.message;
  }
  const code = (err as NodeJS.ErrnoException).code;
  return code !== undefined ? `it cannot be read (${code})` : String((err as Error).message);
}

export interface PruneResult {
  readonly removed: RunInfo[];
  /** Old enough but not finished, and not abandoned: kept, they can still be resumed. */
  readonly keptUnfinished: RunInfo[];
  /** Finished or abandoned, but a run kept (unfinished, or recent) leaves out their numbers: its --resume and report read them. */
  readonly keptNeeded: RunInfo[];
  /** Finished and old, but kept by --journal outside msgr's folder: the user's file. */
  readonly keptElsewhere: RunInfo[];
}

/**
 * Removes finished and abandoned runs whose journal was last written more than `olderThanMs` ago:
 * the journal, a stdin run's copy of its data, and the run folder once nothing else is in it.
 * Unfinished runs, and runs that a run kept (unfinished, or too recent) leaves out the numbers of
 * (its --resume and its report read them: a run --restart replaced is one), are kept. An abandoned run is never resumed: it only marks
 * what it accepted, for the run that replaced it and for `msgr runs report`.
 */
export async function pruneRuns(state: string, olderThanMs: number, proc: LockProcess, dryRun: boolean): Promise<PruneResult> {
  const now = proc.now();
  const removed: RunInfo[] = [];
  const keptUnfinished: RunInfo[] = [];
  const keptNeeded: RunInfo[] = [];
  const keptElsewhere: RunInfo[] = [];
  const runs = await listRuns(state);
  const needed = new Set<string>();
  const mark = (journal: string): void => {
    const p = resolve(journal);
    if (needed.has(p)) return;
    needed.add(p);
    const h = readHeader(p);
    for (const s of h?.skipSent ?? []) mark(s.journal);
  };
  const isOld = (r: RunInfo): boolean => now.getTime() - Date.parse(r.lastActivity) >= olderThanMs;
  // A msgr holds the run folder's lock: sending this run, or starting a new one that reads what
  // it leaves out (a --restart has moved the abandoned journal aside before its own is written).
  // A lock its process left behind (kill -9) holds nothing: lockHolder says so, as for a new run.
  const locked = (r: RunInfo): boolean => lockHolder(join(dirname(r.journal), 'journal.jsonl.lock'), proc) !== undefined;
  // A journal kept elsewhere (--journal) is the user's file, where a script may look for it.
  const elsewhere = (r: RunInfo): boolean => ![runsRoot(state, false), runsRoot(state, true)].includes(dirname(dirname(resolve(r.journal))));
  // What a run that stays leaves out stays too: an unfinished run's --resume reads it, and so
  // does `msgr runs report` of any run kept (the rows a --restart left out as already sent).
  for (const r of runs) {
    if ((!r.finished && !r.abandoned) || !isOld(r) || locked(r) || elsewhere(r)) for (const named of readHeader(r.journal)?.skipSent ?? []) mark(named.journal);
  }
  for (const run of runs) {
    if (!isOld(run)) continue;
    if (!run.finished && !run.abandoned) {
      keptUnfinished.push(run);
      continue;
    }
    if (needed.has(resolve(run.journal))) {
      keptNeeded.push(run);
      continue;
    }
    if (locked(run)) continue;
    if (elsewhere(run)) {
      keptElsewhere.push(run);
      continue;
    }
    removed.push(run);
    if (dryRun) continue;
    rmSync(run.journal, { force: true });
    const dir = dirname(run.journal);
    // A run that read stdin keeps its copy of it beside the journal; a run its copies of the
    // lists it left out as it started (`<journal>.<list>-at-start`:
    // src/bulk/send-pass/opt-outs.ts).
    rmSync(join(dir, `${run.runId}.stdin.csv`), { force: true });
    try {
      const own = `${basename(run.journal)}.`;
      for (const f of readdirSync(dir)) if (f.startsWith(own) && f.endsWith('-at-start')) rmSync(join(dir, f), { force: true });
    } catch {
      // Gone already.
    }
    try {
      if (readdirSync(dir).length === 0) rmSync(dir, { recursive: true, force: true });
    } catch {
      // Gone already.
    }
  }
  return { removed, keptUnfinished, keptNeeded, keptElsewhere };
}

/** The outcome records of a journal's batches, by batch: a resumed run's report keeps their ids. */
export async function outcomeRecords(journal: string): Promise<Map<number, DoneRecord>> {
  const out = new Map<number, DoneRecord>();
  await loadJournal(journal, { onDone: (r) => out.set(r.batch, r) });
  return out;
}

/**
 * The numbers of each batch whose latest "send" record left recipients out (they went on the
 * --exclude list after the run started): a resume rebuilds such a batch exactly
 * (bulk/send-pass/opt-outs.ts).
 */
export async function leftOutBatches(journal: string, loaded: Pick<LoadedJournal, 'excluded'>): Promise<Map<number, readonly string[]>> {
  const out = new Map<number, readonly string[]>();
  await loadJournal(journal, {
    onSend: (r) => {
      if ((loaded.excluded[r.batch] ?? 0) > 0 && r.numbers !== undefined) out.set(r.batch, r.numbers);
    },
  });
  return out;
}

export interface SendingRun {
  readonly journal: string;
  readonly runId: string | undefined;
  readonly file: string | undefined;
  readonly sandbox: boolean;
  /** The account the run sends from, when its journal says. */
  readonly account: string | null | undefined;
  readonly owner: LockOwner;
}

/**
 * The runs a send-bulk is sending now, in the state folder or kept elsewhere: a run is sending
 * while a process holds its journal's lock (docs/files.md: "Nothing lost, nothing sent twice").
 * For `msgr listen`'s warning when receipts do not come (docs/events.md: "On the terminal").
 */
export function sendingRuns(state: string, proc: LockProcess): SendingRun[] {
  const out: SendingRun[] = [];
  for (const journal of journalPaths(state)) {
    const owner = lockHolder(`${journal}.lock`, proc);
    if (owner === undefined) continue;
    const header = readHeader(journal);
    out.push({
      journal,
      runId: header?.runId,
      file: header === undefined ? undefined : header.input.stdin ? 'stdin' : header.input.path,
      sandbox: header?.target?.sandbox ?? journal.includes('/sandbox/'),
      account: header?.target?.account,
      owner,
    });
  }
  return out;
}
