// src/bulk/earlier/: the runs before this one, read for it. of-file.ts (this file) finds the
// earlier runs of a file or of its data; already-sent.ts the numbers they accepted, which a new
// run leaves out or sends again; campaign-key.ts a campaign key's run (--once); full-report.ts
// rebuilds a run's whole report (`msgr runs report`). It imports this-run/ and every folder below.
//
// The earlier runs of a file, for a new run of it (docs/reruns.md: "Running a file again"): the
// runs of the same path (its run folder, a journal kept elsewhere, a keyed run: --once) and the
// runs of the same content under another name or piped on stdin, that sent to the same place.
// Their accepted numbers are what a new run must not message again without saying so
// (--skip-sent or --again: bulk/earlier/already-sent.ts).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError, type ExitCode } from '../../errors.js';
import type { RunHeader } from '../journal/records.js';
import { readHeader } from '../journal/load.js';
import { journalsElsewhere } from '../history/catalogue.js';
import { journalState, journalsWithData, journalsWithSameData } from '../history/run-index.js';
import { samePlace } from '../this-run/where.js';
import { runDirFor } from '../history/state-folder.js';
import { definitionDifferences, journaledDefinition, type MessageDefinition } from '../compose/definition.js';
import { formatCount } from '../../output/count.js';
import { sameData } from '../input/identity.js';
import type { Place } from '../../once/keys.js';
import { FLAG } from '../flag-names.js';

export interface EarlierRun {
  readonly journal: string;
  readonly header: RunHeader;
  /** Every batch answered; else a keyed run left unfinished under another key. */
  readonly finished: boolean;
  /** When it last recorded an answer (its journal's last outcome); undefined when it has none. */
  readonly finishedAt: string | undefined;
  /** Found by its content, under another name (or stdin), rather than by the file's path. */
  readonly sameContent: boolean;
}

export interface EarlierRunsQuery {
  readonly state: string;
  readonly sandbox: boolean;
  /** The file's real path; undefined for stdin (found by content only). */
  readonly fileAbs: string | undefined;
  readonly input: { readonly path: string; readonly size: number; readonly quickHash: string };
  readonly place: Place;
  /** This run's campaign key (--once): the key's own runs are this run's, not earlier ones. */
  readonly key?: string | undefined;
}

/**
 * The earlier runs of the input that sent to the same place, oldest first: finished runs, and
 * runs left unfinished under another campaign key (a keyed run's identity is its key, so it does
 * not block a run under another one; what it accepted counts all the same). An unfinished run
 * without a key is the file's run, refused or continued before this (bulk/this-run/open.ts); an
 * abandoned run is reached through the run that replaced it (its --skip-sent record).
 */
export async function earlierRuns(q: EarlierRunsQuery): Promise<EarlierRun[]> {
  const byPath = new Set<string>();
  if (q.fileAbs !== undefined) {
    const dir = runDirFor(q.state, q.fileAbs, q.sandbox);
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      // No run folder: no run of this path.
    }
    for (const n of names) if (/^journal(\.[^.]+)?\.jsonl$/.test(n)) byPath.add(join(dir, n));
    for (const e of journalsElsewhere(q.state, dir, q.sandbox)) byPath.add(e.journal);
  }
  const memo = {};
  const sameContent = (header: RunHeader): Promise<boolean> => sameData(q.input.path, q.input, header.input, memo);
  const found: EarlierRun[] = [];
  const consider = async (journal: string, header: RunHeader, content: boolean): Promise<void> => {
    const r = await asEarlier(q, journal, header, content);
    if (r !== undefined) found.push(r);
  };
  for (const journal of byPath) {
    const header = readHeader(journal);
    if (header !== undefined) await consider(journal, header, false);
  }
  // The same data under another name: the runs' index, not every run's header (history/run-index.ts).
  for (const { journal, header } of journalsWithData(q.state, q.sandbox, q.input)) {
    if (byPath.has(journal)) continue;
    if (await sameContent(header)) await consider(journal, header, true);
  }
  return found.sort((a, b) => a.header.createdAt.localeCompare(b.header.createdAt));
}

/** A run found for `q`, when it counts as an earlier run of it (earlierRuns). */
async function asEarlier(q: Pick<EarlierRunsQuery, 'state' | 'sandbox' | 'place' | 'key'>, journal: string, header: RunHeader, content: boolean): Promise<EarlierRun | undefined> {
  if (/\.abandoned\.jsonl$/.test(journal)) return undefined;
  if (!samePlace(header.target, q.place)) return undefined;
  if (q.key !== undefined && header.once?.key === q.key) return undefined;
  // A finished run's state from the runs' index: not every earlier day's journal read whole.
  const state = await journalState(q.state, q.sandbox, journal);
  if (state === undefined) return undefined;
  if (!state.finished && header.once === undefined) return undefined;
  return { journal, header, finished: state.finished, finishedAt: state.finishedAt, sameContent: content };
}

/**
 * The earlier runs, as earlierRuns finds them, whose input held the same data as this run's
 * (`dataHash`, csv/data-hash.ts) however saved, oldest first: known once the preflight read it.
 * `journal`: this run's own, never an earlier one.
 */
export async function earlierRunsWithSameData(q: Pick<EarlierRunsQuery, 'state' | 'sandbox' | 'place' | 'key'>, dataHash: string, journal: string): Promise<EarlierRun[]> {
  const found: EarlierRun[] = [];
  for (const r of journalsWithSameData(q.state, q.sandbox, dataHash)) {
    if (r.journal === journal) continue;
    const e = await asEarlier(q, r.journal, r.header, true);
    if (e !== undefined) found.push(e);
  }
  return found.sort((a, b) => a.header.createdAt.localeCompare(b.header.createdAt));
}

/** `run X (finished 2026-11-28T09:51:46Z)`, or `run X of the same data (other.csv, …)`: which earlier run, for people. */
export function describeEarlier(r: EarlierRun): string {
  const when = r.finished ? `finished ${r.finishedAt ?? r.header.createdAt}` : `left unfinished under ${FLAG.once} ${r.header.once?.key ?? ''}`;
  const where = r.sameContent ? ` of the same data (${r.header.input.stdin ? 'read from stdin' : r.header.input.path}, ${when})` : ` (${when})`;
  return `run ${r.header.runId}${where}`;
}

/**
 * A new run of a file would message numbers its earlier runs accepted, and the command does not
 * say whether that is meant (docs/reruns.md: "Running a file again"): refused before anything is
 * sent, naming how many and the runs, and offering only what would then be accepted. --skip-sent
 * leaves out only numbers that had this message, so it is offered only when an earlier run sent
 * it (`rows`: rows to send whose number those runs accepted, as the preflight counted them).
 */
export function sentBeforeError(rows: number, runs: readonly EarlierRun[], definition: MessageDefinition, o: { fileLabel: string; trial: string | undefined; toSend: number; byMessage: boolean; jsonFor: (exitCode: ExitCode) => unknown }): UsageError {
  const last = runs[runs.length - 1] as EarlierRun;
  const more = runs.length > 1 ? ` and ${runs.length - 1} earlier run${runs.length === 2 ? '' : 's'}` : '';
  const who = `${describeEarlier(last)}${more}`;
  const sends = o.trial !== undefined ? `a run of the campaign now (not this ${o.trial}) would message` : 'this run would message';
  const same = runs.filter((r) => definitionDifferences(journaledDefinition(r.header), definition).length === 0);
  const other = runs.find((r) => !same.includes(r));
  const otherDiffs = other !== undefined ? definitionDifferences(journaledDefinition(other.header), definition) : [];
  const skip = `${FLAG.skipSent} to leave them out (the same list again, or grown: only numbers that have not had this message get it)`;
  const again = `${FLAG.again} to message them again on purpose (a reminder to the same list, a new message)`;
  const hint =
    same.length > 0
      ? `Say which you mean: add ${skip}, or ${again}.${other !== undefined ? ` (${FLAG.skipSent} leaves out only the numbers that had this message: run ${other.header.runId} sent another, ${otherDiffs.join(', ')} differ${otherDiffs.length === 1 ? 's' : ''}.)` : ''}`
      : `Add ${again}. ${runs.length === 1 ? 'That run' : 'Those runs'} sent another message (${otherDiffs.join(', ')} differ${otherDiffs.length === 1 ? 's' : ''}), so ${FLAG.skipSent}, which leaves out the numbers that had this message, would leave none out; to leave them out anyway, write the run's report (msgr runs report ${last.header.runId} ${FLAG.report} sent.csv) and give ${FLAG.exclude} a file of its accepted numbers.`;
  // Where the earlier runs journaled each number's message (--allow-duplicates), --skip-sent leaves
  // out by message, not by number: this count, by number, would not be its count.
  const counts = same.length > 0 && !o.byMessage ? ` (with ${FLAG.skipSent} it sends to ${formatCount(o.toSend)}, with ${FLAG.again} to ${formatCount(o.toSend + rows)})` : '';
  return new UsageError(`${o.fileLabel}: ${sends} ${formatCount(rows)} row${rows === 1 ? '' : 's'} whose number${rows === 1 ? '' : 's'} ${who} already sent to${counts}; nothing was sent`, {
    hint,
    jsonFor: o.jsonFor,
  });
}
