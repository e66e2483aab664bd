// The send pass's books: what each batch's answer (or its absence) counts as, and when the run
// stops or slows down. Its rules, each covered by test/unit/bulk/send-pass/sender.test.ts:
// - a 429 or 503 slows the whole run (a pause for every batch, a smaller window, a lower rate);
// - a setting to fix stops the run at its first answer: a 3xx, 404 or 405 (the base URL), or a
//   proxy refusing the tunnel; so does a connection that was never made (after the client's brief
//   retries), since every later batch would meet the same; none of them puts a batch in doubt;
// - five batches in a row without an answer (in doubt or not sent) stop the run;
// - a 409 (the Idempotency-Key is still being processed) counts as in doubt, not rejected;
// - a batch an earlier run finished is never sent again; one in doubt only with --resend-in-doubt;
// - a local cause (a stop, a journal that cannot be written) never puts a batch in doubt.
// Why: docs/campaigns.md: "Sending"; docs/files.md: "Nothing lost, nothing sent twice"; docs/unattended.md: "Stopping".
import { setMaxListeners } from 'node:events';
import { isWrongAddress, REDIRECT_HINT, type Outcome } from '../../http/outcome.js';
import type { Batch } from './batches.js';
import { DiskFullError } from '../journal/writer.js';
import { BatchState, isInDoubt, type BatchOutcome, type DoneRecord } from '../journal/records.js';
import type { Gate, RateLimiter, Window } from './limiter.js';
import { extractMessageIds } from '../../http/message-ids.js';
import { type Progress, type ProgressStats } from './progress.js';
import { EXCLUDED_SINCE_START, OPTED_OUT_SINCE_START, type LeftOut } from './opt-outs.js';
import { idempotencyKey } from '../journal/run-keys.js';
import { formatDuration } from '../../output/count.js';
import { FLAG } from '../flag-names.js';

/** Consecutive batches that failed without an answer (in doubt or not sent) before the run stops. */
export const MAX_CONSECUTIVE_FAILURES = 5;

/**
 * disk-full: a journal line (or the report) found no room; journal: it could not be written;
 * unreachable: a request could not get to the API (no connection, the proxy's tunnel, TLS).
 */
export type StopReason = 'limit' | 'interrupted' | 'auth' | 'config' | 'unreachable' | 'failing' | 'disk-full' | 'journal' | 'deadline' | 'window-closed';

export interface SendResult {
  accepted: number;
  acceptedEarlier: number;
  rejected: number;
  inDoubt: number;
  notSent: number;
  /** Recipients left out because they went on the --exclude list after the run started (bulk/send-pass/opt-outs.ts). */
  excludedAfterStart: number;
  /** Recipients left out because they went into the opt-out store after the run started. */
  suppressedAfterStart: number;
  inDoubtBatches: Array<{ batch: number; idempotencyKey: string; firstLine: number; recipients: number }>;
  stopped: StopReason | undefined;
  authStatus?: number;
  authMessage?: string;
  lastFailure?: string;
  /** The folder that ran out of space (stopped: disk-full). */
  fullFolder?: string;
  /** Why the journal could not be written (stopped: journal). */
  journalError?: string;
  /** What to do about the last failure, when it knows (a proxy refusing the credentials, say). */
  lastHint?: string | undefined;
  /** The 3xx, 404 or 405 that stopped the run (stopped: config): the base URL is to fix. */
  wrongAddress?: number;
  throttled: number;
  /** When the next batch's send window opens (stopped: window-closed), ms. */
  opensAt?: number;
}

export interface AccountingParts {
  /** Names the Idempotency-Keys of batches in doubt (SenderParts.idempotency). */
  readonly idempotency: string;
  /** Recipients the preflight found to send: what the counts add up to. */
  readonly toSend: number;
  /** Each batch's state in an earlier run of this journal (--resume); undefined for a new run. */
  readonly states: Uint8Array | undefined;
  /** Per batch, of its recipients left out since the run started, those opted out (as journaled). */
  readonly optedOut?: Uint32Array | undefined;
  readonly resendInDoubt: boolean;
  /** The outcome records of batches an earlier run of this journal finished (for the report). */
  readonly earlier?: ReadonlyMap<number, Pick<DoneRecord, 'status' | 'error' | 'ids'>> | undefined;
  readonly window: Window;
  readonly limiter: RateLimiter | undefined;
  readonly gate: Gate;
  readonly progress: Progress;
  readonly debug: (line: string) => void;
}

export class BatchAccounting {
  readonly #cfg: AccountingParts;
  #stopped: StopReason | undefined;
  #consecutiveFailures = 0;
  #done = 0;
  /** Of #done, settled by an earlier run of this journal: not part of this run's rate. */
  #earlier = 0;
  #failed = 0;
  // performance.now() counts from the start of the process: the first note is always said.
  #lastThrottleNote = Number.NEGATIVE_INFINITY;
  #lastRetryNote = Number.NEGATIVE_INFINITY;
  /** Aborted when the run stops for any reason: retries not yet started are dropped. */
  readonly #stopRetries = new AbortController();
  readonly #result: SendResult = { accepted: 0, acceptedEarlier: 0, rejected: 0, inDoubt: 0, notSent: 0, excludedAfterStart: 0, suppressedAfterStart: 0, inDoubtBatches: [], stopped: undefined, throttled: 0 };

  constructor(parts: AccountingParts) {
    this.#cfg = parts;
    // Each request waiting to retry listens for the stop (up to --concurrency at once): not a
    // leak, so Node's warning past 10 listeners would only alarm people.
    setMaxListeners(0, this.#stopRetries.signal);
  }

  get stopped(): StopReason | undefined {
    return this.#stopped;
  }

  /** Recipients counted in doubt so far. */
  get inDoubt(): number {
    return this.#result.inDoubt;
  }

  /** Aborted once the run stops: the client drops the retries it has not started. */
  get stopRetries(): AbortSignal {
    return this.#stopRetries.signal;
  }

  /** The client is about to wait before retrying: 429/503 slow the whole run down. */
  onRetry(info: { attempt: number; delayMs: number; reason: string; status?: number }): void {
    const { gate, window, limiter, progress } = this.#cfg;
    gate.pauseFor(info.delayMs);
    if (info.status === 429 || info.status === 503) {
      this.#result.throttled++;
      window.throttled();
      limiter?.slowDown(0.8);
      const now = performance.now();
      if (now - this.#lastThrottleNote > 5_000) {
        this.#lastThrottleNote = now;
        progress.log(`the server asked to slow down (HTTP ${info.status}): pausing ${(info.delayMs / 1000).toFixed(1)} s, ${window.limit} request${window.limit === 1 ? '' : 's'} in flight from now on`);
      }
    } else {
      // Said, not only under --verbose: a wait without a word looks like a hang (a few seconds
      // at most: the client's connection retries are brief).
      const now = performance.now();
      if (now - this.#lastRetryNote > 5_000) {
        this.#lastRetryNote = now;
        progress.log(`${info.reason}; trying again in ${(info.delayMs / 1000).toFixed(1)} s`);
      } else {
        this.#cfg.debug(`retrying a batch in ${(info.delayMs / 1000).toFixed(1)} s (${info.reason})`);
      }
    }
  }

  result(): SendResult {
    const r = this.#result;
    r.stopped = this.#stopped ?? (r.opensAt !== undefined ? 'window-closed' : this.#tooLate ? 'deadline' : undefined);
    r.notSent = this.#cfg.toSend - r.accepted - r.rejected - r.inDoubt - r.excludedAfterStart - r.suppressedAfterStart;
    // Settled in the order their answers (or timeouts) came: listed in the order of the file.
    r.inDoubtBatches.sort((a, b) => a.batch - b.batch);
    return r;
  }

  /**
   * A batch that is not to be sent in this run, settled: one an earlier run finished or left in
   * doubt. False: it is to be sent.
   */
  settledBefore(b: Batch): boolean {
    const { states, earlier } = this.#cfg;
    const state = states?.[b.index] ?? BatchState.none;
    const count = b.count;
    if (state === BatchState.excluded) {
      // Every recipient went on a list before an earlier run of the journal sent it.
      b.outcome = 'excluded';
      b.error = EXCLUDED_SINCE_START;
      const optedOut = Math.min(count, this.#cfg.optedOut?.[b.index] ?? 0);
      if (optedOut === count) {
        b.outcome = 'suppressed';
        b.error = OPTED_OUT_SINCE_START;
      }
      this.leftOut({ excluded: count - optedOut, optedOut });
      this.#earlier += count;
      return true;
    }
    if (state === BatchState.accepted || state === BatchState.rejected) {
      // Done by an earlier run of this journal: never sent again.
      b.outcome = state === BatchState.accepted ? 'accepted' : 'rejected';
      const was = earlier?.get(b.index);
      b.ids = was?.ids?.map((id) => id ?? undefined);
      b.status = was?.status;
      b.error = 'before this resume';
      if (state === BatchState.accepted) {
        this.#result.accepted += count;
        this.#result.acceptedEarlier += count;
      } else {
        this.#result.rejected += count;
      }
      this.#done += count;
      this.#earlier += count;
      return true;
    }
    if (isInDoubt(state) && !this.#cfg.resendInDoubt) {
      this.markInDoubt(b, `in doubt since an earlier run: not sent again without ${FLAG.resendInDoubt}`);
      this.#earlier += count;
      return true;
    }
    return false;
  }

  /** Recipients of a batch left out since the run started (bulk/send-pass/opt-outs.ts): not sent, and never will be. */
  leftOut(n: LeftOut): void {
    this.#result.excludedAfterStart += n.excluded;
    this.#result.suppressedAfterStart += n.optedOut;
    this.#done += n.excluded + n.optedOut;
  }

  /** A batch the run did not send because it had stopped. */
  notSent(b: Batch, why: StopReason | undefined = this.#stopped): void {
    if (this.#stillInDoubt(b, this.stopReasonText(why))) return;
    b.outcome = 'not-sent';
    b.error = this.stopReasonText(why);
  }

  /**
   * A batch an earlier run left in doubt, whose resend (--resend-in-doubt) did not leave: the
   * earlier request may still have reached the API, so it stays in doubt (docs/files.md: "Nothing
   * lost, nothing sent twice").
   */
  #stillInDoubt(b: Batch, why: string): boolean {
    const state = this.#cfg.states?.[b.index];
    if (!isInDoubt(state)) return false;
    this.markInDoubt(b, `in doubt since an earlier run (its resend: ${why})`);
    return true;
  }

  stopReasonText(why: StopReason | undefined = this.#stopped): string {
    switch (why) {
      case 'limit':
        return 'not sent: the run stopped at its --limit (a resume sends it)';
      case 'interrupted':
        return 'interrupted before it was sent';
      case 'auth':
        return 'not sent: the API refused the key or the account';
      case 'config':
        return 'not sent: the run stopped on a setting to fix';
      case 'unreachable':
        return 'not sent: the run stopped, the API could not be reached';
      case 'failing':
        return 'not sent: the run stopped after repeated failures';
      case 'disk-full':
        return 'not sent: the disk is full';
      case 'journal':
        return 'not sent: the journal could not be written';
      case 'deadline':
        return 'not sent (deadline)';
      case 'window-closed':
        return 'not sent yet: outside its send window';
      default:
        return 'not sent';
    }
  }

  markInDoubt(b: Batch, error: string): void {
    b.outcome = 'in-doubt';
    b.error = error;
    const count = b.count;
    this.#result.inDoubt += count;
    this.#result.inDoubtBatches.push({ batch: b.index, idempotencyKey: idempotencyKey(this.#cfg.idempotency, b.index), firstLine: b.firstLine, recipients: count });
    this.#failed += count;
    this.#done += count;
  }

  /** Counts a sent batch's outcome; returns what the journal records of it. */
  answered(b: Batch, outcome: Outcome): BatchOutcome {
    const count = b.count;
    switch (outcome.kind) {
      case 'accepted':
        b.outcome = 'accepted';
        b.status = outcome.status;
        b.ids = extractMessageIds(outcome.body, b.sendNumbers);
        this.#result.accepted += count;
        this.#done += count;
        this.#consecutiveFailures = 0;
        this.#cfg.window.succeeded();
        return 'accepted';
      case 'rejected':
        b.status = outcome.status;
        b.error = outcome.message;
        if (outcome.status < 400 || isWrongAddress(outcome.status)) {
          // A redirect, or no endpoint at the URL msgr built, is no verdict on the rows (the API
          // did not process them), and every batch would get the same: the run stops with them
          // unsent, as on a setting to fix (the base URL).
          b.outcome = 'not-sent';
          b.error = `HTTP ${outcome.status}: ${outcome.message}`;
          this.#failure(b.error, outcome.status < 400 ? REDIRECT_HINT : undefined);
          this.#result.wrongAddress ??= outcome.status;
          this.stop('config');
          return 'not-sent';
        }
        this.#consecutiveFailures = 0;
        if (outcome.status === 409) {
          // Idempotency-Key still being processed from an earlier attempt: not a verdict.
          this.markInDoubt(b, `HTTP 409: ${outcome.message}`);
          return 'in-doubt';
        }
        if (outcome.status === 422 && b.resentSmaller === true) {
          // The key with another body (draft-ietf-httpapi-idempotency-key-header): the first,
          // larger request reached the API, so these rows may have had it; not a verdict on them.
          this.markInDoubt(b, `HTTP 422 to a resend without the numbers that opted out since: the API holds this Idempotency-Key with the first request, which reached it; whether it was accepted, the receipts say (msgr runs show)`);
          return 'in-doubt';
        }
        b.outcome = 'rejected';
        this.#result.rejected += count;
        this.#failed += count;
        this.#done += count;
        return 'rejected';
      case 'auth':
        b.outcome = 'not-sent';
        b.status = outcome.status;
        b.error = `HTTP ${outcome.status}: ${outcome.message}`;
        this.#result.authStatus = outcome.status;
        this.#result.authMessage = outcome.message;
        this.stop('auth');
        return 'auth';
      case 'not-sent':
        b.outcome = 'not-sent';
        b.status = outcome.status;
        b.error = outcome.message;
        // A refusal that only a fix can change (a proxy's credentials or policy): no later batch
        // would fare better, so the run stops now rather than after five of them. Nor would one
        // after a connection that was never made (or a TLS handshake that failed): the client
        // has tried again already, and all batches go the same way. Nothing left, so nothing of
        // it is in doubt (docs/contract.md: "Exit codes"). Said before the count of failures in a
        // row, which batches in flight as the API went away may have filled.
        if (outcome.config === true) this.stop('config');
        else if (outcome.code !== undefined && outcome.status === undefined) this.stop('unreachable');
        this.#failure(outcome.status !== undefined ? `HTTP ${outcome.status}: ${outcome.message}` : outcome.message, outcome.hint);
        return 'not-sent';
      case 'unknown':
        b.status = outcome.status;
        this.markInDoubt(b, outcome.status !== undefined ? `HTTP ${outcome.status}: ${outcome.message}` : outcome.message);
        this.#failure(b.error ?? outcome.message);
        return 'in-doubt';
    }
  }

  /** The batch's "send" line could not be written: it stays unsent and the run stops. */
  notWritten(b: Batch, err: unknown, inFlight: number): void {
    const first = this.#stopped === undefined;
    if (err instanceof DiskFullError) {
      this.#result.fullFolder ??= err.folder;
      this.stop('disk-full');
      b.error = 'not sent: the disk is full';
    } else {
      this.#result.journalError ??= err instanceof Error ? err.message : String(err);
      this.stop('journal');
      b.error = 'not sent: the journal could not be written';
    }
    if (!this.#stillInDoubt(b, b.error)) b.outcome = 'not-sent';
    if (first) {
      this.#cfg.progress.log(`${err instanceof DiskFullError ? `no space left in ${err.folder}` : `the journal could not be written (${this.#result.journalError ?? ''})`}: sending no new batches${inFlight > 0 ? `, recording the answers of ${inFlight} in flight` : ''}`);
    }
  }

  /** The report found no room: the run stops as it would for the journal. */
  reportFull(folder: string): void {
    this.#result.fullFolder ??= folder;
    if (this.#stopped === undefined) this.#cfg.progress.log(`no space left in ${folder} for the report: sending no new batches`);
    this.stop('disk-full');
  }

  stop(reason: StopReason): void {
    if (this.#stopped === undefined) this.#stopped = reason;
    this.#stopRetries.abort();
  }

  /**
   * A batch whose send window is closed (--exit-when-closed): not sent, left to a resume; the
   * batches after it whose windows are open go on. The run ends 'window-closed', with the
   * earliest opening of those it left.
   */
  /** A batch whose window opens only after the deadline: not sent (deadline); the run goes on with the others. */
  tooLate(b: Batch): void {
    this.#tooLate = true;
    b.outcome = 'not-sent';
    b.error = 'not sent (deadline)';
  }

  #tooLate = false;

  windowClosed(b: Batch, opensAt: number): void {
    this.#result.opensAt = Math.min(this.#result.opensAt ?? opensAt, opensAt);
    b.outcome = 'not-sent';
    b.error = 'not sent yet: outside its send window';
  }

  stats(inFlight: number): ProgressStats {
    const paused = this.#cfg.gate.pausedFor;
    return { done: this.#done, total: this.#cfg.toSend, failed: this.#failed, inFlight, earlier: this.#earlier, note: paused > 0 ? `paused ${formatDuration(paused / 1000)} (429)` : undefined };
  }

  #failure(text: string, hint?: string): void {
    this.#result.lastFailure = text;
    this.#result.lastHint = hint;
    this.#consecutiveFailures++;
    if (this.#consecutiveFailures >= MAX_CONSECUTIVE_FAILURES) this.stop('failing');
  }
}
