// The sandbox's own events (docs/events.md: "The sandbox's events"): the real API's event kinds
// and payloads are not shown (docs/api.md: "Endpoint"), so this shape is the sandbox's choice,
// documented, and msgr reads it only by the common field names every shape is read by
// (src/events/fields.ts). Pure: what events an accepted request makes, and when; delivering them
// is webhooks.ts. `msgr trigger` builds single events with the same functions.
import { randomBytes } from 'node:crypto';
import { analyseText } from '../message/segments.js';
import { deliveryFor } from './rcs.js';
import { batchIdFor, messageIdFor } from './response.js';
import type { ValidMessageRequest } from './validate.js';

export type SandboxStatus = 'sent' | 'delivered' | 'failed' | 'expired';

/** What every event about a message the sandbox accepted carries: its ids and its recipient. */
interface MessageEventBase {
  readonly id: string;
  readonly createdAt: string;
  readonly messageId: string;
  readonly batchId?: string;
  readonly msisdn?: string;
  readonly contactId?: string;
}

/** A receipt: one per message (or per part with part receipts) and status. */
export interface StatusEvent extends MessageEventBase {
  readonly type: 'message.status';
  readonly channel: 'SMS' | 'RCS';
  readonly status: SandboxStatus;
  readonly final: boolean;
  readonly part?: { readonly index: number; readonly count: number };
  readonly error?: { readonly code: string; readonly permanent: boolean; readonly message: string };
}

/** RCS asked for, SMS used: sent as soon as the request is accepted. */
export interface FallbackEvent extends MessageEventBase {
  readonly type: 'message.fallback';
  readonly requested: 'RCS';
  readonly channel: 'SMS';
  readonly reason: 'not-rcs-capable';
}

/** A reply from a recipient. */
export interface InboundEvent {
  readonly type: 'message.inbound';
  readonly id: string;
  readonly createdAt: string;
  readonly from: string;
  readonly to: string;
  readonly channel: 'SMS' | 'RCS';
  readonly text: string;
  readonly inReplyTo?: string;
}

export type SandboxEvent = StatusEvent | FallbackEvent | InboundEvent;

export function newEventId(): string {
  return `sbx_e_${randomBytes(8).toString('hex')}`;
}

/** Failures the sandbox picks from: one that will never deliver, one that might next time. */
export const FAILURES = {
  permanent: { code: 'unknown-subscriber', permanent: true, message: 'the number is not in service' },
  temporary: { code: 'network-error', permanent: false, message: 'the carrier did not take the message' },
} as const;

export interface EventPlanOptions {
  /** Milliseconds from acceptance to the final receipt (each receipt is jittered 50-150 %). */
  readonly delayMs: number;
  /** Fractions of recipients whose final receipt is failed, expired; the rest are delivered. */
  readonly failedRate: number;
  readonly expiredRate: number;
  /** A `sent` receipt (not final) halfway to the final one. */
  readonly sentEvents: boolean;
  /** A receipt per SMS part for texts of several parts. */
  readonly partReceipts: boolean;
  /** Fraction of phone-number recipients who reply, after their final receipt. */
  readonly replyRate: number;
  readonly replyTexts: readonly string[];
}

export interface PlannedEvent {
  /** Milliseconds after acceptance. */
  readonly afterMs: number;
  readonly event: SandboxEvent;
}

/**
 * The events of every accepted recipient of one request, with their delays. `random` is the
 * sandbox's seeded PRNG for events, so a seed gives the same outcomes for the same requests.
 */
export function planEvents(request: ValidMessageRequest, token: string, acceptedAtMs: number, options: EventPlanOptions, random: () => number): PlannedEvent[] {
  const out: PlannedEvent[] = [];
  const batchId = batchIdFor(token);
  const parts = options.partReceipts && request.body.text !== undefined ? analyseText(request.body.text).parts : 1;
  const jitter = (ms: number): number => Math.round(ms * (0.5 + random()));
  const at = (afterMs: number): string => new Date(acceptedAtMs + afterMs).toISOString();
  const recipients = request.recipients ?? [];
  const contacts = request.addressBook?.contacts ?? [];
  const all = [...recipients.map((r) => ({ msisdn: r.msisdn, contactId: undefined })), ...contacts.map((c) => ({ msisdn: undefined, contactId: c.id }))];
  all.forEach((who, index) => {
    const messageId = messageIdFor(token, index);
    const address = who.msisdn ?? who.contactId ?? '';
    const delivery = deliveryFor(request.channel, address);
    const whom = who.msisdn !== undefined ? { msisdn: who.msisdn } : { contactId: who.contactId ?? '' };
    if (delivery.fallback) {
      const afterMs = Math.min(50, jitter(options.delayMs / 10));
      out.push({ afterMs, event: { type: 'message.fallback', id: newEventId(), createdAt: at(afterMs), messageId, batchId, ...whom, requested: 'RCS', channel: 'SMS', reason: 'not-rcs-capable' } });
    }
    const finalMs = jitter(options.delayMs);
    const r = random();
    const status: SandboxStatus = r < options.failedRate ? 'failed' : r < options.failedRate + options.expiredRate ? 'expired' : 'delivered';
    const error = status === 'failed' ? (random() < 0.5 ? FAILURES.permanent : FAILURES.temporary) : undefined;
    const receipt = (s: SandboxStatus, afterMs: number, part?: { index: number; count: number }): PlannedEvent => ({
      afterMs,
      event: {
        type: 'message.status',
        id: newEventId(),
        createdAt: at(afterMs),
        messageId,
        batchId,
        ...whom,
        channel: delivery.channel,
        status: s,
        final: s !== 'sent',
        ...(part !== undefined ? { part } : {}),
        ...(s === 'failed' && error !== undefined ? { error } : {}),
      },
    });
    if (options.sentEvents) out.push(receipt('sent', Math.round(finalMs / 2)));
    if (parts > 1 && delivery.channel === 'SMS') {
      for (let p = 1; p <= parts; p++) out.push(receipt(status, finalMs + p, { index: p, count: parts }));
    } else {
      out.push(receipt(status, finalMs));
    }
    if (who.msisdn !== undefined && options.replyRate > 0 && random() < options.replyRate && options.replyTexts.length > 0) {
      const text = options.replyTexts[Math.floor(random() * options.replyTexts.length)] ?? 'STOP';
      const afterMs = finalMs + jitter(options.delayMs);
      out.push({ afterMs, event: { type: 'message.inbound', id: newEventId(), createdAt: at(afterMs), from: who.msisdn, to: request.from, channel: delivery.channel, text, inReplyTo: messageId } });
    }
  });
  return out;
}
