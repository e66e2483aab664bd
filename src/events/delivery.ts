// Delivery state per message, from the receipts in events files (docs/events.md: "Delivery
// states"). The rules, each because receipts arrive late, twice and out of order:
// - a final state (delivered, failed, expired) wins over any non-final one, whenever that came;
//   between two finals the later by the event's own time (else the time it was received) wins;
// - a long message's parts, when receipts say which part they are for, fold into one state:
//   failed if a part failed, else expired if a part expired, else delivered once every part is,
//   else pending;
// - a message with no final receipt UNKNOWN_AFTER_MS after it was sent (or, when that is not
//   known, after its first receipt) is unknown: its receipt will most likely never come.
// Pure apart from readDeliveries(), the front door the reports use.
import { isFinal, summarise, timeMs, type DeliveryState, type EventSummary, type FieldPaths } from './fields.js';
import { parseEventBody } from './saved-event.js';
import { readEventsFile } from './read.js';

/** What a report says of a message: a delivery state, or unknown (too long without a final receipt). */
export type MessageStatus = DeliveryState | 'unknown';

/**
 * 72 hours: the longest validity SMS centres commonly apply by default. A receipt later than that
 * is rare enough that "unknown" is the honest word for a message still without one.
 */
export const UNKNOWN_AFTER_MS = 72 * 3_600_000;

export interface MessageDelivery {
  readonly messageId: string;
  readonly status: MessageStatus;
  readonly final: boolean;
  /** When the status was reached: the deciding receipt's own time, else when it was received. */
  readonly at?: string;
  /** Receipts read for the message, duplicates of the same part and status included. */
  readonly receipts: number;
  /** For a message whose receipts are per part: how many parts, how many delivered. */
  readonly parts?: { readonly count: number; readonly delivered: number };
  readonly number?: string;
  readonly errorCode?: string;
}

interface PartState {
  state: DeliveryState;
  atMs: number;
  errorCode: string | undefined;
}

interface Book {
  /** Part 0: receipts for the whole message. */
  readonly parts: Map<number, PartState>;
  count: number;
  receipts: number;
  firstMs: number;
  number: string | undefined;
}

export interface StateOptions {
  readonly now: Date;
  /** When the message was sent (from the run's journal): the clock for `unknown` starts there. */
  readonly sentAt?: Date | undefined;
  readonly unknownAfterMs?: number;
}

export class DeliveryBook {
  readonly #books = new Map<string, Book>();
  readonly #only: ReadonlySet<string> | undefined;

  /** `only`: keep the messages with these ids alone (a report's run), so memory follows the run. */
  constructor(only?: ReadonlySet<string>) {
    this.#only = only;
  }

  get size(): number {
    return this.#books.size;
  }

  ids(): IterableIterator<string> {
    return this.#books.keys();
  }

  /** Takes one event; anything but a receipt with a message id and a status is passed over. */
  add(summary: EventSummary, receivedAt: string): void {
    const id = summary.messageId;
    if (summary.kind !== 'delivery' || id === undefined || summary.state === undefined) return;
    if (this.#only !== undefined && !this.#only.has(id)) return;
    const atMs = timeMs(summary.time) ?? Date.parse(receivedAt);
    let book = this.#books.get(id);
    if (book === undefined) {
      book = { parts: new Map(), count: 1, receipts: 0, firstMs: atMs, number: undefined };
      this.#books.set(id, book);
    }
    book.receipts++;
    book.firstMs = Math.min(book.firstMs, atMs);
    if (summary.number !== undefined) book.number = summary.number;
    const index = summary.part?.index ?? 0;
    if (summary.part !== undefined) book.count = Math.max(book.count, summary.part.count);
    const now = book.parts.get(index);
    const next: PartState = { state: summary.state, atMs, errorCode: summary.errorCode };
    if (now === undefined || wins(next, now)) book.parts.set(index, next);
  }

  state(messageId: string, options: StateOptions): MessageDelivery {
    const book = this.#books.get(messageId);
    const unknownAfter = options.unknownAfterMs ?? UNKNOWN_AFTER_MS;
    const since = options.sentAt?.getTime() ?? book?.firstMs;
    const overdue = since !== undefined && options.now.getTime() - since > unknownAfter;
    if (book === undefined) return { messageId, status: overdue ? 'unknown' : 'pending', final: false, receipts: 0 };
    const folded = fold(book);
    const status: MessageStatus = folded.final || !overdue ? folded.state : 'unknown';
    return {
      messageId,
      status,
      final: folded.final,
      ...(folded.atMs !== undefined ? { at: new Date(folded.atMs).toISOString() } : {}),
      receipts: book.receipts,
      ...(book.count > 1 ? { parts: { count: book.count, delivered: folded.delivered } } : {}),
      ...(book.number !== undefined ? { number: book.number } : {}),
      ...(folded.errorCode !== undefined ? { errorCode: folded.errorCode } : {}),
    };
  }
}

/** Whether a receipt replaces the one kept for its part. */
function wins(next: PartState, now: PartState): boolean {
  const nextFinal = isFinal(next.state);
  const nowFinal = isFinal(now.state);
  if (nowFinal && !nextFinal) return false;
  if (nextFinal && !nowFinal) return true;
  return next.atMs >= now.atMs;
}

function fold(book: Book): { state: DeliveryState; final: boolean; atMs: number | undefined; delivered: number; errorCode: string | undefined } {
  const states = [...book.parts.entries()];
  const latest = (want: DeliveryState): PartState | undefined => states.map(([, p]) => p).filter((p) => p.state === want).sort((a, b) => b.atMs - a.atMs)[0];
  const failed = latest('failed');
  if (failed !== undefined) return { state: 'failed', final: true, atMs: failed.atMs, delivered: countDelivered(book), errorCode: failed.errorCode };
  const expired = latest('expired');
  if (expired !== undefined) return { state: 'expired', final: true, atMs: expired.atMs, delivered: countDelivered(book), errorCode: undefined };
  const whole = book.parts.get(0);
  const delivered = countDelivered(book);
  if (whole?.state === 'delivered' || (book.count > 1 && delivered === book.count)) {
    const at = Math.max(...states.filter(([, p]) => p.state === 'delivered').map(([, p]) => p.atMs));
    return { state: 'delivered', final: true, atMs: at, delivered, errorCode: undefined };
  }
  const last = states.map(([, p]) => p.atMs).reduce((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY);
  return { state: 'pending', final: false, atMs: Number.isFinite(last) ? last : undefined, delivered, errorCode: undefined };
}

function countDelivered(book: Book): number {
  let n = 0;
  for (const [index, p] of book.parts) if (index > 0 && p.state === 'delivered') n++;
  return n;
}

export interface ReadDeliveriesOptions {
  readonly fields?: FieldPaths;
  /** Keep only these message ids (see DeliveryBook). */
  readonly only?: ReadonlySet<string>;
}

/**
 * The front door for reports: every receipt of the events files, in one book whose state() says
 * what happened to a message id (given when it was sent, and now).
 */
export async function readDeliveries(files: readonly string[], options: ReadDeliveriesOptions = {}): Promise<{ book: DeliveryBook; records: number; skipped: number }> {
  const book = new DeliveryBook(options.only);
  let records = 0;
  let skipped = 0;
  for (const file of files) {
    const r = await readEventsFile(file, (record) => book.add(summarise(parseEventBody(record), options.fields), record.receivedAt), '--events');
    records += r.records;
    skipped += r.skipped;
  }
  return { book, records, skipped };
}
