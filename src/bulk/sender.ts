// The send pass of a bulk run: reads the spool in row order, groups the rows to send into
// batches, sends them with as many in flight as the window allows, journals each batch before and
// after its request, and writes the report in input order. Its rules, each covered by
// test/unit/bulk/sender.test.ts:
// - a 429 or 503 slows the whole run (a pause for every batch, a smaller window, a lower rate);
// - five batches in a row without an answer (in doubt or not sent) stop the run;
// - a 409 (the Idempotency-Key is still being processed) counts as in doubt, not rejected;
// - a batch an earlier run finished is never sent again; one in doubt only with --resend-in-doubt;
// - report lines come out in input order, whatever order the answers come in;
// - a stop (Ctrl-C, SIGTERM, SIGHUP, a full disk) sends no new batch, drops retries not yet
//   started, and waits for the answers in flight: a local cause never leaves a batch in doubt;
// - the journal names each batch's numbers before it leaves and keeps the message ids that come
//   back, so an earlier run's rows keep their ids in a resumed run's report.
// Why: docs/bulk.md: Sending, Nothing lost, nothing sent twice, and Stopping.
import { dirname } from 'node:path';
import type { MessagesClient } from '../http/client.js';
import type { Outcome } from '../http/outcome.js';
import { stopName } from '../output/ui.js';
import { Grouper } from './grouping.js';
import { BatchState, DiskFullError, isNoSpace, type BatchOutcome, type DoneRecord, type Journal } from './journal.js';
import type { Gate, RateLimiter, Window } from './limiter.js';
import { extractMessageIds } from './message-ids.js';
import { formatDuration, type Progress, type ProgressStats } from './progress.js';
import type { RowOutcome } from './report.js';
import { alreadySentRow, ReportOrder, type ReportRows, type SenderReport } from './report-order.js';
import type { SpoolSource } from './spool.js';
import { idempotencyKey } from './state.js';

/** Consecutive batches that failed without an answer (in doubt or not sent) before the run stops. */
export const MAX_CONSECUTIVE_FAILURES = 5;
/**
 * Batches are journaled ahead of the window, so a batch that gets a slot finds its "send" line
 * on disk already: as many batches as the window holds, or as make up this many recipients when
 * batches are smaller. A kill -9 leaves them in doubt with those in flight (docs/bulk.md).
 */
export const AHEAD_RECIPIENTS = 64;
/** Requests in flight unless --concurrency says otherwise. */
export const DEFAULT_CONCURRENCY = 4;

/** disk-full: a journal line (or the report) found no room; journal: it could not be written. */
export type StopReason = 'interrupted' | 'auth' | 'config' | 'failing' | 'disk-full' | 'journal';

/** What the sender needs of the journal: a record before a request leaves, one after. */
export type SenderJournal = Pick<Journal, 'startedDurably' | 'answered'>;

/** The pieces a sender is built from. */
export interface SenderParts {
  /** Names the Idempotency-Keys (with the batch number). */
  readonly runId: string;
  readonly journal: SenderJournal;
  /** Each batch's state in an earlier run of this journal (--resume); undefined for a new run. */
  readonly states: Uint8Array | undefined;
  /** The request body around the recipients (bulk/message.ts, requestFrame). */
  readonly frame: { readonly prefix: string; readonly suffix: string };
  /**
   * When rows have messages of their own (bulk/personalise.ts): the body around the recipients
   * of one message, from its key. The spool then carries each row's key, and rows are grouped
   * by it (bulk/grouping.ts) exactly as the preflight grouped them.
   */
  readonly frameOf?: ((key: string) => { readonly prefix: string; readonly suffix: string }) | undefined;
  readonly batchSize: number;
  /** Recipients the preflight found to send: what the counts add up to. */
  readonly toSend: number;
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
  /** Send nothing: report each row as the journal has it (`msgr runs report`). */
  readonly reportOnly?: boolean | undefined;
}

interface Batch {
  readonly seq: number;
  /** The batch number (journal, Idempotency-Key); -1 for a segment with no recipients. */
  readonly index: number;
  readonly first: number;
  readonly firstLine: number;
  /** Recipient JSON; left empty for a batch an earlier run finished (it is not sent). */
  entries: string[];
  count: number;
  /** The recipients' input lines and numbers, for the journal. */
  readonly sendLines: number[];
  readonly sendNumbers: string[];
  readonly rows: ReportRows | undefined;
  /** Grouped runs: the message's key, and each recipient's position among all rows (report order). */
  readonly key?: string;
  readonly seqs?: number[];
  outcome?: RowOutcome;
  status?: number | undefined;
  error?: string | undefined;
  ids?: Array<string | undefined>;
}

/** A batch whose "send" line is written or being flushed: `written` settles with undefined or the error. */
interface Ahead {
  readonly b: Batch;
  readonly key: string;
  readonly written: Promise<unknown>;
}

export type { SenderReport } from './report-order.js';

export interface SendResult {
  accepted: number;
  acceptedEarlier: number;
  rejected: number;
  inDoubt: number;
  notSent: number;
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
  throttled: number;
}

class StopReading extends Error {}

export class Sender {
  readonly #cfg: SenderParts;
  readonly #gate: Gate;
  readonly #window: Window;
  readonly #limiter: RateLimiter | undefined;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #report: SenderReport | undefined;
  /** Report lines in input order, whatever order batches are answered in. */
  readonly #rows: ReportOrder | undefined;
  readonly #progress: Progress;
  #stopped: StopReason | undefined;
  #consecutiveFailures = 0;
  #done = 0;
  /** Of #done, settled by an earlier run of this journal: not part of this run's rate. */
  #earlier = 0;
  #failed = 0;
  #lastThrottleNote = 0;
  #warmedUp = false;
  /** Aborted when the run stops for any reason: retries not yet started are dropped. */
  readonly #stopRetries = new AbortController();
  readonly #result: SendResult = { accepted: 0, acceptedEarlier: 0, rejected: 0, inDoubt: 0, notSent: 0, inDoubtBatches: [], stopped: undefined, throttled: 0 };

  constructor(parts: SenderParts) {
    this.#cfg = parts;
    this.#gate = parts.gate;
    this.#window = parts.window;
    this.#limiter = parts.limiter;
    this.#report = parts.report;
    this.#rows = parts.report !== undefined ? new ReportOrder(parts.report) : undefined;
    this.#progress = parts.progress;
    this.#aheadMax = Math.max(parts.window.limit, Math.floor(AHEAD_RECIPIENTS / parts.batchSize));
  }

  /** The client is about to wait before retrying: 429/503 slow the whole run down. */
  onRetry(info: { attempt: number; delayMs: number; reason: string; status?: number }): void {
    this.#gate.pauseFor(info.delayMs);
    if (info.status === 429 || info.status === 503) {
      this.#result.throttled++;
      this.#window.throttled();
      this.#limiter?.slowDown(0.8);
      const now = performance.now();
      if (now - this.#lastThrottleNote > 5_000) {
        this.#lastThrottleNote = now;
        this.#progress.log(`the server asked to slow down (HTTP ${info.status}): pausing ${(info.delayMs / 1000).toFixed(1)} s, ${this.#window.limit} request${this.#window.limit === 1 ? '' : 's'} in flight from now on`);
      }
    } else {
      this.#cfg.debug(`retrying a batch in ${(info.delayMs / 1000).toFixed(1)} s (${info.reason})`);
    }
  }

  result(): SendResult {
    const r = this.#result;
    r.stopped = this.#stopped;
    r.notSent = this.#cfg.toSend - r.accepted - r.rejected - r.inDoubt;
    return r;
  }

  /** Sends every batch of the spool (those an earlier run finished are counted, not sent). */
  async sendAll(spool: SpoolSource): Promise<void> {
    const { batchSize, signal } = this.#cfg;
    const withReport = this.#report !== undefined;
    const queue: Batch[] = [];
    let seq = 0;
    let batchIndex = 0;
    let current: Batch | undefined;
    const newSegment = (first: number, line: number): Batch => ({
      seq: seq++,
      index: -1,
      first,
      firstLine: line,
      entries: [],
      count: 0,
      sendLines: [],
      sendNumbers: [],
      rows: withReport ? { lines: [], numbers: [], skips: [], errors: [] } : undefined,
    });
    const onAbort = (): void => {
      if (this.#stopped === undefined) {
        this.#stop('interrupted');
        const n = this.#inFlight.size;
        this.#progress.log(`${stopName(signal.reason)}: sending no new batches${n > 0 ? `, waiting for ${n} in flight` : ''}; Ctrl-C again to quit at once (the journal stays consistent)`);
      }
    };
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();

    const states = this.#cfg.states;
    const resendInDoubt = this.#cfg.resendInDoubt;
    const sendable = (batch: number): boolean => {
      const st = states?.[batch] ?? BatchState.none;
      if (st === BatchState.accepted || st === BatchState.rejected) return false;
      return resendInDoubt || (st !== BatchState.started && st !== BatchState.inDoubt);
    };
    const seal = (b: Batch): void => {
      (b as { index: number }).index = batchIndex++;
      queue.push(b);
    };
    if (this.#cfg.frameOf !== undefined) {
      await this.#readGrouped(spool, queue, sendable);
      signal.removeEventListener('abort', onAbort);
      this.#progress.update(this.#stats());
      return;
    }

    let index = 0;
    try {
      await spool(
        (kind, line, number, payload) => {
          current ??= newSegment(index, line);
          index++;
          if (kind === 'S') {
            // Batch `batchIndex` is the one being filled: an earlier run's batches are not sent.
            if (sendable(batchIndex)) {
              current.entries.push(payload);
              current.sendLines.push(line);
              current.sendNumbers.push(number);
            }
            current.count++;
            if (current.rows !== undefined) {
              current.rows.lines.push(line);
              current.rows.numbers.push(number);
              current.rows.skips.push(undefined);
              current.rows.errors.push(undefined);
            }
            if (current.count === batchSize) {
              seal(current);
              current = undefined;
            }
          } else if (current.rows !== undefined) {
            current.rows.lines.push(line);
            current.rows.numbers.push(number);
            current.rows.skips.push(kind === 'D' ? 'duplicate' : kind === 'X' ? 'excluded' : kind === 'A' ? 'already-sent' : 'invalid');
            current.rows.errors.push(kind === 'I' ? (JSON.parse(payload) as string) : kind === 'A' ? payload : undefined);
          }
        },
        async () => {
          await this.#pump(queue);
          if (this.#stopped !== undefined && !withReport) throw new StopReading();
        },
      );
    } catch (err) {
      if (!(err instanceof StopReading)) throw err;
    }
    if (current !== undefined) {
      if (current.count > 0) seal(current);
      else this.#complete(current);
    }
    await this.#pump(queue);
    await this.#drain();
    signal.removeEventListener('abort', onAbort);
    this.#progress.update(this.#stats());
  }

  /** The send pass when rows have messages of their own: batches as bulk/grouping.ts seals them. */
  async #readGrouped(spool: SpoolSource, queue: Batch[], sendable: (batch: number) => boolean): Promise<void> {
    const withReport = this.#report !== undefined;
    // Each row to send is grouped by its position (a number, nothing allocated per row); what the
    // batch needs of it waits in rings, since a row is sealed at most a window after it was read.
    let size = 0;
    let json: string[] = [];
    let lines = new Float64Array(0);
    let numbers: string[] = [];
    let seqs = new Float64Array(0);
    const grouper = new Grouper<number>(this.#cfg.batchSize, (sealed) => {
      const at = sealed.items.map((p) => p % size);
      queue.push({
        seq: -1,
        index: sealed.index,
        first: sealed.first,
        firstLine: lines[at[0] as number] as number,
        entries: sendable(sealed.index) ? at.map((i) => json[i] as string) : [],
        count: at.length,
        sendLines: sendable(sealed.index) ? at.map((i) => lines[i] as number) : [],
        sendNumbers: sendable(sealed.index) ? at.map((i) => numbers[i] as string) : [],
        rows: withReport ? { lines: at.map((i) => lines[i] as number), numbers: at.map((i) => numbers[i] as string), skips: at.map(() => undefined), errors: at.map(() => undefined) } : undefined,
        key: sealed.key,
        seqs: withReport ? at.map((i) => seqs[i] as number) : [],
      });
    });
    size = grouper.window + 2;
    json = new Array<string>(size).fill('');
    lines = new Float64Array(size);
    // Numbers always: the journal names each batch's numbers.
    numbers = new Array<string>(size).fill('');
    if (withReport) seqs = new Float64Array(size);
    let position = 0;
    let toSend = 0;
    try {
      await spool(
        (kind, line, number, payload) => {
          const seq = position++;
          if (kind === 'S') {
            const tab = payload.indexOf('\t');
            const p = toSend++;
            const i = p % size;
            json[i] = payload.slice(0, tab);
            lines[i] = line;
            numbers[i] = number;
            if (withReport) seqs[i] = seq;
            grouper.add(payload.slice(tab + 1), p);
          } else if (withReport) {
            this.#rows?.rowDone(seq, kind === 'A' ? alreadySentRow(line, number, payload) : { line, number, outcome: kind === 'D' ? 'duplicate' : kind === 'X' ? 'excluded' : 'invalid', error: kind === 'I' ? (JSON.parse(payload) as string) : undefined });
          }
        },
        async () => {
          await this.#pump(queue);
          if (this.#stopped !== undefined && !withReport) throw new StopReading();
        },
      );
    } catch (err) {
      if (!(err instanceof StopReading)) throw err;
    }
    grouper.finish();
    await this.#pump(queue);
    await this.#drain();
  }

  async #pump(queue: Batch[]): Promise<void> {
    while (queue.length > 0) {
      const b = queue.shift() as Batch;
      const state = this.#cfg.states?.[b.index] ?? BatchState.none;
      const count = b.count;
      if (state === BatchState.accepted || state === BatchState.rejected) {
        // Done by an earlier run of this journal: never sent again.
        b.outcome = state === BatchState.accepted ? 'accepted' : 'rejected';
        const earlier = this.#cfg.earlier?.get(b.index);
        b.ids = earlier?.ids?.map((id) => id ?? undefined);
        b.status = earlier?.status;
        // A report of the run itself (runs report) tells what happened; a resumed run, when.
        b.error = this.#cfg.reportOnly === true ? (state === BatchState.accepted ? undefined : earlier?.error) : 'in an earlier run';
        if (state === BatchState.accepted) {
          this.#result.accepted += count;
          this.#result.acceptedEarlier += count;
        } else {
          this.#result.rejected += count;
        }
        this.#done += count;
        this.#earlier += count;
        this.#complete(b);
        continue;
      }
      if ((state === BatchState.started || state === BatchState.inDoubt) && !this.#cfg.resendInDoubt) {
        this.#markInDoubt(b, this.#cfg.reportOnly === true ? `in doubt: sent, no answer${this.#cfg.earlier?.get(b.index)?.error !== undefined ? ` (${this.#cfg.earlier.get(b.index)?.error})` : ''}` : 'in doubt since an earlier run: not sent again without --resend-in-doubt');
        this.#earlier += count;
        this.#complete(b);
        continue;
      }
      if (this.#cfg.reportOnly === true) {
        b.outcome = 'not-sent';
        b.error = state === BatchState.none ? 'not sent yet' : 'not sent';
        this.#complete(b);
        continue;
      }
      if (this.#stopped !== undefined) {
        b.outcome = 'not-sent';
        b.error = this.#stopReasonText();
        this.#complete(b);
        continue;
      }
      // Its "send" line goes to the journal now, while earlier batches wait for a slot or are in
      // flight: by the time a slot frees, the line is on disk and the batch leaves at once.
      while (this.#ahead.length >= this.#aheadMax) await this.#roomAhead();
      this.#journalAhead(b);
    }
  }

  /** Batches whose "send" line is written (or being flushed) and that wait for a slot, in order. */
  readonly #ahead: Ahead[] = [];
  /** How many batches may be journaled ahead of the window (AHEAD_RECIPIENTS). */
  readonly #aheadMax: number;
  #dispatching = false;
  #dispatched: Promise<void> = Promise.resolve();
  #wakeReader: (() => void) | undefined;

  #journalAhead(b: Batch): void {
    const key = idempotencyKey(this.#cfg.runId, b.index);
    // On disk before the request leaves: a crash after this point leaves the batch in doubt.
    const written = this.#cfg.journal.startedDurably({ batch: b.index, first: b.first, count: b.count, key, lines: b.sendLines, numbers: b.sendNumbers }).then(
      () => undefined,
      (err: unknown) => err ?? new Error('the journal could not be written'),
    );
    this.#ahead.push({ b, key, written });
    if (!this.#dispatching) {
      this.#dispatching = true;
      this.#dispatched = this.#dispatch();
    }
  }

  /** Resolves when a batch journaled ahead has been taken (or the dispatch ended). */
  #roomAhead(): Promise<void> {
    if (!this.#dispatching) return this.#dispatched;
    return new Promise((resolve) => {
      this.#wakeReader = resolve;
    });
  }

  /** Everything journaled ahead is sent, or closed as not sent, and every answer is in. */
  async #drain(): Promise<void> {
    await this.#dispatched;
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }

  /** Takes the batches journaled ahead in order: each waits for a slot, the gate, the rate. */
  async #dispatch(): Promise<void> {
    try {
      while (this.#ahead.length > 0) {
        const next = this.#ahead.shift() as Ahead;
        const wake = this.#wakeReader;
        this.#wakeReader = undefined;
        wake?.();
        await this.#dispatchOne(next.b, next.key, next.written);
      }
    } finally {
      this.#dispatching = false;
      const wake = this.#wakeReader;
      this.#wakeReader = undefined;
      wake?.();
    }
  }

  async #dispatchOne(b: Batch, key: string, written: Promise<unknown>): Promise<void> {
    const { signal, client } = this.#cfg;
    let slot = false;
    if (this.#stopped === undefined && (await this.#window.acquire(signal))) {
      slot = true;
      await this.#gate.wait(signal);
      await this.#limiter?.take(b.count, signal);
      await this.#gate.wait(signal);
    }
    const err = await written;
    if (err !== undefined) {
      // Not written, so not sent, and nothing after it is: a local cause, never doubt.
      if (slot) this.#window.release();
      this.#notWritten(b, err);
      return;
    }
    if (!slot || this.#stopped !== undefined) {
      // Its line is on disk but it never left: closed as not sent, so a resume sends it.
      if (slot) this.#window.release();
      b.outcome = 'not-sent';
      b.error = this.#stopReasonText();
      this.#cfg.journal.answered({ batch: b.index, outcome: 'not-sent', error: b.error });
      this.#complete(b);
      return;
    }
    const p = this.#send(b, key, client).finally(() => {
      this.#inFlight.delete(p);
    });
    this.#inFlight.add(p);
    if (this.#limiter !== undefined && !this.#warmedUp) {
      // The first request pays for the connection and cold code paths and reaches the server
      // late; batches scheduled meanwhile would arrive bunched behind it. Under --rate, let it
      // finish and start the schedule from there.
      this.#warmedUp = true;
      await p;
      this.#limiter.restart();
    }
  }

  #stopReasonText(): string {
    switch (this.#stopped) {
      case 'interrupted':
        return 'interrupted before it was sent';
      case 'auth':
        return 'not sent: the API refused the key or the account';
      case 'config':
        return 'not sent: the run stopped on a setting to fix';
      case 'failing':
        return 'not sent: the run stopped after repeated failures';
      case 'disk-full':
        return 'not sent: the disk is full';
      case 'journal':
        return 'not sent: the journal could not be written';
      default:
        return 'not sent';
    }
  }

  #markInDoubt(b: Batch, error: string): void {
    b.outcome = 'in-doubt';
    b.error = error;
    const count = b.count;
    this.#result.inDoubt += count;
    this.#result.inDoubtBatches.push({ batch: b.index, idempotencyKey: idempotencyKey(this.#cfg.runId, b.index), firstLine: b.firstLine, recipients: count });
    this.#failed += count;
    this.#done += count;
  }

  async #send(b: Batch, key: string, client: MessagesClient): Promise<void> {
    const count = b.count;
    const frame = b.key !== undefined && this.#cfg.frameOf !== undefined ? this.#cfg.frameOf(b.key) : this.#cfg.frame;
    const body = frame.prefix + b.entries.join(',') + frame.suffix;
    b.entries = [];
    let outcome: Outcome;
    try {
      outcome = await client.sendRaw(body, { idempotencyKey: key, stopRetries: this.#stopRetries.signal });
    } catch (err) {
      outcome = { kind: 'unknown', message: err instanceof Error ? err.message : String(err), attempts: 1 };
    }
    let journaled: BatchOutcome;
    switch (outcome.kind) {
      case 'accepted':
        journaled = 'accepted';
        b.outcome = 'accepted';
        b.status = outcome.status;
        b.ids = extractMessageIds(outcome.body, b.sendNumbers);
        this.#result.accepted += count;
        this.#done += count;
        this.#consecutiveFailures = 0;
        this.#window.succeeded();
        break;
      case 'rejected':
        b.status = outcome.status;
        b.error = outcome.message;
        if (outcome.status === 409) {
          // Idempotency-Key still being processed from an earlier attempt: not a verdict.
          journaled = 'in-doubt';
          this.#markInDoubt(b, `HTTP 409: ${outcome.message}`);
        } else {
          journaled = 'rejected';
          b.outcome = 'rejected';
          this.#result.rejected += count;
          this.#failed += count;
          this.#done += count;
        }
        this.#consecutiveFailures = 0;
        break;
      case 'auth':
        journaled = 'auth';
        b.outcome = 'not-sent';
        b.status = outcome.status;
        b.error = `HTTP ${outcome.status}: ${outcome.message}`;
        this.#result.authStatus = outcome.status;
        this.#result.authMessage = outcome.message;
        this.#stop('auth');
        break;
      case 'not-sent':
        journaled = 'not-sent';
        b.outcome = 'not-sent';
        b.status = outcome.status;
        b.error = outcome.message;
        this.#failure(outcome.status !== undefined ? `HTTP ${outcome.status}: ${outcome.message}` : outcome.message, outcome.hint);
        // A refusal that only a fix can change (a proxy's credentials or policy): no later batch
        // would fare better, so the run stops now rather than after five of them.
        if (outcome.config === true) this.#stop('config');
        break;
      case 'unknown':
        journaled = 'in-doubt';
        b.status = outcome.status;
        this.#markInDoubt(b, outcome.status !== undefined ? `HTTP ${outcome.status}: ${outcome.message}` : outcome.message);
        this.#failure(b.error ?? outcome.message);
        break;
    }
    this.#cfg.journal.answered({
      batch: b.index,
      outcome: journaled,
      ...(b.status !== undefined ? { status: b.status } : {}),
      ...(b.error !== undefined ? { error: b.error.slice(0, 500) } : {}),
      ...(b.ids !== undefined && b.ids.some((id) => id !== undefined) ? { ids: b.ids.map((id) => id ?? null) } : {}),
    });
    this.#window.release();
    this.#complete(b);
    this.#progress.update(this.#stats());
  }

  /** The batch's "send" line could not be written: it stays unsent and the run stops. */
  #notWritten(b: Batch, err: unknown): void {
    const first = this.#stopped === undefined;
    if (err instanceof DiskFullError) {
      this.#result.fullFolder ??= err.folder;
      this.#stop('disk-full');
      b.error = 'not sent: the disk is full';
    } else {
      this.#result.journalError ??= err instanceof Error ? err.message : String(err);
      this.#stop('journal');
      b.error = 'not sent: the journal could not be written';
    }
    b.outcome = 'not-sent';
    if (first) {
      const n = this.#inFlight.size;
      this.#progress.log(`${err instanceof DiskFullError ? `no space left in ${err.folder}` : `the journal could not be written (${this.#result.journalError ?? ''})`}: sending no new batches${n > 0 ? `, recording the answers of ${n} in flight` : ''}`);
    }
    this.#complete(b);
    this.#progress.update(this.#stats());
  }

  #failure(text: string, hint?: string): void {
    this.#result.lastFailure = text;
    this.#result.lastHint = hint;
    this.#consecutiveFailures++;
    if (this.#consecutiveFailures >= MAX_CONSECUTIVE_FAILURES) this.#stop('failing');
  }

  #stop(reason: StopReason): void {
    if (this.#stopped === undefined) this.#stopped = reason;
    this.#stopRetries.abort();
  }

  #stats(): ProgressStats {
    const paused = this.#gate.pausedFor;
    return { done: this.#done, total: this.#cfg.toSend, failed: this.#failed, inFlight: this.#inFlight.size, earlier: this.#earlier, ...(paused > 0 ? { note: `paused ${formatDuration(paused / 1000)} (429)` } : {}) };
  }

  /**
   * Report lines go out in input order: a finished batch waits for the ones before it. A report
   * that finds no room stops the run like the journal would; the journal still has every
   * outcome, so the lines the report lacks are only the report's loss.
   */
  #complete(b: Batch): void {
    if (this.#rows === undefined || this.#report === undefined || this.#reportFull) return;
    try {
      this.#rows?.complete(b);
    } catch (err) {
      if (!isNoSpace(err)) throw err;
      this.#reportFull = true;
      const folder = this.#report.path !== undefined ? dirname(this.#report.path) : 'the report\'s folder';
      this.#result.fullFolder ??= folder;
      if (this.#stopped === undefined) this.#progress.log(`no space left in ${folder} for the report: sending no new batches`);
      this.#stop('disk-full');
    }
  }

  #reportFull = false;
}
