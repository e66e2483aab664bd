// What became of a run's messages after the API accepted them: the receipts in the saved events
// (docs/events.md: "Delivery in runs"), joined to the run by message id. The rules of a message's
// state are src/events/delivery.ts's, the one implementation; this file only says which events
// files a run reads and which ids are the run's. Nothing is consumed: an event that matches no
// run's message now (a receipt that arrived before its send was journaled, another account's) is
// read again, and matched, at the next report.
import { existsSync } from 'node:fs';
import { accountFile, NO_ACCOUNT } from '../../files/account-files.js';
import type { FieldPaths } from '../../events/fields.js';
import { readDeliveries, UNKNOWN_AFTER_MS, type MessageDelivery, type MessageStatus } from '../../events/delivery.js';
import { summarise } from '../../events/fields.js';
import { readEventsFile } from '../../events/read.js';
import { parseEventBody } from '../../events/saved-event.js';
import { eventNumber } from '../../optouts/replies.js';
import { optOutAccount } from '../../optouts/store.js';
import { BatchState, isInDoubt, type RunHeader } from '../journal/records.js';
import type { RunDetail } from './catalogue.js';

/** Where to read receipts, and how their fields are named where the shape is not the sandbox's. */
export interface DeliveryOptions {
  /** Events files saved elsewhere (`--events FILE`); undefined: the listener's own for the run's account. */
  readonly events?: readonly string[] | undefined;
  readonly fields?: FieldPaths | undefined;
  readonly now: Date;
}

/** Messages of the run by what became of them. */
export interface DeliveryCounts {
  delivered: number;
  failed: number;
  expired: number;
  /** No final receipt yet. */
  pending: number;
  /** No final receipt long after it was sent (src/events/delivery.ts UNKNOWN_AFTER_MS). */
  unknown: number;
  /** Accepted recipients without a message id in the API's answer: nothing to match them by. */
  withoutId: number;
}

export interface RunDelivery {
  /** The events files read. */
  readonly files: readonly string[];
  /** The listener's default files for the run's account that do not exist (yet). */
  readonly missing: readonly string[];
  /** Receipts and other events read, and lines that were not events. */
  readonly records: number;
  readonly skipped: number;
  readonly counts: DeliveryCounts;
  /** A message of the run: its state; undefined for an id the run did not send. */
  of(messageId: string): MessageDelivery | undefined;
}

/**
 * The listener's events files a run's receipts are in: its account's (`msgr listen` with that
 * account, or the profile that has it) and the one of no account (`msgr listen` with none). The
 * account is the one the run sent for, as the opt-out store's (optOutAccount): a sandbox run sent
 * as the stand-in `SANDBOX` has none.
 */
export function defaultEventsFiles(state: string, h: RunHeader): string[] {
  const account = optOutAccount(h.message.accountReference, h.target?.sandbox === true);
  return [...new Set([accountFile(state, 'events', account, 'jsonl'), accountFile(state, 'events', NO_ACCOUNT, 'jsonl')])];
}

/** The delivery state of every message the run's accepted batches were answered with. */
export async function runDelivery(state: string, d: RunDetail, o: DeliveryOptions): Promise<RunDelivery> {
  // The run's message ids, each with when its request left: the clock for "unknown" starts there.
  const sentAt = new Map<string, number>();
  let withoutId = 0;
  for (const [b, done] of d.dones) {
    if (d.loaded.states[b] !== BatchState.accepted) continue;
    const at = Date.parse(d.sends.get(b)?.at ?? done.at);
    const count = d.sends.get(b)?.count ?? done.ids?.length ?? 0;
    let ids = 0;
    for (const id of done.ids ?? []) {
      if (typeof id !== 'string') continue;
      sentAt.set(id, at);
      ids++;
    }
    withoutId += Math.max(0, count - ids);
  }
  const wanted = o.events ?? defaultEventsFiles(state, d.loaded.header);
  const files = o.events !== undefined ? [...wanted] : wanted.filter((f) => existsSync(f));
  const missing = o.events !== undefined ? [] : wanted.filter((f) => !files.includes(f));
  const read = await readDeliveries(files, { ...(o.fields !== undefined ? { fields: o.fields } : {}), only: new Set(sentAt.keys()) });
  const counts: DeliveryCounts = { delivered: 0, failed: 0, expired: 0, pending: 0, unknown: 0, withoutId };
  const of = (id: string): MessageDelivery | undefined => {
    const at = sentAt.get(id);
    return at !== undefined ? read.book.state(id, { now: o.now, sentAt: new Date(at) }) : undefined;
  };
  for (const id of sentAt.keys()) {
    const status: MessageStatus = of(id)?.status ?? 'pending';
    counts[status]++;
  }
  return { files, missing, records: read.records, skipped: read.skipped, counts, of };
}

/** What the receipts say of one batch in doubt. */
export interface SettledBatch {
  readonly batch: number;
  /** Its recipients, as its last "send" record names them. */
  readonly numbers: readonly string[];
  /** Those with a receipt (in request order), each with its message id when the receipt has one. */
  readonly withReceipt: ReadonlyArray<{ readonly number: string; readonly messageId: string | undefined }>;
  /** Every recipient has one: the API took the request; it counts as accepted. */
  readonly settled: boolean;
}

export interface InDoubtSettlement {
  /** The batches in doubt, each with what its receipts say. */
  readonly batches: readonly SettledBatch[];
  /** Rows in doubt, and of those, the rows with a receipt. */
  readonly rows: number;
  readonly withReceipt: number;
  /** Rows of the batches every recipient of which has one. */
  readonly settledRows: number;
  /** The events files read. */
  readonly files: readonly string[];
}

/**
 * Receipts settle doubt (docs/reruns.md: "In doubt meets consent"): a recipient of a batch in
 * doubt has a receipt when the events hold one for its message id (when its batch's outcome
 * record names one), or else one for its number received after the batch's first request left and
 * within UNKNOWN_AFTER_MS of it, whose message id is none of the run's other messages'. A receipt
 * of any state counts (a failed one too): the API took the message. A batch every recipient of
 * which has one was accepted; one with some is still in doubt, and said so.
 */
export async function settleInDoubt(state: string, d: RunDetail, o: Pick<DeliveryOptions, 'events' | 'fields'> = {}): Promise<InDoubtSettlement> {
  const doubt: Array<{ batch: number; numbers: readonly string[]; ids: ReadonlyArray<string | null> | undefined; from: number }> = [];
  d.loaded.states.forEach((s, b) => {
    if (!isInDoubt(s)) return;
    const send = d.sends.get(b);
    const from = Date.parse(d.firstSent.get(b) ?? send?.at ?? d.loaded.header.createdAt);
    doubt.push({ batch: b, numbers: send?.numbers ?? [], ids: d.dones.get(b)?.ids, from });
  });
  const files = o.events ?? defaultEventsFiles(state, d.loaded.header).filter((f) => existsSync(f));
  if (doubt.length === 0) return { batches: [], rows: 0, withReceipt: 0, settledRows: 0, files };
  // The run's other messages: a receipt for one of them says nothing of a batch in doubt.
  const others = new Set<string>();
  for (const [b, done] of d.dones) if (!isInDoubt(d.loaded.states[b] ?? BatchState.none)) for (const id of done.ids ?? []) if (typeof id === 'string') others.add(id);
  const wantedNumbers = new Set(doubt.flatMap((x) => x.numbers));
  const wantedIds = new Set(doubt.flatMap((x) => (x.ids ?? []).filter((id): id is string => typeof id === 'string')));
  const byNumber = new Map<string, Array<{ at: number; messageId: string | undefined }>>();
  const byId = new Set<string>();
  for (const file of files) {
    await readEventsFile(file, (record) => {
      const e = summarise(parseEventBody(record), o.fields);
      if (e.kind !== 'delivery') return;
      if (e.messageId !== undefined && wantedIds.has(e.messageId)) byId.add(e.messageId);
      if (e.number === undefined) return;
      const number = eventNumber(e.number);
      if (number === undefined || !wantedNumbers.has(number) || (e.messageId !== undefined && others.has(e.messageId))) return;
      const list = byNumber.get(number) ?? [];
      list.push({ at: Date.parse(record.receivedAt), messageId: e.messageId });
      byNumber.set(number, list);
    }, '--events');
  }
  let rows = 0;
  let withReceipt = 0;
  let settledRows = 0;
  const batches = doubt.map((x): SettledBatch => {
    const found: Array<{ number: string; messageId: string | undefined }> = [];
    x.numbers.forEach((number, i) => {
      const id = x.ids?.[i];
      if (typeof id === 'string' && byId.has(id)) {
        found.push({ number, messageId: id });
        return;
      }
      const r = (byNumber.get(number) ?? []).find((e) => e.at >= x.from && e.at <= x.from + UNKNOWN_AFTER_MS);
      if (r !== undefined) found.push({ number, messageId: r.messageId });
    });
    const settled = x.numbers.length > 0 && found.length === x.numbers.length;
    rows += x.numbers.length;
    withReceipt += found.length;
    if (settled) settledRows += x.numbers.length;
    return { batch: x.batch, numbers: x.numbers, withReceipt: found, settled };
  });
  return { batches, rows, withReceipt, settledRows, files };
}

/**
 * The run as a resume would journal it once the receipts settled its batches in doubt: each
 * settled batch accepted, with the message ids its receipts carry (null where one has none), so
 * that what is told of its delivery counts them as what is told of its outcome does.
 */
export function withSettled(d: RunDetail, s: InDoubtSettlement | undefined): RunDetail {
  const settled = s?.batches.filter((b) => b.settled) ?? [];
  if (settled.length === 0) return d;
  const states = Uint8Array.from(d.loaded.states);
  const dones = new Map(d.dones);
  for (const b of settled) {
    states[b.batch] = BatchState.accepted;
    const at = dones.get(b.batch)?.at ?? d.sends.get(b.batch)?.at ?? d.loaded.header.createdAt;
    dones.set(b.batch, { type: 'done', batch: b.batch, outcome: 'accepted', ids: b.withReceipt.map((x) => x.messageId ?? null), settledBy: 'receipts', at });
  }
  return { ...d, loaded: { ...d.loaded, states }, dones };
}
