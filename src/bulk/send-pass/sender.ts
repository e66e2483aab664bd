// src/bulk/send-pass/: the send pass. sender.ts (this file) sends the batches batches.ts reads
// from the spool (the rows a batch holds open kept off the heap by row-ring.ts), through
// campaign-clients.ts's HTTP clients, at the pace limiter.ts allows; accounting.ts says what each
// answer counts as (message ids read by src/http/message-ids.ts); opt-outs.ts leaves out numbers
// that went on a list since the run started; progress.ts shows it; samples.ts sends --sample-to's
// messages, a run of their own. It imports preflight/, compose/, report/, input/ and journal/.
//
// The send pass of a bulk run: takes the batches as bulk/send-pass/batches.ts reads them from the
// spool, sends them with as many in flight as the window allows, journals each batch before and after
// its request, and writes the report in input order. What each answer counts as, and when the
// run stops or slows down, is bulk/send-pass/accounting.ts. Its rules, each covered by
// test/unit/bulk/send-pass/sender.test.ts:
// - no request leaves before its batch's "send" line is on disk; the lines are written ahead of
//   the window, so the flush overlaps the requests in flight (AHEAD_RECIPIENTS);
// - report lines come out in input order, whatever order the answers come in;
// - a stop (Ctrl-C, SIGTERM, SIGHUP, a full disk) sends no new batch, drops retries not yet
//   started, closes the batches journaled ahead as not sent, and waits for the answers in
//   flight: a local cause never leaves a batch in doubt;
// - the journal names each batch's numbers before it leaves and keeps the message ids that come
//   back, so an earlier run's rows keep their ids in a resumed run's report.
// Why: docs/campaigns.md: "Sending"; docs/files.md: "Nothing lost, nothing sent twice"; docs/unattended.md: "Stopping".
import { dirname } from 'node:path';
import type { MessagesClient } from '../../http/client.js';
import type { Outcome } from '../../http/outcome.js';
import { quitAtOnce, stopName } from '../../output/ui.js';
import { BatchAccounting, type SendResult } from './accounting.js';
import { readBatches, type Batch } from './batches.js';
import { DiskFullError, isNoSpace, type Journal } from '../journal/writer.js';
import { BatchState, isAnswered, isInDoubt, type DoneRecord } from '../journal/records.js';
import type { Gate, RateLimiter, Window } from './limiter.js';
import type { Progress } from './progress.js';
import { ReportOrder, type SenderReport } from '../report/order.js';
import type { SpoolSource } from '../preflight/spool.js';
import { leaveOutOfBatch, type AddedSinceStart } from './opt-outs.js';
import { idempotencyKey } from '../journal/run-keys.js';
import { messageKeyOf, type WaitResult } from '../../schedule/index.js';

/**
 * Batches are journaled ahead of the window, so a batch that gets a slot finds its "send" line
 * on disk already: as many batches as hold this many recipients together, and at least one. With
 * a message per row (a recipient a batch, a request every ~0.1 ms at 16 in flight) that covers
 * ~25 ms of requests. At 64, on a busy machine, 2 % of the batches got their slot before their
 * flush was done and waited 2.5 ms on average, with fewer requests in flight. 256, not 64: 100,000 rows, a message each,
 * Node 26, against msgr sandbox on a busy 2-core machine, three interleaved rounds: 64 took
 * 12.0-13.1 s and 10.8-11.7 s of CPU, 128 10.5-11.3 s and 10.1-10.7 s, 256 9.4-9.7 s and
 * 9.2-9.6 s, the bare undici Pool 7.3-9.2 s (docs/performance-history.md: "Personalised
 * messages"). Without an "out" line they were never sent: a kill -9 leaves them to the resume;
 * only a power cut leaves them in doubt, with those in flight (docs/files.md: "Nothing lost,
 * nothing sent twice"), so this is also how many recipients a power cut can leave in doubt.
 */
export const AHEAD_RECIPIENTS = 256;
/**
 * The "send" lines journaled ahead are committed (written and flushed) in groups of this many
 * recipients, or sooner when a batch needs its line (Journal.need): a flush per group, not per
 * turn of the event loop (docs/performance-history.md: "Personalised messages").
 */
const COMMIT_RECIPIENTS = AHEAD_RECIPIENTS / 2;

/** What the sender needs of the journal: a durable record before a request leaves, a mark as it leaves, one after. */
export type SenderJournal = Pick<Journal, 'startedDurably' | 'need' | 'leaving' | 'leavingAll' | 'waiting' | 'answered' | 'atEndOfTurn'>;

/** The pieces a sender is built from. */
export interface SenderParts {
  /**
   * What the Idempotency-Keys are made from, with the batch number (bulk/journal/run-keys.ts idempotencyKey):
   * the run id, or a keyed run's name (--once: bulk/journal/records.ts OnceRecord).
   */
  readonly idempotency: string;
  readonly journal: SenderJournal;
  /** Each batch's state in an earlier run of this journal (--resume); undefined for a new run. */
  readonly states: Uint8Array | undefined;
  /** The request body around the recipients (bulk/compose/base-request.ts, requestFrame). */
  readonly frame: { readonly prefix: string; readonly suffix: string };
  /**
   * When rows have messages of their own (bulk/compose/personalise.ts): the body around the recipients
   * of one message, from its key. The spool then carries each row's key, and rows are grouped
   * by it (bulk/compose/grouping.ts) exactly as the preflight grouped them.
   */
  readonly frameOf?: ((key: string) => { readonly prefix: string; readonly suffix: string }) | undefined;
  readonly batchSize: number;
  /** Recipients the preflight found to send: what the counts add up to. */
  readonly toSend: number;
  /** Numbers with duplicate rows (the preflight's), for the report's "same number as line N". */
  readonly duplicateKeys?: readonly number[] | undefined;
  /** Send batches an earlier run left in doubt again (--resend-in-doubt). */
  readonly resendInDoubt: boolean;
  /** Requests in flight; halves when the server throttles. */
  readonly window: Window;
  /** --rate; undefined: as fast as the window allows. */
  readonly limiter: RateLimiter | undefined;
  /** Holds every batch while the server asked for a pause (Retry-After). */
  readonly gate: Gate;
  readonly report: SenderReport | undefined;
  readonly progress: Progress;
  readonly client: MessagesClient;
  /** Ctrl-C: no new batch starts; those in flight finish. */
  readonly signal: AbortSignal;
  /** --verbose lines. */
  readonly debug: (line: string) => void;
  /** The outcome records of batches an earlier run of this journal finished (for the report). */
  readonly earlier?: ReadonlyMap<number, Pick<DoneRecord, 'status' | 'error' | 'ids'>> | undefined;
  /**
   * A resume: numbers that went on the --exclude list or into the opt-out store since the run
   * started, left out of the batches never sent (bulk/send-pass/opt-outs.ts).
   */
  readonly addedSinceStart?: AddedSinceStart | undefined;
  /** A resume: the numbers of each batch an earlier resume left recipients out of, as journaled. */
  readonly journaledNumbers?: ReadonlyMap<number, readonly string[]> | undefined;
  /** A resume: per batch, how many of those left out were opted out, as journaled. */
  readonly optedOut?: Uint32Array | undefined;
  /**
   * --limit: the recipients this command sends at most. Batches leave while they fit in it; the
   * first that does not is closed as not sent, as a stop closes it, never split: its
   * Idempotency-Key must carry the same recipients when a resume sends it (docs/cost-and-canary.md).
   */
  readonly limit?: number | undefined;
  /**
   * Send windows and deadlines (src/schedule/): when a batch (by its grouping key) may leave;
   * undefined: any time. `zoned`: rows are grouped by their zones (the spool carries the key).
   */
  readonly schedule?: ((key: string | undefined) => Promise<WaitResult>) | undefined;
  readonly zoned?: boolean | undefined;
}

/** A batch whose "send" line is written or being flushed: `written` settles with undefined or the error. */
interface Ahead {
  readonly b: Batch;
  readonly key: string;
  written: Promise<unknown>;
  /** `written` has settled. */
  settled: boolean;
}

/** A batch that got its slot in this turn, and the ends of the promise #depart gave for it. */
interface Departure {
  readonly a: Ahead;
  readonly resolve: (sent?: Promise<void>) => void;
  readonly reject: (err: unknown) => void;
}

export type { SenderReport } from '../report/order.js';

export class Sender {
  readonly #cfg: SenderParts;
  readonly #books: BatchAccounting;
  readonly #window: Window;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #report: SenderReport | undefined;
  /** Report lines in input order, whatever order batches are answered in. */
  readonly #rows: ReportOrder | undefined;
  #reportFull = false;
  readonly #progress: Progress;
  #warmedUp = false;
  /** Batches journaled ahead of the window, in order. */
  readonly #ahead: Ahead[] = [];
  /** Recipients of the batches in #ahead and of the one being dispatched. */
  #aheadRecipients = 0;
  #dispatching = false;
  #dispatched: Promise<void> = Promise.resolve();
  #wakeReader: (() => void) | undefined;
  /** --limit: recipients this command may still send; -1 once a batch did not fit. */
  #limitLeft: number | undefined;
  /** Batches leaving at the end of this turn of the event loop (#leave), each with its promise's ends. */
  #departing: Departure[] = [];

  /** Batches an earlier run of this journal left in doubt, until this run has their answer. */
  readonly #earlierInDoubt = new Set<number>();

  constructor(parts: SenderParts) {
    this.#cfg = parts;
    this.#limitLeft = parts.limit;
    parts.states?.forEach((st, b) => {
      if (isInDoubt(st)) this.#earlierInDoubt.add(b);
    });
    this.#window = parts.window;
    this.#report = parts.report;
    this.#rows = parts.report !== undefined ? new ReportOrder(parts.report) : undefined;
    this.#progress = parts.progress;
    this.#books = new BatchAccounting({
      idempotency: parts.idempotency,
      toSend: parts.toSend,
      states: parts.states,
      optedOut: parts.optedOut,
      resendInDoubt: parts.resendInDoubt,
      earlier: parts.earlier,
      window: parts.window,
      limiter: parts.limiter,
      gate: parts.gate,
      progress: parts.progress,
      debug: parts.debug,
    });
  }

  /** The client is about to wait before retrying: 429/503 slow the whole run down. */
  onRetry(info: { attempt: number; delayMs: number; reason: string; status?: number }): void {
    this.#books.onRetry(info);
  }

  result(): SendResult {
    return this.#books.result();
  }

  /**
   * Whether quitting now leaves batches in doubt beyond those whose requests are out (the
   * journal tells those): one counted in doubt, or one an earlier run left in doubt that has no
   * answer in this run yet.
   */
  leavesInDoubt(): boolean {
    return this.#books.inDoubt > 0 || this.#earlierInDoubt.size > 0;
  }

  /** Sends every batch of the spool (those an earlier run finished are counted, not sent). */
  async sendAll(spool: SpoolSource): Promise<void> {
    const { signal } = this.#cfg;
    const withReport = this.#report !== undefined;
    const onAbort = (): void => {
      if (this.#books.stopped === undefined) {
        this.#books.stop('interrupted');
        // Batches about to leave at the end of this turn will not: they are closed as not sent.
        const n = this.#inFlight.size - this.#departing.length;
        this.#progress.log(`${stopName(signal.reason)}: sending no new batches${n > 0 ? `, waiting for ${n} in flight` : ''}; ${quitAtOnce(signal.reason)} (the journal stays consistent)`);
      }
    };
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();

    const { states, resendInDoubt } = this.#cfg;
    // After a stop, the batches an earlier run left in doubt are still read, to be counted as in
    // doubt rather than not sent (a resend of theirs never left): a stop that leaves them is a
    // partial run, exit 7 (summary.ts summaryError; docs/contract.md: "Exit codes"), wherever they are.
    // A --limit stop reads them too: the rows left are counted as not sent, for the summary.
    const readAfterStop = withReport || this.#earlierInDoubt.size > 0 || this.#cfg.limit !== undefined;
    const queue: Batch[] = [];
    await readBatches({
      spool,
      batchSize: this.#cfg.batchSize,
      grouped: this.#cfg.frameOf !== undefined || this.#cfg.zoned === true,
      withReport,
      duplicateKeys: this.#cfg.duplicateKeys,
      sendable: (batch) => {
        const st = states?.[batch] ?? BatchState.none;
        if (isAnswered(st)) return false;
        return resendInDoubt || !isInDoubt(st);
      },
      onBatch: (b) => void queue.push(b),
      onRows: (b) => this.#complete(b),
      onRow: (seq, row) => this.#rows?.rowDone(seq, row),
      afterChunk: async () => {
        await this.#pump(queue);
        // With a report, the rest of the rows are read all the same: each gets its line (and see
        // readAfterStop).
        return this.#books.stopped === undefined || readAfterStop;
      },
    });
    await this.#pump(queue);
    await this.#dispatched;
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
    if (this.#limitLeft === -1) this.#books.stop('limit');
    signal.removeEventListener('abort', onAbort);
    this.#progress.update(this.#books.stats(this.#inFlight.size));
  }

  /** Settles the batches not to be sent, and journals the others ahead of the window. */
  async #pump(queue: Batch[]): Promise<void> {
    while (queue.length > 0) {
      const b = queue.shift() as Batch;
      const state = this.#cfg.states?.[b.index] ?? BatchState.none;
      const left = leaveOutOfBatch(b, state, this.#cfg.addedSinceStart, this.#cfg.journaledNumbers?.get(b.index), this.#cfg.optedOut?.[b.index], this.#cfg.resendInDoubt);
      if (left.excluded + left.optedOut > 0) this.#books.leftOut(left);
      if (this.#cfg.resendInDoubt && isInDoubt(state) && (b.excluded ?? 0) > 0) b.resentSmaller = true;
      if (this.#books.settledBefore(b)) {
        this.#complete(b);
        continue;
      }
      // At the --limit the batches journaled ahead still leave (a stop would close them): the
      // rest are closed as not sent, and the run stops once the last answer is in (sendAll).
      if (this.#limitLeft !== undefined && b.count > this.#limitLeft) this.#limitLeft = -1;
      if (this.#books.stopped === undefined && this.#limitLeft === -1) {
        this.#books.notSent(b, 'limit');
        this.#complete(b);
        continue;
      }
      if (this.#books.stopped !== undefined) {
        this.#books.notSent(b);
        this.#complete(b);
        continue;
      }
      if (b.count === 0) {
        // Every recipient of it went on a list since the run started: nothing to send.
        b.outcome = 'excluded';
        this.#cfg.journal.answered({ batch: b.index, outcome: 'excluded', excluded: left.excluded + left.optedOut, ...(left.optedOut > 0 ? { optedOut: left.optedOut } : {}) });
        this.#complete(b);
        continue;
      }
      while (this.#aheadRecipients > 0 && this.#aheadRecipients + b.count > AHEAD_RECIPIENTS) await this.#roomAhead();
      if (this.#limitLeft !== undefined) this.#limitLeft -= b.count;
      this.#journalAhead(b);
    }
  }

  /**
   * Its "send" line goes to the journal now, while earlier batches wait for a slot or are in
   * flight: by the time a slot frees, the line is on disk and the batch leaves at once.
   */
  #journalAhead(b: Batch): void {
    const key = idempotencyKey(this.#cfg.idempotency, b.index);
    const rec = { batch: b.index, first: b.first, count: b.count, key, lines: b.sendLines, numbers: b.sendNumbers, messages: b.sendMessages.length > 0 ? b.sendMessages : undefined, excluded: b.excluded !== undefined && b.excluded > 0 ? b.excluded : undefined, optedOut: b.optedOut !== undefined && b.optedOut > 0 ? b.optedOut : undefined };
    const ahead: Ahead = { b, key, written: Promise.resolve(), settled: false };
    ahead.written = this.#cfg.journal.startedDurably(rec, COMMIT_RECIPIENTS).then(
      () => {
        ahead.settled = true;
        return undefined;
      },
      (err: unknown) => {
        ahead.settled = true;
        return err ?? new Error('the journal could not be written');
      },
    );
    this.#ahead.push(ahead);
    this.#aheadRecipients += b.count;
    if (!this.#dispatching) {
      this.#dispatching = true;
      this.#dispatched = this.#dispatch();
    }
  }

  /** Resolves once a batch journaled ahead has been taken (or the dispatch ended). */
  #roomAhead(): Promise<void> {
    if (!this.#dispatching) return this.#dispatched;
    return new Promise((resolve) => {
      this.#wakeReader = resolve;
    });
  }

  /** Takes the batches journaled ahead in order. */
  async #dispatch(): Promise<void> {
    try {
      while (this.#ahead.length > 0) {
        const next = this.#ahead.shift() as Ahead;
        await this.#dispatchOne(next);
        // Counted until it left (or was closed): a batch bigger than the allowance is the only
        // one journaled ahead, as memory for the big batches of one shared text stays as it was.
        this.#aheadRecipients -= next.b.count;
        this.#wake();
      }
    } finally {
      this.#dispatching = false;
      this.#wake();
    }
  }

  #wake(): void {
    const wake = this.#wakeReader;
    this.#wakeReader = undefined;
    wake?.();
  }

  /** One batch: a slot, the gate, the rate, its line on disk; then it leaves (#depart). */
  async #dispatchOne(ahead: Ahead): Promise<void> {
    const { b, written } = ahead;
    const { signal } = this.#cfg;
    let slot = false;
    /** --exit-when-closed: its window is closed; when it opens. */
    let closedUntil: number | undefined;
    /** Its window opens only after the deadline. */
    let tooLate = false;
    if (this.#books.stopped === undefined && (await this.#window.acquire(signal))) {
      slot = true;
      await this.#cfg.gate.wait(signal);
      await this.#cfg.limiter?.take(b.count, signal);
      await this.#cfg.gate.wait(signal);
      // Last, with its slot: a batch leaves only while its window is open, and before the deadline.
      const when = await this.#cfg.schedule?.(b.key);
      if (when?.state === 'closed') closedUntil = when.opensAt;
      else if (when?.state === 'too-late') tooLate = true;
      else if (when?.state === 'deadline') {
        // Those that got their go in this turn leave first: the stop is for the batches after them.
        await Promise.all([...this.#inFlight]);
        this.#books.stop('deadline');
      }
    }
    if (!ahead.settled) this.#cfg.journal.need(b.index);
    const err = await written;
    if (err !== undefined) {
      // Not written, so not sent, and nothing after it is: a local cause, never doubt.
      this.#stayed(b, slot, () => this.#books.notWritten(b, err, this.#inFlight.size));
      return;
    }
    if (tooLate && this.#books.stopped === undefined) {
      this.#stayed(b, slot, () => {
        this.#books.tooLate(b);
        this.#cfg.journal.answered({ batch: b.index, outcome: 'not-sent', error: b.error });
      });
      return;
    }
    if (closedUntil !== undefined && this.#books.stopped === undefined) {
      // Its window is closed (--exit-when-closed): left to a resume; the next ones may be open.
      const opensAt = closedUntil;
      this.#stayed(b, slot, () => {
        this.#books.windowClosed(b, opensAt);
        this.#cfg.journal.answered({ batch: b.index, outcome: 'not-sent', error: b.error });
      });
      return;
    }
    if (!slot || this.#books.stopped !== undefined) {
      // On disk but it never left: closed as not sent, so a resume sends it.
      this.#stayed(b, slot, () => {
        this.#books.notSent(b);
        this.#cfg.journal.answered({ batch: b.index, outcome: 'not-sent', error: b.error });
      });
      return;
    }
    const sent = this.#depart(ahead);
    if (this.#cfg.limiter !== undefined && !this.#warmedUp) {
      // The first request pays for the connection and cold code paths and reaches the server
      // late; batches scheduled meanwhile would arrive bunched behind it. Under --rate, let it
      // finish and start the schedule from there.
      this.#warmedUp = true;
      await sent;
      this.#cfg.limiter.restart();
    }
  }

  /**
   * The batch leaves at the end of this turn of the event loop, with the others that got a slot
   * in it: their "out" lines in one write (#leave). Counted in flight from now, so the run waits
   * for it; settles when its answer is recorded (or it stayed).
   */
  #depart(a: Ahead): Promise<void> {
    const p: Promise<void> = new Promise<void>((resolve, reject) => {
      this.#departing.push({ a, resolve, reject });
    }).finally(() => {
      this.#inFlight.delete(p);
    });
    this.#inFlight.add(p);
    if (this.#departing.length === 1) this.#cfg.journal.atEndOfTurn(() => this.#leave());
    return p;
  }

  /**
   * The batches of this turn leave. It runs from the journal's end of turn, so what goes wrong
   * here (a report that cannot be written) rejects their promises, and so the run, as it would
   * anywhere else in the send pass; it must not escape into the event loop.
   */
  #leave(): void {
    const group = this.#departing;
    this.#departing = [];
    try {
      this.#leaveNow(group);
    } catch (err) {
      for (const { reject } of group) reject(err);
    }
  }

  /** Their "out" lines first, or none of them leaves. */
  #leaveNow(group: readonly Departure[]): void {
    if (this.#books.stopped !== undefined) {
      // A stop came within the turn: on disk, but they never left; closed as not sent.
      for (const { a, resolve } of group) {
        this.#stayed(a.b, true, () => {
          this.#books.notSent(a.b);
          this.#cfg.journal.answered({ batch: a.b.index, outcome: 'not-sent', error: a.b.error });
        });
        resolve();
      }
      return;
    }
    try {
      // Their "out" lines first: without one, a resume after a kill -9 takes the batch as never sent.
      this.#cfg.journal.leavingAll(group.map(({ a }) => a.b.index));
    } catch (leaving) {
      for (const { a, resolve } of group) {
        this.#stayed(a.b, true, () => {
          this.#books.notWritten(a.b, leaving, this.#inFlight.size - group.length);
          // Its "send" line is on disk: closed as not sent, or after a reboot it would be in doubt.
          // A full disk leaves room for answers (the reserve); another failure could not write it.
          if (leaving instanceof DiskFullError) this.#cfg.journal.answered({ batch: a.b.index, outcome: 'not-sent', error: a.b.error });
        });
        resolve();
      }
      return;
    }
    for (const { a, resolve } of group) resolve(this.#send(a.b, a.key));
  }

  /** A batch that does not leave: its slot given back, its books settled (`settle`), the run goes on. */
  #stayed(b: Batch, slot: boolean, settle: () => void): void {
    if (slot) this.#window.release();
    settle();
    this.#complete(b);
    this.#progress.update(this.#books.stats(this.#inFlight.size));
  }

  /** Sends a batch whose "send" line is on disk, and records its answer. */
  async #send(b: Batch, key: string): Promise<void> {
    const frame = b.key !== undefined && this.#cfg.frameOf !== undefined ? this.#cfg.frameOf(messageKeyOf(b.key)) : this.#cfg.frame;
    const body = frame.prefix + b.entries.join(',') + frame.suffix;
    b.entries = [];
    let outcome: Outcome;
    try {
      const journal = this.#cfg.journal;
      outcome = await this.#cfg.client.sendRaw(body, {
        idempotencyKey: key,
        stopRetries: this.#books.stopRetries,
        // A retry's wait and its next attempt are journaled as its first attempt is (#dispatchOne).
        onRetryWait: () => journal.waiting(b.index),
        beforeRetry: () => journal.leaving(b.index),
      });
    } catch (err) {
      outcome = { kind: 'unknown', message: err instanceof Error ? err.message : String(err), attempts: 1 };
    }
    const journaled = this.#books.answered(b, outcome);
    if (journaled === 'accepted' || journaled === 'rejected') this.#earlierInDoubt.delete(b.index);
    this.#cfg.journal.answered({
      batch: b.index,
      outcome: journaled,
      // Plain properties, undefined when absent (the record leaves them out): a spread of a
      // conditional object cost the client's exchange() ~4 µs a request (docs/performance.md).
      status: b.status,
      error: b.error?.slice(0, 500),
      ids: b.ids !== undefined && b.ids.some((id) => id !== undefined) ? b.ids.map((id) => id ?? null) : undefined,
    });
    this.#window.release();
    this.#complete(b);
    this.#progress.update(this.#books.stats(this.#inFlight.size));
  }

  /**
   * Report lines go out in input order: a finished batch waits for the ones before it. A report
   * that finds no room stops the run like the journal would; the journal still has every
   * outcome, so the lines the report lacks are only the report's loss.
   */
  #complete(b: Batch): void {
    if (this.#rows === undefined || this.#report === undefined || this.#reportFull) return;
    try {
      this.#rows.complete(b);
    } catch (err) {
      if (!isNoSpace(err)) throw err;
      this.#reportFull = true;
      this.#books.reportFull(this.#report.path !== undefined ? dirname(this.#report.path) : 'the report\'s folder');
    }
  }
}
