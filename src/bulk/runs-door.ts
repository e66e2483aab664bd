// The campaign engine's front door for `msgr runs` (src/commands/runs/ imports nothing else
// of src/bulk/; eslint.config.js holds it), and for `msgr listen`'s question "is a run sending?".
// A facade: each function is one thing a person asks of the runs in the state folder, answered
// as data; the command keeps the tables and the wording.
//
//   listRuns     every run, newest first, with its state (sending now, unfinished, finished, …)
//   showRun      one run: its figures, its batches in doubt, how its last process ended
//   continueRun  the command that continues an unfinished run
//   writeReport  a run's full report, from its journal (and its file, while unchanged)
//   pruneRuns    finished and abandoned runs older than an age, removed
//   sendingRuns  the runs being sent now
//   messaged     every recipient the runs' accepted batches messaged, and when (optout violations)
import { join, resolve } from 'node:path';
import type { Context } from '../context.js';
import { lockHolder, type LockOwner, type LockProcess } from '../files/lock.js';
import { stateDir } from '../files/state-dir.js';
import { DEFAULT_CONCURRENCY } from './campaign.js';
import { FLAG } from './flag-names.js';
import { isInDoubt, type RunHeader } from './journal/records.js';
import { readHeader } from './journal/load.js';
import { refuseReportOver, ReportWriter, requestFields } from './report/report-file.js';
import { catalogueRuns, findRun, pruneRuns as prune, readRunDetail, runInfo, sendingRuns as sending, type PruneResult, type RunInfo, type SendingRun, type UnreadableJournal } from './history/catalogue.js';
import { writeRunReport, type RunReport } from './earlier/full-report.js';
import { runDelivery, settleInDoubt, withSettled, type DeliveryOptions, type RunDelivery } from './history/run-delivery.js';
import type { FieldPaths } from '../events/fields.js';
import { visitMessaged, type Messaged, type MessagedRun } from './history/messaged.js';
import { realFile, runDirFor } from './history/state-folder.js';
import { describeSender, describeTarget, describeText, keyFingerprint, sameBaseUrl } from './this-run/where.js';
import { buildResumeCommand } from './this-run/resume-command.js';
import { sameInput } from './input/identity.js';

export type { DeliveryCounts, RunDelivery } from './history/run-delivery.js';
export type { Messaged, MessagedRun, PruneResult, RunInfo, SendingRun, UnreadableJournal };

export type RunStatus = 'finished' | 'abandoned' | 'sending' | 'unfinished';

/** A run as listed: its figures, and the process sending it now, if any. */
export interface RunListing extends RunInfo {
  readonly sending: LockOwner | undefined;
  readonly status: RunStatus;
}

/**
 * The msgr process sending the run now, if any (a live process holds its journal's lock): its
 * batches without an answer yet are in flight, not left in doubt, and a --resume would be refused.
 */
function sendingNow(proc: LockProcess, r: RunInfo): LockOwner | undefined {
  return r.finished || r.abandoned ? undefined : lockHolder(`${r.journal}.lock`, proc);
}

function status(r: RunInfo, owner: LockOwner | undefined): RunStatus {
  if (r.finished) return 'finished';
  if (r.abandoned) return 'abandoned';
  return owner !== undefined ? 'sending' : 'unfinished';
}

function state(ctx: Pick<Context, 'env' | 'cwd'>): string {
  return stateDir(ctx.env, ctx.cwd);
}

/** Every run, with its state; and the journals that cannot be read, which are listed too. */
export async function listRuns(ctx: Context): Promise<{ readonly runs: RunListing[]; readonly unreadable: readonly UnreadableJournal[] }> {
  const { runs, unreadable } = await catalogueRuns(state(ctx));
  return {
    runs: runs.map((r) => {
      const owner = sendingNow(ctx, r);
      return { ...r, sending: owner, status: status(r, owner) };
    }),
    unreadable,
  };
}

/** A batch whose request may have reached the API with no answer written down. */
export interface InDoubtBatch {
  readonly batch: number;
  readonly idempotencyKey: string;
  readonly firstLine: number | null;
  readonly recipients: number;
  readonly numbers: readonly string[];
  /** Its recipients the account's receipts show (bulk/history/run-delivery.ts settleInDoubt). */
  readonly withReceipt: number;
  /** Every one has a receipt: the API took it, and it counts as accepted. */
  readonly settled: boolean;
}

/** One run, as `msgr runs show` tells it. */
export interface RunView {
  readonly journal: string;
  readonly info: RunInfo;
  readonly header: RunHeader;
  readonly sending: LockOwner | undefined;
  readonly status: RunStatus;
  readonly inDoubt: readonly InDoubtBatch[];
  /** The last process's "stop" line, if it wrote one. */
  readonly lastStop: string | undefined;
  /** What the saved receipts say of its messages. */
  readonly delivery: RunDelivery;
  /** Rows in doubt whose batches the receipts settle (every recipient has one): accepted. */
  readonly settledByReceipts: number;
  /** Rows left out because their number was in the opt-out store: as the run started, and since. */
  readonly suppressed: { readonly atStart: number; readonly sinceStart: number };
  /** For people: where it sent, its text and its sender. */
  readonly described: { readonly target: string; readonly text: string; readonly from: string };
}

/**
 * Where `runs show` and `runs report` read receipts: events files saved elsewhere (`--events`;
 * default: the listener's for the run's account), and the fields where the shape is not the
 * sandbox's (docs/events.md: "Delivery in runs").
 */
export interface ReceiptOptions {
  readonly events?: readonly string[] | undefined;
  readonly fields?: FieldPaths | undefined;
}

function deliveryOptions(ctx: Pick<Context, 'cwd' | 'now'>, o: ReceiptOptions): DeliveryOptions {
  return { events: o.events?.map((f) => resolve(ctx.cwd, f)), fields: o.fields, now: ctx.now() };
}

/** The run `ref` names (an id, a journal, the CSV file): `runs show`'s flag says which command asked. */
export async function showRun(ctx: Context, ref: string, receipts: ReceiptOptions = {}): Promise<RunView> {
  const journal = findRun(state(ctx), ctx.cwd, ref, 'runs show');
  const info = await runInfo(journal);
  const detail = await readRunDetail(journal, 'runs show');
  const owner = sendingNow(ctx, info);
  // While a run sends, its batches without an answer are in flight: receipts settle nothing yet.
  const settlement = owner === undefined ? await settleInDoubt(state(ctx), detail, deliveryOptions(ctx, receipts)) : undefined;
  // The rows the receipts settled count as accepted, so their delivery counts too.
  const delivery = await runDelivery(state(ctx), withSettled(detail, settlement), deliveryOptions(ctx, receipts));
  const h = detail.loaded.header;
  const inDoubt: InDoubtBatch[] = [];
  detail.loaded.states.forEach((s, b) => {
    if (!isInDoubt(s)) return;
    const send = detail.sends.get(b);
    const settled = settlement?.batches.find((x) => x.batch === b);
    inDoubt.push({ batch: b, idempotencyKey: send?.key ?? '', firstLine: send?.lines?.[0] ?? null, recipients: send?.count ?? 0, numbers: send?.numbers ?? [], withReceipt: settled?.withReceipt.length ?? 0, settled: settled?.settled ?? false });
  });
  return {
    journal,
    info,
    header: h,
    sending: owner,
    status: status(info, owner),
    inDoubt,
    lastStop: detail.loaded.lastStop,
    delivery,
    settledByReceipts: settlement?.settledRows ?? 0,
    suppressed: { atStart: h.optOuts?.suppressed ?? 0, sinceStart: detail.loaded.optedOut.reduce((a, b) => a + b, 0) },
    described: { target: describeTarget(h.target), text: describeText(h.message, h.shape.personal) ?? '', from: describeSender(h.message, h.shape.personal) ?? '' },
  };
}

/** A profile as saved now, as far as the command that continues a run needs it. */
export interface SavedProfile {
  readonly apiKey?: string | undefined;
  readonly baseUrl?: string | undefined;
  readonly account?: string | undefined;
}

/**
 * The command that resumes a run from its journal: a journal kept anywhere but its file's own
 * run folder (`--journal`, stdin) must be named, or the resume would look in that folder and
 * find another run or none (docs/files.md: "Nothing lost, nothing sent twice"). A resume sends where the
 * run sent but does not read that from the journal: a run without a profile is given its base
 * URL, which came from --base-url or MSGR_BASE_URL; a run with one, the base URL and account it
 * had when the profile does not give them (a flag or the environment did), or a resume with
 * -p alone would be refused as another target (docs/files.md: "Runs"). `profileOf`: the profile
 * the run sent with, as saved now. `otherKey`: the key came from elsewhere than that profile (the
 * environment, a file the journal does not name).
 */
/**
 * Whether the run's file is no longer the data it started with (a resume would be refused:
 * resume-checks.ts), so nothing but a --restart continues it. A run of stdin keeps its own copy.
 */
export function inputChangedSince(view: Pick<RunView, 'header'>): boolean {
  const h = view.header;
  return !h.input.stdin && !sameInput(h.input.path, h.input);
}

export function continueRun(ctx: Pick<Context, 'env' | 'cwd'>, view: Pick<RunView, 'journal' | 'header'>, profileOf: (name: string) => SavedProfile | undefined): { readonly command: string; readonly otherKey: boolean } {
  const { journal, header: h } = view;
  const t = h.target;
  const profile = t !== undefined && !t.sandbox && t.profile !== null ? profileOf(t.profile) : undefined;
  const otherKey = t !== undefined && !t.sandbox && (t.profile === null || profile?.apiKey === undefined || keyFingerprint(profile.apiKey) !== t.keyFingerprint);
  const sandbox = t?.sandbox === true;
  const own = h.input.stdin ? undefined : join(runDirFor(state(ctx), realFile(h.input.path), sandbox), 'journal.jsonl');
  let baseUrl: string | undefined;
  let account: string | undefined;
  if (t !== undefined && !t.sandbox) {
    if (t.profile === null || profile?.baseUrl === undefined || !sameBaseUrl(profile.baseUrl, t.baseUrl)) baseUrl = t.baseUrl;
    if (t.profile !== null && t.account !== null && profile?.account !== t.account) account = t.account;
  }
  const command = buildResumeCommand(
    { file: h.input.path, profile: t?.profile ?? undefined, baseUrl, account, sandbox, concurrency: DEFAULT_CONCURRENCY, yes: false, journal: journal === own ? undefined : journal, once: h.once?.key },
    h.input.path,
    h.input.stdin,
    journal,
  );
  return { command, otherKey };
}

/**
 * Writes the full report of the run `ref` names to `path` (never over the journal, the CSV or the
 * --exclude list it is made from). A failure or a stop leaves the file at the path as it was.
 */
export async function writeReport(ctx: Context, ref: string, report: string, debug: (line: string) => void, receipts: ReceiptOptions = {}): Promise<{ readonly journal: string; readonly path: string; readonly runId: string | undefined; readonly written: RunReport }> {
  const journal = findRun(state(ctx), ctx.cwd, ref, 'runs report');
  const path = resolve(ctx.cwd, report);
  const header = readHeader(journal);
  refuseReportOver(path, [
    ["the run's journal", journal],
    ["the run's CSV file", header !== undefined && !header.input.stdin ? header.input.path : undefined],
    [`the run's ${FLAG.exclude} list`, header?.shape.exclude?.path],
    ...(receipts.events ?? []).map((f) => ['the events file', f] as const),
  ]);
  const writer = new ReportWriter(path, ctx.pid, { delivery: true, isProcessAlive: ctx.isProcessAlive });
  if (header !== undefined) writer.carries(requestFields(header.shape.varColumns, header.shape.metaColumns));
  // A signal quits this command at once (nothing is in flight): the file at the path stays as it was.
  ctx.atQuit(() => writer.discard());
  try {
    // While a run sends, its batches without an answer are in flight: receipts settle nothing yet.
    const settle = lockHolder(`${journal}.lock`, ctx) === undefined;
    const written = await writeRunReport(ctx, journal, writer, debug, { ...deliveryOptions(ctx, receipts), settle });
    writer.close();
    return { journal, path, runId: header?.runId, written };
  } finally {
    // Closed above once complete; a failure or a stop leaves the file at the path as it was.
    writer.discard();
  }
}

/** Removes the finished and abandoned runs older than `olderThanMs` (or says which it would, `dryRun`). */
export function pruneRuns(ctx: Context, olderThanMs: number, dryRun: boolean): Promise<PruneResult> {
  return prune(state(ctx), olderThanMs, ctx, dryRun);
}

/** The runs a send-bulk is sending now (`msgr listen`'s warning when receipts do not come). */
export function sendingRuns(ctx: Pick<Context, 'env' | 'cwd'> & LockProcess): SendingRun[] {
  return sending(state(ctx), ctx);
}

/**
 * Every recipient of every batch the API accepted, in the runs of the state folder (the sandbox's
 * with `sandbox`), run by run: whom msgr messaged, when, and with which message id.
 */
export function messaged(ctx: Pick<Context, 'env' | 'cwd'>, sandbox: boolean, visit: (run: MessagedRun, m: Messaged) => void): Promise<{ readonly runs: number; readonly unreadable: number }> {
  return visitMessaged(state(ctx), sandbox, visit);
}
