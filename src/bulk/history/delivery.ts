// What became of a run's messages after the API accepted them: the receipts in the saved events
// (docs/events.md: "Delivery in runs"), joined to the run by message id. The rules of a message's
// state are src/events/delivery.ts's, the one implementation; this file only says which events
// files a run reads and which ids are the run's. Nothing is consumed: an event that matches no
// run's message now (a receipt that arrived before its send was journaled, another account's) is
// read again, and matched, at the next report.
import { existsSync } from 'node:fs';
import { accountFile, NO_ACCOUNT } from '../../files/account-files.js';
import type { FieldPaths } from '../../events/fields.js';
import { readDeliveries, type MessageDelivery, type MessageStatus } from '../../events/delivery.js';
import { optOutAccount } from '../../optouts/store.js';
import { BatchState, type RunHeader } from '../journal/records.js';
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
