// src/bulk/journal/: the run journal, msgr's write-ahead log. records.ts (this file) is its format;
// writer.ts writes and fsyncs it, load.ts reads it back (every batch's latest state, or the header
// alone), reserve.ts keeps room for the answers in flight when the disk fills, run-keys.ts makes run
// ids and Idempotency-Keys. It imports no other folder of the engine; every other may import it.
//
// The records of the append-only run journal (docs/files.md: "Nothing lost, nothing sent twice"),
// one JSON line each:
//   {"type":"run",...}                   header: run id, input identity, everything that shapes
//                                        the batches, and the message, so --resume rebuilds the
//                                        same batches and bodies from the same file
//   {"type":"send","batch":k,...}        written and fsynced BEFORE batch k's request leaves, with
//                                        the batch's line numbers and numbers (which people it
//                                        reaches, readable without the file: --skip-sent, runs)
//   {"type":"done","batch":k,"outcome"}  after its answer, with the message ids of an accepted
//                                        batch when the answer carries them; the answers of one
//                                        turn of the event loop in one write, fsynced with the
//                                        next group of "send" lines or at the end (losing it to a
//                                        power cut only makes k "in doubt")
//   {"type":"out","batch":k}             written (not flushed) as batch k's request leaves (each
//                                        attempt), with the other batches leaving in that turn of
//                                        the event loop; "send" lines are written ahead
//   {"type":"wait","batch":k}            written (not flushed) when batch k's attempt provably
//                                        did not take and it waits to retry (429, 503, refused)
//   {"type":"boot","id":...}             the machine's boot id, when the process opens the
//                                        journal (Linux: /proc/sys/kernel/random/boot_id)
//   {"type":"stop","reason":...}         how the process ended, for people
// Each record is one write(2) of a whole line, so a kill -9 leaves whole lines; a power cut can
// tear the last one, which reading ignores. A batch with "send" and no "done" is in doubt, unless
// it has no "out" and its "send" was written since this boot: then the process ended before the
// request left (a kill -9 while it waited for a slot), and the lines it wrote are still in the
// file, unflushed or not, so it was never sent. A power cut loses unflushed lines, but changes the
// boot id: then every batch with "send" and no "done" is in doubt, as it may have left. A batch
// in doubt that is sent again (--resend-in-doubt) stays in doubt until an answer comes: a resend
// killed or stopped before it left does not make the earlier request "never sent".
// Writing them: src/bulk/journal/writer.ts; reading them: src/bulk/journal/load.ts.
import type { ScheduleRecord } from '../../schedule/index.js';

export const JOURNAL_VERSION = 1;

export interface InputIdentity {
  /** Absolute path of the file read (for stdin: the spooled copy). */
  readonly path: string;
  readonly stdin: boolean;
  readonly size: number;
  readonly mtimeMs: number;
  /** sha256 of size + first MiB + last MiB: checked before reading. */
  readonly quickHash: string;
  /** sha256 of the whole content, computed by the preflight pass: checked before sending. */
  readonly hash: string;
  /**
   * The hash of the data the content holds, however saved (csv/data-hash.ts): the same data under
   * another campaign key is found by it. Absent from the journals of an msgr before it.
   */
  readonly dataHash?: string;
}

/** Everything that decides which rows go in which batch and what each request says. */
export interface RunShape {
  readonly batchSize: number;
  readonly encoding: string;
  readonly delimiter: string;
  readonly msisdnColumn: string;
  readonly varColumns: readonly string[];
  readonly metaColumns: readonly string[];
  readonly defaultCountry: string | null;
  readonly allowDuplicates: boolean;
  readonly skipInvalid: boolean;
  readonly exclude: { readonly path: string; readonly hash: string; readonly column?: string | undefined } | null;
  /** --no-header: the first line is a recipient. */
  readonly noHeader?: boolean;
  /** --first-per-number: a number's later rows with another message are left out, not a stop. */
  readonly firstPerNumber?: boolean;
  /** --allow-unlisted-numbers: possible numbers outside the known numbering plan are sent. */
  readonly allowUnlisted?: boolean;
  /** --fix-mojibake: cells mangled by a spreadsheet round trip are sent repaired. */
  readonly fixMojibake?: boolean;
  /** --mobile-only: numbers typed other than mobile were left out (filtered). */
  readonly mobileOnly?: boolean;
  /** --price-file (its absolute path) and --max-cost (as given): a resume estimates and caps as the run started, unless it names its own. */
  readonly prices?: { readonly file: string; readonly maxCost?: string };
  /** A message per row (bulk/compose/personalise.ts); absent: one message for every row. */
  readonly personal?: PersonalSpec | undefined;
  /** Send windows and deadlines (src/schedule/): rows are batched by their zones; absent: any time. */
  readonly schedule?: ScheduleRecord | undefined;
}

export interface RunHeader {
  readonly type: 'run';
  readonly version: number;
  readonly runId: string;
  readonly createdAt: string;
  readonly msgr: string;
  readonly input: InputIdentity;
  readonly shape: RunShape;
  /** The request without recipients, exactly as sent (validity already absolute). */
  readonly message: Record<string, unknown>;
  /** alreadySent: rows left out because an earlier run accepted their number (--skip-sent). */
  readonly totals: { readonly rows: number; readonly toSend: number; readonly requests: number; readonly alreadySent?: number };
  /** Where the run sends (bulk/this-run/where.ts); absent in journals of earlier msgr versions. */
  readonly target?: JournaledTarget;
  /** Runs whose accepted numbers this run leaves out (--skip-sent, --restart); absent: none. */
  readonly skipSent?: readonly SkipSentSource[];
  /**
   * --again: the run was started to message again numbers earlier runs of its file had accepted
   * (docs/reruns.md: "Running a file again"); absent: it was not.
   */
  readonly again?: true;
  /** --once: the campaign key the run is known by (bulk/earlier/campaign-key.ts); absent: a run without one. */
  readonly once?: OnceRecord;
  /**
   * The account's opt-out store (docs/optouts.md: "Sending"): `left-out`, its numbers as the run
   * started are left out (a copy beside the journal, `<journal>.optouts-at-start`) and those opted
   * out since are left out of the batches not sent yet; `included`, the run sends to them all the
   * same (--include-opted-out --yes). `numbers`: how many it had at the start; with none, no copy
   * is kept (a run folder holds its journal alone). `suppressed`: the rows it left out then.
   * `copy`: the digest of the copy as it was kept (bulk/send-pass/opt-outs.ts copyDigest): a resume
   * refuses a copy changed since; absent in journals of earlier msgr versions. Absent: a run of an
   * msgr that did not read the store, whose resume leaves the store's numbers out of the batches not sent yet.
   */
  readonly optOuts?: { readonly store: 'left-out' | 'included'; readonly numbers?: number; readonly suppressed?: number; readonly copy?: string };
}

/** A run's campaign key (--once), and the name its Idempotency-Keys are made from. */
export interface OnceRecord {
  readonly key: string;
  /** `msgr-<idempotency>-<batch>` is batch k's Idempotency-Key (bulk/journal/run-keys.ts idempotencyKey). */
  readonly idempotency: string;
}

/** Where a run sends. Never the key: a fingerprint of it. */
export interface JournaledTarget {
  readonly baseUrl: string;
  readonly account: string | null;
  readonly profile: string | null;
  readonly sandbox: boolean;
  readonly keyFingerprint: string;
}

/**
 * A run whose accepted numbers were left out, as it was when this run started: its journal read
 * up to `bytes` (journals only grow), so a resume leaves out exactly the same numbers.
 */
export interface SkipSentSource {
  readonly runId: string;
  readonly journal: string;
  readonly bytes: number;
  /**
   * --delivered-only: only the numbers whose message the receipts said was delivered were left
   * out; which, as the run started, is kept beside the journal (`<journal>.delivered-at-start`),
   * since receipts that come later must not change a resume's batches.
   */
  readonly deliveredOnly?: true;
  /**
   * --skip-in-doubt: the numbers of batches in doubt in the runs left out were left out too, as if
   * accepted (a person checked that they arrived), so a resume rebuilds the same batches.
   */
  readonly inDoubt?: 'left-out';
}

/** `excluded`: every recipient of the batch went on the --exclude list or into the opt-out store after the run started; nothing was sent. */
export type BatchOutcome = 'accepted' | 'rejected' | 'not-sent' | 'in-doubt' | 'auth' | 'excluded';

export interface SendRecord {
  readonly type: 'send';
  readonly batch: number;
  readonly first: number;
  readonly count: number;
  readonly key: string;
  /** The batch's input lines and numbers, in request order (absent in earlier journals). */
  readonly lines?: readonly number[];
  readonly numbers?: readonly string[];
  /**
   * With --allow-duplicates and rows that differ in their message: each recipient's number-and-
   * message hash (bulk/preflight/repeats.ts messageHash), so a later run of the file leaves out
   * the messages a number had and sends it the others (bulk/earlier/already-sent.ts). Absent: the
   * journal says which numbers, not which of their messages.
   */
  readonly messages?: readonly number[];
  /**
   * Recipients of the batch left out because they went on a list of numbers not to message after
   * the run started (the --exclude list, the opt-out store: bulk/send-pass/opt-outs.ts): `count`
   * and `numbers` are those sent. Absent: none.
   */
  readonly excluded?: number;
  /** Of those, how many went into the opt-out store. Absent: none. */
  readonly optedOut?: number;
  readonly at: string;
}

export interface DoneRecord {
  readonly type: 'done';
  readonly batch: number;
  readonly outcome: BatchOutcome;
  readonly status?: number;
  readonly error?: string;
  /** Accepted: each recipient's message id in request order (null: none), when any came. */
  readonly ids?: ReadonlyArray<string | null>;
  /** Outcome `excluded`: how many recipients were left out (the whole batch). */
  readonly excluded?: number;
  /** Outcome `excluded`: of those, how many went into the opt-out store. */
  readonly optedOut?: number;
  /**
   * Outcome `accepted` written by a resume for a batch left in doubt, because the receipts in the
   * account's events show every one of its recipients (bulk/history/run-delivery.ts settleInDoubt):
   * no answer came, but the API had taken it.
   */
  readonly settledBy?: 'receipts';
  readonly at: string;
}

export interface StopRecord {
  readonly type: 'stop';
  readonly reason: string;
  /** reason 'limit': the --limit the command was given. */
  readonly limit?: number;
  readonly at: string;
}

/** Batch states as loaded: one byte per batch. */
export const BatchState = {
  none: 0,
  started: 1,
  accepted: 2,
  rejected: 3,
  notSent: 4,
  inDoubt: 5,
  auth: 6,
  excluded: 7,
} as const;
export type BatchStateCode = (typeof BatchState)[keyof typeof BatchState];

/** The state a "done" record's outcome leaves its batch in (as loadJournal reads it). */
export const OUTCOME_STATE: Record<BatchOutcome, BatchStateCode> = {
  accepted: BatchState.accepted,
  rejected: BatchState.rejected,
  'not-sent': BatchState.notSent,
  'in-doubt': BatchState.inDoubt,
  auth: BatchState.auth,
  excluded: BatchState.excluded,
};

/**
 * A batch settled for good, never sent again: the API gave its final answer (accepted or
 * rejected), or every recipient of it went on the --exclude list before it was sent.
 */
export function isAnswered(state: number | undefined): boolean {
  return state === BatchState.accepted || state === BatchState.rejected || state === BatchState.excluded;
}

/**
 * A batch whose request may have reached the API with no answer written down: "started" as
 * loaded means a "sending" line without an outcome whose request may have left (its "out" line
 * stands, or it was written before the machine restarted, which may have lost that line:
 * docs/files.md, bulk/journal/load.ts), "inDoubt" that its outcome said so (a timeout, a reset).
 */
export function isInDoubt(state: number | undefined): boolean {
  return state === BatchState.started || state === BatchState.inDoubt;
}

// The two records written per batch. An answer's is built as text, the same JSON as
// JSON.stringify of the record at a third of the cost (one per request with a message per row).

export function sendLine(rec: Omit<SendRecord, 'type' | 'at'>, at: string): string {
  // JSON.stringify here: built as text, a 1,000-recipient line ("lines" joined by hand) cost
  // ~12 MB more peak RSS and ~20 % more time sending 1,000,000 rows in batches of 1,000.
  const { batch, first, count, key, lines, numbers, messages, excluded, optedOut } = rec;
  return `${JSON.stringify({ type: 'send', batch, first, count, key, lines, numbers, messages, excluded, optedOut, at })}\n`;
}

export function doneLine(rec: Omit<DoneRecord, 'type' | 'at'>, at: string): string {
  const status = rec.status !== undefined ? `,"status":${rec.status}` : '';
  const error = rec.error !== undefined ? `,"error":${JSON.stringify(rec.error)}` : '';
  const ids = rec.ids !== undefined ? `,"ids":${JSON.stringify(rec.ids)}` : '';
  const excluded = rec.excluded !== undefined ? `,"excluded":${rec.excluded}` : '';
  const optedOut = rec.optedOut !== undefined ? `,"optedOut":${rec.optedOut}` : '';
  const settled = rec.settledBy !== undefined ? `,"settledBy":"${rec.settledBy}"` : '';
  return `{"type":"done","batch":${rec.batch},"outcome":"${rec.outcome}"${status}${error}${ids}${excluded}${optedOut}${settled},"at":"${at}"}\n`;
}

/** What makes each row's message its own; journaled with the run, so --resume does the same. */
export interface PersonalSpec {
  /** The text's placeholders are filled in per row. */
  readonly render: boolean;
  readonly textColumn: string | null;
  readonly fromColumn: string | null;
  readonly maxParts: number | null;
}
