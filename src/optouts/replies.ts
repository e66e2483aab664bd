// What an event asks of the opt-outs (docs/optouts.md: "From replies"): a reply with a stop word
// opts its sender out; one that may ask to stop in other words is kept as a possible opt-out for a
// person to decide; a start word as the whole reply opts them back in (unless the user turned that
// off); a receipt of a permanent failure marks its number undeliverable, only when asked. Which
// reply is which: keywords.ts. Pure: the listener applies the answer to the store or the plain list.
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
  | { readonly op: 'add' | 'remove' | 'possible'; readonly change: OptOutChange; readonly why: 'stop' | 'start' | 'undeliverable' | 'possible' }
  | { readonly op: 'ignore'; readonly why: 'start-not-allowed' | 'not-a-number'; readonly raw: string; readonly word: 'stop' | 'start' | 'undeliverable' | 'possible' };

/**
 * A number as providers write it in events: E.164, or its digits without the `+` (many do), a
 * `tel:` URI (RFC 3966: `tel:+44-7400-900123`, its parameters after `;` dropped), or a national
 * number when a default country is given. Undefined when it is none of them.
 */
export function eventNumber(given: string, country?: CountryCode): string | undefined {
  const raw = /^\s*tel:/i.test(given) ? given.trim().slice(4).split(';')[0] ?? '' : given;
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
    const verdict = classifyReply(summary.text, policy.words);
    if (verdict === undefined) return undefined;
    const word = verdict.kind;
    const number = eventNumber(summary.number, policy.defaultCountry);
    if (number === undefined) return { op: 'ignore', why: 'not-a-number', raw: summary.number, word };
    if (word === 'start' && !policy.allowStart) return { op: 'ignore', why: 'start-not-allowed', raw: number, word };
    const evidence = { text: summary.text, event: eventId, ...(summary.messageId !== undefined ? { messageId: summary.messageId } : {}) };
    if (verdict.kind === 'stop') return { op: 'add', why: 'stop', change: { number, reason: 'opt-out', source: 'reply', evidence: { ...evidence, word: verdict.word } } };
    if (verdict.kind === 'possible') return { op: 'possible', why: 'possible', change: { number, source: 'reply', evidence: { ...evidence, matched: verdict.matched, why: verdict.why } } };
    return { op: 'remove', why: 'start', change: { number, source: 'reply', evidence } };
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
