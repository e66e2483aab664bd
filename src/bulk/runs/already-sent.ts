// Numbers an earlier run already sent this message to (--skip-sent, and --restart by default), so
// an edited or extended file is sent without sending anyone the same message twice
// (docs/campaigns.md: "Changed files and follow-up campaigns"). The numbers come from the earlier
// run's journal, not its file: the file is usually the one that changed. The preflight leaves
// those rows out (bulk/preflight/range.ts) before it groups and counts the rest, so the requests it
// counts, the journal's header, the send pass and every resume of the run agree on batch k,
// whether rows share one message or have messages of their own.
import { UsageError } from '../../errors.js';
import { BatchState, type JournaledTarget, type RunHeader, type SkipSentSource } from '../journal/records.js';
import { JournalError, loadJournal, readHeader, type LoadedJournal } from '../journal/load.js';
import { NumberSet, numberKey } from '../input/number-set.js';
import { describeTarget, targetDifferences } from './target.js';
import type { SpoolSource } from '../preflight/spool.js';
import type { SentMessages } from '../preflight/range.js';
import type { Ui } from '../../output/ui.js';
import type { Run } from './open.js';
import type { EarlierRun } from './earlier.js';
import { definitionDifferences, journaledDefinition, type MessageDefinition } from '../compose/definition.js';
import { formatCount } from '../../output/count.js';
import { FLAG } from '../flag-names.js';

/** A run to leave out the accepted numbers of, as loaded. */
export interface SentRun {
  readonly runId: string;
  readonly journal: string;
  /** The journal's length when it was read (see SkipSentSource). */
  readonly bytes: number;
  readonly header: RunHeader;
  /** Recipients of its accepted batches (0: it left nothing out). */
  readonly acceptedCount: number;
}

export interface SentNumbers {
  /** Every number the runs accepted. */
  readonly accepted: NumberSet;
  /**
   * Which of their messages (with --allow-duplicates, where a number may get several): those
   * journaled, and the numbers whose batch journaled none (bulk/preflight/range.ts).
   */
  readonly messages: SentMessages;
  /** Numbers whose batch is in doubt in those runs and no run accepted: not left out. */
  readonly inDoubt: number;
  /** Number → the run that accepted it and the message id, when asked for (reports). */
  readonly ids: Map<number, { runId: string; id: string | null }> | undefined;
  /** The runs named, then the runs they left out in turn. */
  readonly runs: readonly SentRun[];
  /** The runs named (not those found through them). */
  readonly named: readonly SentRun[];
}

/** Reads a journal for --skip-sent, naming the flag in every error. */
async function readRun(journal: string, flag: string, maxBytes?: number): Promise<{ loaded: LoadedJournal; numbers: Map<number, Float64Array>; messages: Map<number, readonly number[]>; ids: Map<number, ReadonlyArray<string | null>> }> {
  const numbers = new Map<number, Float64Array>();
  const messages = new Map<number, readonly number[]>();
  const ids = new Map<number, ReadonlyArray<string | null>>();
  let loaded: LoadedJournal;
  try {
    loaded = await loadJournal(journal, {
      ...(maxBytes !== undefined ? { maxBytes } : {}),
      onSend: (rec) => {
        if (rec.numbers !== undefined) numbers.set(rec.batch, Float64Array.from(rec.numbers, numberKey));
        // The latest "send" line of a batch is what was sent (a resume may have sent it smaller).
        if (rec.messages !== undefined) messages.set(rec.batch, rec.messages);
        else messages.delete(rec.batch);
      },
      onDone: (rec) => {
        if (rec.ids !== undefined) ids.set(rec.batch, rec.ids);
      },
    });
  } catch (err) {
    if (err instanceof JournalError) throw new UsageError(`${flag}: ${err.message}`);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UsageError(`${flag}: the journal ${journal} is gone`, { hint: '`msgr runs list` shows the runs msgr still has.' });
    throw err;
  }
  return { loaded, numbers, messages, ids };
}

/**
 * The numbers `runs` accepted, and, through each run's own --skip-sent record, the runs it left
 * out in turn: a follow-up of a follow-up still leaves out everyone who got the message.
 */
export async function loadSentNumbers(runs: ReadonlyArray<{ journal: string; bytes?: number | undefined }>, o: { flag: string; wantIds: boolean }): Promise<SentNumbers> {
  const accepted = new NumberSet();
  const messages: SentMessages = { messages: new NumberSet(16), numbersOnly: new NumberSet(16) };
  const ids = o.wantIds ? new Map<number, { runId: string; id: string | null }>() : undefined;
  const doubtful: number[] = [];
  const seen = new Set<string>();
  const loadedRuns: SentRun[] = [];
  const named: SentRun[] = [];
  const queue = runs.map((r) => ({ ...r, named: true }));
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const { loaded, numbers, messages: batchMessages, ids: batchIds } = await readRun(next.journal, o.flag, next.bytes);
    const h = loaded.header;
    if (seen.has(h.runId)) continue;
    seen.add(h.runId);
    const run = { runId: h.runId, journal: next.journal, bytes: loaded.bytes, header: h, acceptedCount: 0 };
    loadedRuns.push(run);
    if (next.named) named.push(run);
    for (let b = 0; b < loaded.states.length; b++) {
      const state = loaded.states[b];
      if (state === BatchState.none || state === BatchState.notSent || state === BatchState.rejected || state === BatchState.auth || state === BatchState.excluded) continue;
      const keys = numbers.get(b);
      if (keys === undefined) {
        throw new UsageError(`${o.flag}: run ${h.runId} was journaled by msgr ${h.msgr}, which did not record the numbers of each batch; msgr cannot tell whom it sent to`, {
          hint: `Finish that run with ${FLAG.resume} if its file is unchanged, or send to everyone with ${FLAG.includeSent} (restart) / without ${FLAG.skipSent}.`,
        });
      }
      if (state === BatchState.accepted) {
        const list = batchIds.get(b);
        const sentMessages = batchMessages.get(b);
        if (sentMessages !== undefined && sentMessages.length === keys.length) for (const m of sentMessages) messages.messages.add(m);
        else for (const k of keys) messages.numbersOnly.add(k);
        run.acceptedCount += keys.length;
        keys.forEach((k, i) => {
          accepted.add(k);
          if (ids !== undefined && !ids.has(k)) ids.set(k, { runId: h.runId, id: list?.[i] ?? null });
        });
      } else {
        for (const k of keys) doubtful.push(k);
      }
    }
    for (const s of h.skipSent ?? []) queue.push({ journal: s.journal, bytes: s.bytes, named: false });
  }
  const inDoubt = new NumberSet();
  for (const k of doubtful) if (!accepted.has(k)) inDoubt.add(k);
  return { accepted, messages, inDoubt: inDoubt.size, ids, runs: loadedRuns, named };
}

/**
 * Checks a run named by --skip-sent against this one: the same message (else its numbers did
 * not get this message), and never a sandbox run for a real one (the sandbox delivers nothing).
 * Returns a note for people when it sent elsewhere, or undefined.
 */
export function checkSentRun(run: SentRun, definition: MessageDefinition, target: RunHeader['target'], flag: string): string | undefined {
  const diffs = definitionDifferences(journaledDefinition(run.header), definition);
  if (diffs.length > 0) {
    throw new UsageError(`${flag}: run ${run.runId} sent another message (${diffs.join(', ')} differ${diffs.length === 1 ? 's' : ''}); its numbers did not get this one`, {
      hint: `${FLAG.skipSent} leaves out only numbers that got the same message (the same request apart from recipients and validity; with a message per row, the same template and columns). To leave its numbers out anyway, list its rows with \`msgr runs report ${run.runId} ${FLAG.report} sent.csv\` and give ${FLAG.exclude} a file of the numbers whose outcome is accepted.`,
    });
  }
  const was = run.header.target;
  if (was === undefined || target === undefined) return undefined;
  if (was.sandbox && !target.sandbox) {
    throw new UsageError(`${flag}: run ${run.runId} went to the sandbox, which delivers nothing; its numbers have not had the message`, {
      hint: 'Leave out only runs that sent for real.',
    });
  }
  const diffs2 = targetDifferences(was, target);
  return diffs2.length > 0 ? `run ${run.runId} sent to ${describeTarget(was)} (${diffs2.join('; ')}); its accepted numbers are left out all the same` : undefined;
}

/**
 * The spool with each already-sent row ("A", written by the preflight: bulk/preflight/range.ts) naming
 * the run that accepted its number and the id it got, for the report.
 */
export function withSentIds(spool: SpoolSource, sent: SentNumbers): SpoolSource {
  const { ids } = sent;
  if (ids === undefined) return spool;
  return (onLine, afterChunk) =>
    spool((kind, line, number, payload) => {
      if (kind === 'A') {
        const by = ids.get(numberKey(number));
        onLine('A', line, number, by !== undefined ? JSON.stringify(by) : '');
        return;
      }
      onLine(kind, line, number, payload);
    }, afterChunk);
}

/** The journal's record of what was left out, for a resume to leave out exactly the same. */
export function skipSentRecord(sent: SentNumbers): SkipSentSource[] {
  // Only the runs named: those they left out are found again through their own journals.
  return sent.named.map((r) => ({ runId: r.runId, journal: r.journal, bytes: r.bytes }));
}

/** One line for people about what was left out. */
export function describeSkipped(skipped: number, sent: SentNumbers): string {
  const ids = sent.named.map((r) => r.runId);
  return `${formatCount(skipped)} row${skipped === 1 ? '' : 's'} already sent (accepted by run ${ids.slice(0, 3).join(', ')}${ids.length > 3 ? ', …' : ''}): left out`;
}

/**
 * --skip-sent or --again given again to --resume (a cron job repeating its whole command line):
 * a resumed run leaves out exactly what it left out when it started, which the journal records.
 * The runs --skip-sent names must be among those; the flag alone must not meet a run started with
 * --again, nor --again one that left numbers out. `named`: the runs' journal paths. A CSV file or
 * its journal's path named the file's run of the time, which this run has since become (it moved
 * that journal aside): naming this run is naming what it left out.
 */
export function checkSameIntent(named: readonly string[], refs: readonly string[], intent: { readonly bare: boolean; readonly again: boolean }, header: RunHeader): void {
  const recorded = (header.skipSent ?? []).map((s) => s.runId);
  const was = recorded.length > 0 ? `which left out the numbers of ${recorded.join(', ')}` : header.again === true ? `which was started with ${FLAG.again}` : 'which left out no earlier run';
  const refuse = (flag: string): never => {
    throw new UsageError(`${FLAG.resume}: ${flag} differs from run ${header.runId}, ${was}`, {
      hint: 'A resumed run leaves out exactly what it left out when it started: drop the flag, or name the same runs.',
    });
  };
  const other = named.findIndex((journal) => {
    const id = readHeader(journal)?.runId ?? '';
    return id !== header.runId && !recorded.includes(id);
  });
  if (other !== -1) refuse(`${FLAG.skipSent} ${refs[other] ?? ''}`);
  if (intent.bare && header.again === true) refuse(FLAG.skipSent);
  if (intent.again && recorded.length > 0) refuse(FLAG.again);
}

/**
 * Why --restart does not leave out the numbers the abandoned run accepted (it sent another
 * message, or only to the sandbox), or undefined when it does.
 */
export function restartSendsToAll(abandoned: RunHeader, definition: MessageDefinition, target: JournaledTarget | undefined): string | undefined {
  const diffs = definitionDifferences(journaledDefinition(abandoned), definition);
  if (diffs.length > 0) return `sent another message (${diffs.join(', ')})`;
  if (abandoned.target?.sandbox === true && target?.sandbox !== true) return 'went to the sandbox';
  return undefined;
}

/**
 * What a run does about the numbers earlier runs accepted (docs/campaigns.md: "Running a file again").
 * `sent` is left out (spool verdict A) and recorded in the journal; `guard` is counted the same
 * way by the preflight but stops the run when any row to send has one of its numbers (the caller,
 * with sentBeforeError): a run of a file again says what it means first.
 */
export interface LeaveOut {
  readonly sent: SentNumbers | undefined;
  readonly guard: { readonly numbers: SentNumbers; readonly runs: readonly EarlierRun[] } | undefined;
}

/** What the command means to do about numbers earlier runs accepted (bulk/campaign.ts, earlier), its runs found. */
export interface LeaveOutIntent {
  readonly includeSent: boolean;
  /** --skip-sent RUN: the runs named (journal paths). */
  readonly named: readonly string[];
  /** --skip-sent without a run: the earlier runs of this file that sent the same message. */
  readonly bare: boolean;
  /** --again: message them again, on purpose. */
  readonly again: boolean;
}

/**
 * The numbers this run leaves out: those of the runs its journal names (a resume), else those of
 * the runs --skip-sent names, of the earlier runs of this file with the same message (--skip-sent
 * alone) and, for --restart, those the abandoned run accepted (unless --include-sent or --again, or
 * when that run sent another message or only to the sandbox). Without --skip-sent or --again, the numbers
 * the earlier runs of the file accepted are the guard.
 */
export async function leaveOutFor(
  ui: Ui,
  flags: LeaveOutIntent,
  run: Run,
  definition: MessageDefinition,
  target: JournaledTarget | undefined,
  wantIds: boolean,
  earlier: readonly EarlierRun[],
): Promise<LeaveOut> {
  if (run.kind === 'resume') {
    const recorded = run.previous.header.skipSent ?? [];
    return { sent: recorded.length > 0 ? await loadSentNumbers(recorded, { flag: FLAG.resume, wantIds }) : undefined, guard: undefined };
  }
  const named = flags.named;
  const moved = run.moved;
  const abandoned = run.kind === 'restart' ? run.abandoned : undefined;
  const journals = named.map((j) => (moved !== undefined && j === moved.from ? moved.to : j));
  if (flags.bare) {
    const same = earlier.filter((r) => definitionDifferences(journaledDefinition(r.header), definition).length === 0);
    for (const r of same) if (!journals.includes(r.journal)) journals.push(r.journal);
    for (const r of earlier) {
      const diffs = definitionDifferences(journaledDefinition(r.header), definition);
      if (diffs.length > 0) ui.info(`run ${r.header.runId} of this file sent another message (${diffs.join(', ')} differ${diffs.length === 1 ? 's' : ''}): ${FLAG.skipSent} does not leave out the numbers it accepted`);
    }
    if (earlier.length === 0) ui.info(`${FLAG.skipSent}: no earlier run of this file sent to this account: nothing to leave out`);
  }
  let abandonedAgain = false;
  // --again messages them again: the numbers the abandoned run accepted too (docs/campaigns.md:
  // "Running a file again"), as --include-sent says for a restart alone.
  if (abandoned !== undefined && flags.again && !flags.includeSent) ui.info(`${FLAG.again}: the numbers the abandoned run ${abandoned.header.runId} accepted are messaged again`);
  if (abandoned !== undefined && !flags.includeSent && !flags.again && !journals.includes(abandoned.journal)) {
    const a = abandoned.header;
    const why = restartSendsToAll(a, definition, target);
    if (why !== undefined) ui.info(`the abandoned run ${a.runId} ${why}: the numbers it accepted are not left out`);
    else journals.push(abandoned.journal);
  }
  if (abandoned?.header.again === true) abandonedAgain = true;
  let sent: SentNumbers | undefined;
  if (journals.length > 0) {
    const flag = named.length > 0 || flags.bare ? FLAG.skipSent : FLAG.restart;
    sent = await loadSentNumbers(journals.map((journal) => ({ journal })), { flag, wantIds });
    for (const left of sent.named) {
      if (!named.includes(left.journal) && left.journal !== abandoned?.journal) continue;
      const note = checkSentRun(left, definition, target, flag);
      // A run that accepted nothing leaves nothing out: nothing to warn of (a cron mail about nothing).
      if (note !== undefined && left.acceptedCount > 0) ui.warn(`${note}${flag === FLAG.restart ? ` (add ${FLAG.includeSent} to send to them here as well)` : ''}`);
    }
  }
  // A restart goes on with what the abandoned run meant: one started with --again sends again.
  const stated = flags.again || flags.bare || named.length > 0 || abandonedAgain;
  if (stated || earlier.length === 0) return { sent, guard: undefined };
  const numbers = await loadSentNumbers(
    earlier.map((r) => ({ journal: r.journal })),
    { flag: FLAG.skipSent, wantIds: false },
  );
  // What this run leaves out anyway (a --restart's abandoned run) is no second message.
  const guarded = sent === undefined ? numbers.accepted : without(numbers.accepted, sent.accepted);
  return { sent, guard: guarded.size > 0 ? { numbers: { ...numbers, accepted: guarded }, runs: earlier } : undefined };
}

function without(a: NumberSet, b: NumberSet): NumberSet {
  const out = new NumberSet(a.size);
  for (const key of a.export().slots) if (key !== 0 && !b.has(key)) out.add(key);
  return out;
}
