// What an event asks of the opt-outs (docs/optouts.md: "From replies"): an inbound message whose
// whole text is a stop word opts its sender out; a start word opts them back in, only when the
// user allowed it; a receipt of a permanent failure marks its number undeliverable, only when
// asked. Pure: the listener applies the answer to the store or the plain list.
import type { EventSummary } from '../events/fields.js';
import { normaliseNumber, OPT_OUT_NUMBERS } from '../message/numbers.js';
import type { CountryCode } from 'libphonenumber-js/max';
import { classifyReply, type Keywords } from './keywords.js';
import type { OptOutChange } from './store.js';

export interface ReplyPolicy {
  readonly words: Keywords;
  /** START (a start word) takes the sender off the opt-outs. */
  readonly allowStart: boolean;
  /** A receipt of a permanent failure adds its number as undeliverable. */
  readonly undeliverable: boolean;
  /** Error codes that mean permanent, beyond an event's own `permanent: true`. */
  readonly permanentCodes: ReadonlySet<string>;
  readonly defaultCountry?: CountryCode | undefined;
}

export type OptOutAction =
  | { readonly op: 'add' | 'remove'; readonly change: OptOutChange; readonly why: 'stop' | 'start' | 'undeliverable' }
  | { readonly op: 'ignore'; readonly why: 'start-not-allowed' | 'not-a-number'; readonly raw: string; readonly word: 'stop' | 'start' | 'undeliverable' };

/**
 * A number as providers write it in events: E.164, or its digits without the `+` (many do), or a
 * national number when a default country is given. Undefined when it is none of them.
 */
export function eventNumber(raw: string, country?: CountryCode): string | undefined {
  const r = normaliseNumber(raw, country, OPT_OUT_NUMBERS);
  if (r.ok) return r.e164;
  const digits = raw.trim().replace(/[\s\-().]/g, '');
  if (/^[1-9]\d{7,14}$/.test(digits)) {
    const plus = normaliseNumber(`+${digits}`, undefined, OPT_OUT_NUMBERS);
    if (plus.ok) return plus.e164;
  }
  return undefined;
}

export function optOutAction(summary: EventSummary, eventId: string, policy: ReplyPolicy): OptOutAction | undefined {
  if (summary.kind === 'inbound' && summary.text !== undefined && summary.number !== undefined) {
    const word = classifyReply(summary.text, policy.words);
    if (word === undefined) return undefined;
    const number = eventNumber(summary.number, policy.defaultCountry);
    if (number === undefined) return { op: 'ignore', why: 'not-a-number', raw: summary.number, word };
    if (word === 'start' && !policy.allowStart) return { op: 'ignore', why: 'start-not-allowed', raw: number, word };
    const evidence = { text: summary.text, event: eventId, ...(summary.messageId !== undefined ? { messageId: summary.messageId } : {}) };
    return word === 'stop'
      ? { op: 'add', why: 'stop', change: { number, reason: 'opt-out', source: 'reply', evidence } }
      : { op: 'remove', why: 'start', change: { number, source: 'reply', evidence } };
  }
  if (policy.undeliverable && summary.kind === 'delivery' && summary.state === 'failed' && summary.number !== undefined) {
    const permanent = summary.permanent === true || (summary.errorCode !== undefined && policy.permanentCodes.has(summary.errorCode));
    if (!permanent) return undefined;
    const number = eventNumber(summary.number, policy.defaultCountry);
    if (number === undefined) return { op: 'ignore', why: 'not-a-number', raw: summary.number, word: 'undeliverable' };
    return {
      op: 'add',
      why: 'undeliverable',
      change: {
        number,
        reason: 'undeliverable',
        source: 'receipt',
        evidence: { event: eventId, ...(summary.status !== undefined ? { status: summary.status } : {}), ...(summary.errorCode !== undefined ? { code: summary.errorCode } : {}), ...(summary.messageId !== undefined ? { messageId: summary.messageId } : {}) },
      },
    };
  }
  return undefined;
}
