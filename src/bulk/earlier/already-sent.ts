// Numbers an earlier run already sent this message to (--skip-sent, and --restart by default), so
// an edited or extended file is sent without sending anyone the same message twice
// (docs/reruns.md: "Changed files and follow-up campaigns"). The numbers come from the earlier
// run's journal, not its file: the file is usually the one that changed. The preflight leaves
// those rows out (bulk/preflight/range.ts) before it groups and counts the rest, so the requests it
// counts, the journal's header, the send pass and every resume of the run agree on batch k,
// whether rows share one message or have messages of their own.
import { existsSync } from 'node:fs';
import { UsageError } from '../../errors.js';
import { BatchState, type JournaledTarget, type RunHeader, type SkipSentSource } from '../journal/records.js';
import { JournalError, loadJournal, readHeader, type LoadedJournal } from '../journal/load.js';
import { NumberSet, numberKey } from '../input/number-set.js';
import { LEAVE_OUT, type LeaveOutProbe } from '../input/exclude.js';
import { describeTarget, targetDifferences } from '../this-run/where.js';
import type { SpoolSource } from '../preflight/spool.js';
import type { SentMessages } from '../preflight/range.js';
import type { Ui } from '../../output/ui.js';
import type { Run } from '../this-run/open.js';
import type { EarlierRun } from './of-file.js';
import { definitionDifferences, journaledDefinition, type MessageDefinition } from '../compose/definition.js';
import { formatCount } from '../../output/count.js';
import { FLAG } from '../flag-names.js';
import { readDeliveries } from '../../events/delivery.js';
import { defaultEventsFiles, settleInDoubt } from '../history/run-delivery.js';
import { readRunDetail } from '../history/catalogue.js';
import { readSnapshot, snapshotPath } from '../send-pass/opt-outs.js';

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
  /** Numbers whose batch is in doubt in those runs and no run accepted: not left out (but see inDoubtLeftOut). */
  readonly inDoubt: number;
  /** --skip-in-doubt: those numbers were left out as if accepted. */
  readonly inDoubtLeftOut?: boolean;
  /** Number → the run that accepted it and the message id, when asked for (reports). */
  readonly ids: Map<number, { runId: string; id: string | null }> | undefined;
  /** The runs named, then the runs they left out in turn. */
  readonly runs: readonly SentRun[];
  /** The runs named (not those found through them). */
  readonly named: readonly SentRun[];
  /** --delivered-only: what the receipts said of the accepted messages that do not count as sent. */
  readonly deliveredOnly?: DeliveredOnly | undefined;
}

/**
 * --delivered-only (docs/reruns.md: "A follow-up to those not delivered"): the accepted numbers
 * whose receipts do not say delivered, which this run sends to again.
 */
export interface DeliveredOnly {
  /** Failed, expired, or no final receipt long after it was sent (unknown): sent again. */
  readonly notDelivered: number;
  /** Those numbers: the preflight counts them among the rows to send, the line says where the others went. */
  readonly keys: NumberSet;
  /** No final receipt yet: the message may still arrive (a new run with these is refused). */
  readonly pending: number;
  /** Accepted without a message id: nothing to match a receipt to, so counted as sent. */
  readonly withoutId: number;
  /** Messages with a message id, and how many of them any receipt was found for. */
  readonly withId: number;
  readonly matched: number;
  /** The events files read. */
  readonly files: readonly string[];
}

/** Where --delivered-only reads receipts: the listener's files in the state folder, as of now. */
export interface DeliveredOnlyFrom {
  readonly state: string;
  readonly now: Date;
}

/** Reads a journal for --skip-sent, naming the flag in every error. */
async function readRun(journal: string, flag: string, maxBytes?: number): Promise<{ loaded: LoadedJournal; numbers: Map<number, Float64Array>; messages: Map<number, readonly number[]>; ids: Map<number, ReadonlyArray<string | null>>; sentAt: Map<number, string> }> {
  const numbers = new Map<number, Float64Array>();
  const messages = new Map<number, readonly number[]>();
  const sentAt = new Map<number, string>();
  const ids = new Map<number, ReadonlyArray<string | null>>();
  let loaded: LoadedJournal;
  try {
    loaded = await loadJournal(journal, {
      ...(maxBytes !== undefined ? { maxBytes } : {}),
      onSend: (rec) => {
        if (rec.numbers !== undefined) numbers.set(rec.batch, Float64Array.from(rec.numbers, numberKey));
        sentAt.set(rec.batch, rec.at);
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
  return { loaded, numbers, messages, ids, sentAt };
}

/**
 * The numbers `runs` accepted, and, through each run's own --skip-sent record, the runs it left
 * out in turn: a follow-up of a follow-up still leaves out everyone who got the message.
 */
export async function loadSentNumbers(
  runs: ReadonlyArray<{ journal: string; bytes?: number | undefined }>,
  o: { flag: string; wantIds: boolean; delivered?: DeliveredOnlyFrom | undefined; atStart?: NumberSet | undefined; inDoubtLeftOut?: boolean },
): Promise<SentNumbers> {
  const accepted = new NumberSet();
  const messages: SentMessages = { messages: new NumberSet(16), numbersOnly: new NumberSet(16) };
  const ids = o.wantIds ? new Map<number, { runId: string; id: string | null }>() : undefined;
  const doubtful: number[] = [];
  const seen = new Set<string>();
  const loadedRuns: SentRun[] = [];
  const named: SentRun[] = [];
  const queue = runs.map((r) => ({ ...r, named: true }));
  // --delivered-only: the accepted messages whose receipts do not (yet) say delivered.
  const notDelivered = new NumberSet();
  const pending = new NumberSet();
  let withoutId = 0;
  let withId = 0;
  let matched = 0;
  const files = new Set<string>();
  const candidates: Array<{ k: number; id: string; at: string }> = [];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const { loaded, numbers, messages: batchMessages, ids: batchIds, sentAt } = await readRun(next.journal, o.flag, next.bytes);
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
          const id = list?.[i] ?? null;
          if (o.delivered !== undefined && id !== null) {
            candidates.push({ k, id, at: sentAt.get(b) ?? h.createdAt });
            return;
          }
          if (o.delivered !== undefined) withoutId++;
          accepted.add(k);
          if (ids !== undefined && !ids.has(k)) ids.set(k, { runId: h.runId, id });
        });
      } else {
        for (const k of keys) doubtful.push(k);
      }
    }
    if (o.delivered !== undefined && candidates.length > 0) {
      // Only a receipt that says delivered counts the number as sent (src/events/delivery.ts has the rules).
      const read = defaultEventsFiles(o.delivered.state, h).filter((f) => existsSync(f));
      for (const f of read) files.add(f);
      const { book } = await readDeliveries(read, { only: new Set(candidates.map((c) => c.id)) });
      for (const c of candidates) {
        const state = book.state(c.id, { now: o.delivered.now, sentAt: new Date(c.at) });
        const status = state.status;
        withId++;
        if (state.receipts > 0) matched++;
        if (status === 'delivered') {
          accepted.add(c.k);
          if (ids !== undefined && !ids.has(c.k)) ids.set(c.k, { runId: h.runId, id: c.id });
        } else {
          notDelivered.add(c.k);
          if (status === 'pending') pending.add(c.k);
        }
      }
    }
    candidates.length = 0;
    for (const s of h.skipSent ?? []) queue.push({ journal: s.journal, bytes: s.bytes, named: false });
  }
  const inDoubt = new NumberSet();
  for (const k of doubtful) if (!accepted.has(k)) inDoubt.add(k);
  // --skip-in-doubt: a person checked that they arrived; they are left out as the accepted are.
  const leftOut = o.inDoubtLeftOut === true ? { inDoubtLeftOut: true } : {};
  if (o.inDoubtLeftOut === true) for (const k of doubtful) accepted.add(k);
  if (o.atStart !== undefined) {
    // A resume, a report: the numbers counted as delivered when the run started, whatever came since.
    const kept = new NumberSet(accepted.size);
    const dropped = new NumberSet();
    for (const key of accepted.export().slots) {
      if (key === 0) continue;
      if (o.atStart.has(key)) kept.add(key);
      else dropped.add(key);
    }
    return { accepted: kept, messages, inDoubt: inDoubt.size, ...leftOut, ids, runs: loadedRuns, named, deliveredOnly: { notDelivered: dropped.size, keys: dropped, pending: 0, withoutId: 0, withId: 0, matched: 0, files: [] } };
  }
  // A number another run delivered to counts as sent, whatever its other messages' receipts say.
  const notYet = (set: NumberSet): NumberSet => {
    const left = new NumberSet();
    for (const key of set.export().slots) if (key !== 0 && !accepted.has(key)) left.add(key);
    return left;
  };
  const again = notYet(notDelivered);
  const deliveredOnly = o.delivered !== undefined ? { notDelivered: again.size, keys: again, pending: notYet(pending).size, withoutId, withId, matched, files: [...files] } : undefined;
  return { accepted, messages, inDoubt: inDoubt.size, ...leftOut, ids, runs: loadedRuns, named, deliveredOnly };
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
  return sent.named.map((r) => ({ runId: r.runId, journal: r.journal, bytes: r.bytes, ...(sent.deliveredOnly !== undefined ? { deliveredOnly: true as const } : {}), ...(sent.inDoubtLeftOut === true ? { inDoubt: 'left-out' as const } : {}) }));
}

/**
 * What became of the numbers --delivered-only found not delivered: among this run's rows to send
 * (the preflight's count), opted out, on the --exclude list; the rest are not among the file's
 * rows to send (no longer in it, or a row that is now invalid).
 */
export interface NotDeliveredFate {
  readonly resent: number;
  readonly optedOut: number;
  readonly excluded: number;
}

/** The --delivered-only numbers the run leaves out, by the list that leaves each out (LEAVE_OUT). */
export function notDeliveredLeftOut(d: DeliveredOnly, leaveOut: LeaveOutProbe | undefined): { optedOut: number; excluded: number } {
  let optedOut = 0;
  let excluded = 0;
  if (leaveOut !== undefined) {
    for (const key of d.keys.export().slots) {
      if (key === 0) continue;
      const why = leaveOut.get(key);
      if (why === LEAVE_OUT.optedOut) optedOut++;
      else if (why !== undefined) excluded++;
    }
  }
  return { optedOut, excluded };
}

/** One line for people about what was left out; with --delivered-only, what became of the numbers not delivered, in the same line. */
export function describeSkipped(skipped: number, sent: SentNumbers, fate?: NotDeliveredFate): string {
  const ids = sent.named.map((r) => r.runId);
  const runs = `run ${ids.slice(0, 3).join(', ')}${ids.length > 3 ? ', …' : ''}`;
  const d = sent.deliveredOnly;
  if (d !== undefined) {
    const parts = fate === undefined ? ['sent again'] : [
      `${formatCount(fate.resent)} sent again`,
      ...(fate.optedOut > 0 ? [`${formatCount(fate.optedOut)} opted out`] : []),
      ...(fate.excluded > 0 ? [`${formatCount(fate.excluded)} on the ${FLAG.exclude} list`] : []),
      ...(d.notDelivered - fate.resent - fate.optedOut - fate.excluded > 0 ? [`${formatCount(d.notDelivered - fate.resent - fate.optedOut - fate.excluded)} not among this file's rows to send`] : []),
    ];
    const again = d.notDelivered > 0 ? `; ${formatCount(d.notDelivered)} not delivered (failed, expired, or no final receipt in 72 h): ${parts.join(', ')}` : '';
    const noId = d.withoutId > 0 ? ` (${formatCount(d.withoutId)} accepted without a message id count as sent)` : '';
    return `${formatCount(skipped)} row${skipped === 1 ? '' : 's'} delivered by ${runs}: left out${noId}${again}`;
  }
  // With --skip-in-doubt the rows in doubt are among those left out: not said to be accepted.
  const doubt = sent.inDoubtLeftOut === true ? Math.min(sent.inDoubt, skipped) : 0;
  if (doubt > 0) return `${formatCount(skipped)} row${skipped === 1 ? '' : 's'} already sent by ${runs}: left out (${formatCount(skipped - doubt)} accepted, ${formatCount(doubt)} in doubt)`;
  return `${formatCount(skipped)} row${skipped === 1 ? '' : 's'} already sent (accepted by ${runs}): left out`;
}

/** The copy of the numbers a --delivered-only run counted as sent when it started; a resume without it cannot rebuild its batches. */
export function deliveredAtStart(journalPath: string, runId: string): NumberSet {
  const set = readSnapshot(journalPath, DELIVERED_AT_START);
  if (set === undefined) {
    throw new UsageError(`${FLAG.resume}: the copy of the numbers run ${runId} counted as delivered when it started (${snapshotPath(journalPath, DELIVERED_AT_START)}) is gone, so its batches cannot be rebuilt; nothing was sent`, {
      hint: `Restore that file from a backup and resume again, or start a new run with ${FLAG.restart}.`,
    });
  }
  return set;
}

/**
 * --delivered-only with not one receipt for the runs' messages: no listener received them, or
 * their fields are not where msgr looks. Every number would read as not delivered (after 72 h)
 * and be messaged again, so nothing is sent.
 */
function noReceiptError(d: DeliveredOnly, runs: readonly SentRun[]): UsageError {
  const ids = runs.map((r) => r.runId).join(', ');
  const where = d.files.length > 0 ? `in ${d.files.join(', ')}` : 'in the state folder (no events file for the run\'s account)';
  return new UsageError(`${FLAG.deliveredOnly}: not one of the ${formatCount(d.withId)} messages of run ${ids} has a receipt ${where}, so msgr cannot tell which were delivered; nothing was sent`, {
    hint: `Check that msgr listen receives the account's receipts (\`msgr runs show ${runs[0]?.runId ?? ''}\`, with --message-id-field and --status-field where their fields have other names), or leave out every number it accepted: ${FLAG.skipSent} without ${FLAG.deliveredOnly}.`,
  });
}

/**
 * --delivered-only while receipts are still to come: sending now would message again people whose
 * message may yet arrive, so the run waits for them (or for the time after which none is expected).
 */
function pendingError(d: DeliveredOnly, runs: readonly SentRun[]): UsageError {
  const ids = runs.map((r) => r.runId).join(', ');
  return new UsageError(`${FLAG.deliveredOnly}: ${formatCount(d.pending)} message${d.pending === 1 ? '' : 's'} of run ${ids} ha${d.pending === 1 ? 's' : 've'} no final receipt yet; sending now could message again people whose message is still on its way; nothing was sent`, {
    hint: `Run this again once their receipts are in (\`msgr runs show ${runs[0]?.runId ?? ''}\` counts them); a message with no final receipt 72 h after it was sent counts as not delivered.`,
  });
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
 * What a run does about the numbers earlier runs accepted (docs/reruns.md: "Running a file again").
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
  /** --delivered-only: of the runs left out, only the numbers their receipts say were delivered. */
  readonly deliveredOnly?: DeliveredOnlyFrom | undefined;
  /** What a restart does with the rows its abandoned run left in doubt: left out (--skip-in-doubt), sent again (--resend-in-doubt), or not said. */
  readonly inDoubt?: 'skip' | 'resend' | undefined;
  /** The state folder, where the account's receipts are (they say whether rows in doubt were accepted). */
  readonly state?: string | undefined;
}

/** The copy of the numbers --delivered-only counted as sent when the run started (see SkipSentSource). */
export const DELIVERED_AT_START = { id: 'delivered' } as const;

/**
 * The numbers this run leaves out: those of the runs its journal names (a resume), else those of
 * the runs --skip-sent names, of the earlier runs of this file with the same message (--skip-sent
 * alone) and, for --restart, those the abandoned run accepted (unless --include-sent or --again, or
 * when that run sent another message or only to the sandbox). Without --skip-sent or --again, the numbers
 * the earlier runs of the file accepted are the guard.
 */
/**
 * A restart whose abandoned run left rows in doubt, without saying what to do with them.
 * --skip-in-doubt is offered only when the receipts show every one of them (they were accepted:
 * docs/reruns.md: "In doubt meets consent"); else only the resend, after a check.
 */
function restartInDoubtError(runId: string, count: number, receipts: { readonly withReceipt: number; readonly settledRows: number } | undefined): UsageError {
  const rows = `${formatCount(count)} recipient${count === 1 ? '' : 's'}`;
  const shown = receipts !== undefined && receipts.settledRows >= count;
  const some = receipts !== undefined && receipts.withReceipt > 0 && !shown ? ` (the receipts show ${formatCount(receipts.withReceipt)} of them)` : '';
  return new UsageError(`run ${runId}, which ${FLAG.restart} abandons, left ${rows} in doubt (their requests may have reached the API); this restart would send to them again under new Idempotency-Keys; nothing was sent`, {
    hint: shown
      ? `The receipts show every one of them (msgr runs show ${runId}): they were accepted. Add ${FLAG.skipInDoubt} to leave them out as accepted, or ${FLAG.resendInDoubt} to send to them again with this restart.`
      : `No receipt shows that they got it${some}: check them first (msgr runs show ${runId} lists them), then add ${FLAG.resendInDoubt} to send to them again with this restart.`,
  });
}

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
    const recorded = run.resumed.header.skipSent ?? [];
    const atStart = recorded.some((r) => r.deliveredOnly === true) ? deliveredAtStart(run.journalPath, run.resumed.header.runId) : undefined;
    const inDoubtLeftOut = recorded.some((r) => r.inDoubt === 'left-out');
    return { sent: recorded.length > 0 ? await loadSentNumbers(recorded, { flag: FLAG.resume, wantIds, atStart, inDoubtLeftOut }) : undefined, guard: undefined };
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
  // Under a campaign key the abandoned run is the same campaign (today's, in the cron recipe), and
  // the key says once: what it accepted is left out, --again or not. --again is about the earlier
  // runs of the file (yesterday's list) there (docs/reruns.md: "Campaign keys").
  const sameCampaign = abandoned !== undefined && run.kind === 'restart' && run.once !== undefined && abandoned.header.once?.key === run.once.key;
  // --again messages them again: the numbers the abandoned run accepted too (docs/reruns.md:
  // "Running a file again"), as --include-sent says for a restart alone.
  const again = flags.again && !sameCampaign;
  if (abandoned !== undefined && again && !flags.includeSent) ui.info(`${FLAG.again}: the numbers the abandoned run ${abandoned.header.runId} accepted are messaged again`);
  if (abandoned !== undefined && !flags.includeSent && !again && !journals.includes(abandoned.journal)) {
    const a = abandoned.header;
    const why = restartSendsToAll(a, definition, target);
    if (why !== undefined) ui.info(`the abandoned run ${a.runId} ${why}: the numbers it accepted are not left out`);
    else journals.push(abandoned.journal);
  }
  if (abandoned?.header.again === true) abandonedAgain = true;
  let sent: SentNumbers | undefined;
  if (journals.length > 0) {
    const flag = named.length > 0 || flags.bare ? FLAG.skipSent : FLAG.restart;
    sent = await loadSentNumbers(journals.map((journal) => ({ journal })), { flag, wantIds, delivered: flags.deliveredOnly, inDoubtLeftOut: abandoned !== undefined && flags.inDoubt === 'skip' });
    // A restart would send the rows its abandoned run left in doubt again, under new
    // Idempotency-Keys: they may have arrived. Said before anything is sent (docs/reruns.md:
    // "Running a file again").
    if (abandoned !== undefined && journals.includes(abandoned.journal) && sent.inDoubt > 0 && flags.inDoubt === undefined) {
      const receipts = flags.state !== undefined ? await settleInDoubt(flags.state, await readRunDetail(abandoned.journal, FLAG.restart)).catch(() => undefined) : undefined;
      throw restartInDoubtError(abandoned.header.runId, sent.inDoubt, receipts);
    }
    if (sent.deliveredOnly !== undefined && sent.deliveredOnly.withId > 0 && sent.deliveredOnly.matched === 0) throw noReceiptError(sent.deliveredOnly, sent.named);
    if (sent.deliveredOnly !== undefined && sent.deliveredOnly.pending > 0) throw pendingError(sent.deliveredOnly, sent.named);
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
