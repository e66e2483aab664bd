// What an event says, pulled from whatever shape it came in: the real API's event payloads are
// not shown (docs/api.md: "Endpoint"; docs/events.md: "What is not known about the real API's events"), so fields are found
// by the names providers commonly use, in the envelopes they commonly wrap them in, and a user
// names a field the common names miss with a dotted path (`--status-field data.state`). The
// sandbox's own shape (docs/events.md: "The sandbox's events") is found by these same names.

/** Dotted paths the user gave for fields the common names do not find. */
export interface FieldPaths {
  readonly eventId?: string | undefined;
  readonly messageId?: string | undefined;
  readonly status?: string | undefined;
  /** The recipient of a delivery receipt. */
  readonly number?: string | undefined;
  /** The sender of an inbound message. */
  readonly from?: string | undefined;
  readonly text?: string | undefined;
}

export type EventKind = 'delivery' | 'inbound' | 'fallback' | 'other';

export type DeliveryState = 'delivered' | 'failed' | 'expired' | 'pending';

export interface EventSummary {
  readonly kind: EventKind;
  /** The status as the event wrote it. */
  readonly status?: string;
  /** The status read as one of the delivery states (unknown words are `pending`: not final). */
  readonly state?: DeliveryState;
  /** The customer's number: a receipt's recipient, an inbound message's sender. */
  readonly number?: string;
  readonly messageId?: string;
  readonly eventId?: string;
  /** An inbound message's text. */
  readonly text?: string;
  /** The event's own time, when it carries one (ISO 8601 or epoch). */
  readonly time?: string;
  /** A part of a long message (1-based), when the receipt is for one part. */
  readonly part?: { readonly index: number; readonly count: number };
  /** A failure the event marks as permanent (the number cannot be reached). */
  readonly permanent?: boolean;
  /** A failure's code, as written. */
  readonly errorCode?: string;
}

/** Keys compared without case, `_` or `-`: `message_id`, `messageId` and `Message-Id` are one name. */
export function nameKey(key: string): string {
  return key.toLowerCase().replace(/[_\-\s.]/g, '');
}

// Where providers put the event inside the body ('' is the body itself), most specific last so a
// field at the top wins.
const ENVELOPES: readonly string[] = ['', 'data', 'payload', 'data.payload', 'data.object', 'event', 'message', 'result'];

const NAMES = {
  eventId: ['eventid', 'webhookid', 'notificationid', 'callbackid', 'id'],
  messageId: ['messageid', 'messagesid', 'smssid', 'messageuuid', 'msgid', 'messagereference', 'mid', 'inreplyto'],
  status: ['status', 'messagestatus', 'smsstatus', 'deliverystatus', 'dlrstatus', 'state', 'stat'],
  number: ['msisdn', 'to', 'recipient', 'destination', 'destinationnumber', 'phonenumber', 'phone', 'number', 'mobile'],
  from: ['from', 'sender', 'originator', 'source', 'msisdn', 'mobile', 'phone', 'number'],
  text: ['text', 'body', 'message', 'content', 'messagetext', 'messagebody', 'keyword'],
  time: ['createdat', 'timestamp', 'time', 'datetime', 'occurredat', 'eventtime', 'messagetimestamp', 'donedate', 'receivedat', 'sentat'],
  type: ['type', 'eventtype', 'event', 'kind', 'topic'],
  partIndex: ['partindex', 'partnumber', 'part', 'segment', 'segmentindex', 'concatpart'],
  partCount: ['partcount', 'totalparts', 'parts', 'numsegments', 'segments', 'segmentcount', 'concattotal'],
  permanent: ['permanent'],
  errorCode: ['errorcode', 'error', 'err', 'reason', 'code'],
} as const;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The value at a dotted path (`data.items.0.id`); each step matches exactly, else by nameKey. */
export function getPath(value: unknown, path: string): unknown {
  let cur: unknown = value;
  for (const step of path.split('.')) {
    if (step === '') continue;
    if (Array.isArray(cur)) {
      const i = Number(step);
      cur = Number.isInteger(i) ? cur[i] : undefined;
      continue;
    }
    if (!isRecord(cur)) return undefined;
    if (Object.hasOwn(cur, step)) {
      cur = cur[step];
      continue;
    }
    const want = nameKey(step);
    const key = Object.keys(cur).find((k) => nameKey(k) === want);
    cur = key === undefined ? undefined : cur[key];
  }
  return cur;
}

/** A scalar as text; objects, arrays, null and '' are no value. */
function scalar(v: unknown): string | undefined {
  if (typeof v === 'string') return v.trim() === '' ? undefined : v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'boolean') return String(v);
  return undefined;
}

/** The first scalar found under one of the names, looking in each envelope in turn. */
function find(event: unknown, names: readonly string[]): string | undefined {
  for (const envelope of ENVELOPES) {
    const obj = envelope === '' ? event : getPath(event, envelope);
    if (!isRecord(obj)) continue;
    const byName = new Map<string, unknown>();
    for (const [k, v] of Object.entries(obj)) {
      const n = nameKey(k);
      if (!byName.has(n)) byName.set(n, v);
    }
    for (const name of names) {
      const v = scalar(byName.get(name));
      if (v !== undefined) return v;
      // `error: {code, permanent}` (the sandbox's), `part: {index, count}`.
      const nested = byName.get(name);
      if (isRecord(nested) && names === NAMES.errorCode) {
        const code = scalar(getPath(nested, 'code'));
        if (code !== undefined) return code;
      }
    }
  }
  return undefined;
}

function pick(event: unknown, path: string | undefined, names: readonly string[]): string | undefined {
  if (path !== undefined) return scalar(getPath(event, path));
  return find(event, names);
}

// Status words of delivery receipts, by what they mean (SMPP's DLR words, and the words of the
// common HTTP APIs). Compared by nameKey. Any other word is a receipt that is not final.
const FINAL: ReadonlyMap<string, DeliveryState> = new Map([
  ...['delivered', 'delivrd', 'deliveredtohandset', 'deliveredtonetwork', 'delivery', 'success', 'successful', 'read', 'seen', 'displayed'].map((w) => [w, 'delivered'] as const),
  ...['failed', 'failure', 'undelivered', 'undeliv', 'undeliverable', 'rejected', 'rejectd', 'error', 'deleted', 'bounced', 'blocked', 'deliveryfailed', 'unreachable'].map((w) => [w, 'failed'] as const),
  ...['expired', 'expird', 'timeout', 'validityexpired'].map((w) => [w, 'expired'] as const),
]);

/** A status word as a delivery state: delivered, failed or expired (final), else pending. */
export function readStatus(status: string): DeliveryState {
  const key = nameKey(status);
  const direct = FINAL.get(key);
  if (direct !== undefined) return direct;
  // `message.delivered`, `sms_failed`: the last word says it.
  const last = /([a-z]+)$/.exec(status.toLowerCase())?.[1];
  return (last !== undefined ? FINAL.get(last) : undefined) ?? 'pending';
}

export function isFinal(state: DeliveryState | undefined): boolean {
  return state === 'delivered' || state === 'failed' || state === 'expired';
}

function kindOf(type: string | undefined, summary: { status?: string; text?: string; from?: string }): EventKind {
  const t = type?.toLowerCase() ?? '';
  if (/fallback/.test(t)) return 'fallback';
  if (/inbound|received|incoming|\bmo\b|reply|message\.in\b/.test(t)) return 'inbound';
  if (/status|deliver|dlr|receipt|report/.test(t)) return 'delivery';
  // Twilio's inbound messages carry `SmsStatus=received`: a status that says the message came in.
  if (summary.status !== undefined && /^(received|receiving|inbound|mo)$/i.test(summary.status.trim())) return summary.text !== undefined ? 'inbound' : 'other';
  if (summary.status !== undefined) return 'delivery';
  if (summary.text !== undefined && summary.from !== undefined) return 'inbound';
  return 'other';
}

function positive(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/** The part a receipt is for: `part: {index, count}` (the sandbox's), or flat fields. */
function partOf(event: unknown): EventSummary['part'] {
  for (const envelope of ENVELOPES) {
    const obj = envelope === '' ? event : getPath(event, envelope);
    if (!isRecord(obj)) continue;
    const part = getPath(obj, 'part');
    if (isRecord(part)) {
      const index = positive(scalar(getPath(part, 'index')));
      const count = positive(scalar(getPath(part, 'count')));
      if (index !== undefined && count !== undefined && index <= count) return { index, count };
    }
  }
  const index = positive(find(event, NAMES.partIndex));
  const count = positive(find(event, NAMES.partCount));
  return index !== undefined && count !== undefined && count > 1 && index <= count ? { index, count } : undefined;
}

/**
 * What one event says. `event` is the parsed body (saved-event.ts: parseEventBody): an object for JSON
 * and forms; anything else has no fields and is `other`.
 */
export function summarise(event: unknown, paths: FieldPaths = {}): EventSummary {
  const status = pick(event, paths.status, NAMES.status);
  const text = pick(event, paths.text, NAMES.text);
  const from = pick(event, paths.from, NAMES.from);
  const kind = kindOf(find(event, NAMES.type), { ...(status !== undefined ? { status } : {}), ...(text !== undefined ? { text } : {}), ...(from !== undefined ? { from } : {}) });
  const number = kind === 'inbound' ? from : pick(event, paths.number, NAMES.number);
  const messageId = pick(event, paths.messageId, NAMES.messageId);
  let eventId = pick(event, paths.eventId, NAMES.eventId);
  // A bare `id` that is also the message id names the message, not this event.
  if (paths.eventId === undefined && eventId !== undefined && eventId === messageId) eventId = undefined;
  const time = find(event, NAMES.time);
  const out: { -readonly [K in keyof EventSummary]: EventSummary[K] } = { kind };
  if (status !== undefined && kind !== 'inbound') {
    out.status = status;
    out.state = readStatus(status);
  }
  if (number !== undefined) out.number = number;
  if (messageId !== undefined) out.messageId = messageId;
  if (eventId !== undefined) out.eventId = eventId;
  if (kind === 'inbound' && text !== undefined) out.text = text;
  if (time !== undefined) out.time = time;
  if (kind === 'delivery') {
    const part = partOf(event);
    if (part !== undefined) out.part = part;
    if (out.state === 'failed') {
      const permanent = find(event, NAMES.permanent) ?? scalar(getPath(event, 'error.permanent'));
      if (permanent !== undefined) out.permanent = permanent === 'true';
      const code = find(event, NAMES.errorCode);
      if (code !== undefined) out.errorCode = code;
    }
  }
  return out;
}

/** A time field as epoch milliseconds: ISO 8601, or seconds / milliseconds since the epoch. */
export function timeMs(time: string | undefined): number | undefined {
  if (time === undefined) return undefined;
  if (/^\d{9,13}(\.\d+)?$/.test(time)) {
    const n = Number(time);
    return n < 1e11 ? n * 1000 : n;
  }
  const ms = Date.parse(time);
  return Number.isFinite(ms) ? ms : undefined;
}
