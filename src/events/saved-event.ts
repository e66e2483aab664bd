// One received event as `msgr listen` saves it: one JSON line of the events file
// (docs/events.md: "The events file"). The body is kept as it came, so that forwarding and
// replay send the app the very bytes the provider sent (a signature over the body still checks);
// what it says (status, number, message id) is read from it when needed (fields.ts).
import type { IncomingHttpHeaders } from 'node:http';
import { isSecretName } from '../output/sanitize.js';

export const RECORD_VERSION = 1;

export interface EventRecord {
  readonly v: number;
  /** msgr's own id for the event: `ev_<8 hex>_<counter>`, unique in the file. */
  readonly id: string;
  readonly receivedAt: string;
  /** What made the event a duplicate of another (dedup.ts): `id:…`, `hdr:…` or `body:…`. */
  readonly key: string;
  readonly method: string;
  /** The request path without the listener's token: `/` or the provider's own sub-path. */
  readonly path: string;
  /** The query string without `?` and without parameters that look like secrets. */
  readonly query?: string;
  readonly contentType?: string;
  /** The request's headers, without hop-by-hop ones and without any that carry a secret. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body as text (UTF-8); an element of a JSON array body is that element's JSON. */
  readonly body?: string;
  /** The body when it is not UTF-8. */
  readonly bodyBase64?: string;
  /** One element of a JSON array body: its index and the array's length. */
  readonly item?: { readonly index: number; readonly of: number };
}

/** One event cut from a request body, before it has an id and a key. */
export interface BodyEvent {
  readonly body?: string;
  readonly bodyBase64?: string;
  /** The parsed event: an object for JSON and forms, the text for text, undefined for bytes. */
  readonly parsed: unknown;
  readonly item?: { readonly index: number; readonly of: number };
  /** The bytes the body-hash key is made of. */
  readonly bytes: Uint8Array;
}

export type BodyFormat = 'json' | 'form' | 'text';

/** The media type of a Content-Type value, lower-cased, without parameters. */
export function mediaType(contentType: string | undefined): string | undefined {
  const t = contentType?.split(';')[0]?.trim().toLowerCase();
  return t === undefined || t === '' ? undefined : t;
}

function formatOf(contentType: string | undefined, text: string): BodyFormat {
  const type = mediaType(contentType);
  if (type === 'application/x-www-form-urlencoded') return 'form';
  if (type !== undefined && (type === 'application/json' || type.endsWith('+json') || type === 'text/json')) return 'json';
  // A sender that labels JSON as text/plain or sends no type at all.
  const head = text.trimStart()[0];
  if ((type === undefined || type.startsWith('text/')) && (head === '{' || head === '[')) return 'json';
  return 'text';
}

/** A form body as an object; a repeated name keeps its last value. */
export function parseForm(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(text)) out[k] = v;
  return out;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** More events than this in one body can never be stored: answered 413, final (docs/events.md: "Nothing acknowledged is lost"). */
export const MAX_EVENTS_PER_BODY = 10_000;

/** A body holding more than MAX_EVENTS_PER_BODY events. */
export class TooManyEventsError extends Error {
  readonly count: number;
  constructor(count: number) {
    super(`a JSON array of ${count} events (at most ${MAX_EVENTS_PER_BODY} in one body)`);
    this.count = count;
    this.name = 'TooManyEventsError';
  }
}

/**
 * The events in one request body: a JSON array is one event per element (an empty array none);
 * any other body, JSON, form or text, is one event. JSON that does not parse is kept as text. An
 * array whose elements cannot be written back as JSON (nested thousands deep: V8's
 * JSON.stringify runs out of stack) is kept whole, as one event, byte for byte. An array of more
 * than `maxEvents` elements throws TooManyEventsError.
 */
export function splitBody(raw: Uint8Array, contentType: string | undefined, maxEvents = Number.POSITIVE_INFINITY): BodyEvent[] {
  let text: string;
  try {
    text = decoder.decode(raw);
  } catch {
    return [{ bodyBase64: Buffer.from(raw).toString('base64'), parsed: undefined, bytes: raw }];
  }
  const format = formatOf(contentType, text);
  if (format === 'form') return [{ body: text, parsed: parseForm(text), bytes: raw }];
  if (format === 'json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return [{ body: text, parsed: text, bytes: raw }];
    }
    if (Array.isArray(parsed)) {
      if (parsed.length > maxEvents) throw new TooManyEventsError(parsed.length);
      try {
        return parsed.map((element, index) => {
          const body = JSON.stringify(element);
          return { body, parsed: element as unknown, item: { index, of: parsed.length }, bytes: Buffer.from(body) };
        });
      } catch {
        return [{ body: text, parsed, bytes: raw }];
      }
    }
    return [{ body: text, parsed, bytes: raw }];
  }
  return [{ body: text, parsed: text, bytes: raw }];
}

/** The parsed event of a saved record, as splitBody gave it when it came in. */
export function parseEventBody(record: Pick<EventRecord, 'body' | 'bodyBase64' | 'contentType' | 'item' | 'method' | 'query'>): unknown {
  if (record.body === undefined) {
    // A GET whose query carries the event (some providers send receipts so).
    return record.method === 'GET' && record.query !== undefined ? parseForm(record.query) : undefined;
  }
  if (record.item !== undefined) {
    try {
      return JSON.parse(record.body) as unknown;
    } catch {
      return record.body;
    }
  }
  const events = splitBody(Buffer.from(record.body), record.contentType);
  return events[0]?.parsed;
}

// Headers that describe the connection, not the event.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'content-length', 'host', 'expect', 'proxy-connection', 'content-type']);

/**
 * The headers worth keeping: not hop-by-hop, not secret; repeated ones joined with ", ". `hide`
 * takes the listener's token out of a value that carries it (a Referer, a proxy's
 * X-Forwarded-Uri or X-Original-URI holding the request's path); a value it returns undefined for
 * is dropped.
 */
export function keptHeaders(headers: IncomingHttpHeaders, hide: (value: string) => string | undefined = (v) => v): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || isSecretName(name)) continue;
    const kept = hide(Array.isArray(value) ? value.join(', ') : value);
    if (kept !== undefined) out[name] = kept;
  }
  return out;
}

/** A query string without the parameters whose names look like secrets; undefined when empty. */
export function keptQuery(query: string): string | undefined {
  if (query === '') return undefined;
  const params = new URLSearchParams(query);
  const names = [...new Set(params.keys())];
  if (!names.some(isSecretName)) return query;
  for (const name of names) if (isSecretName(name)) params.delete(name);
  const out = params.toString();
  return out === '' ? undefined : out;
}

/**
 * A provider's sub-path as the listener keeps it and forwarding appends it to the app's path:
 * `.` and `..` segments, also written `%2e`, are resolved within it and never climb above its
 * start, and `\` or an encoded `/` or `\` (`%2f`, `%5c`) separate segments as `/` does (an app
 * or a proxy that decodes them would otherwise see a `..` climb). Empty segments go; a
 * trailing slash stays. So `/../../admin` is `/admin` under the app's path, never beside it.
 */
export function subPath(path: string): string {
  const out: string[] = [];
  const segments = path.split(/\/|\\|%2f|%5c/i);
  let trailing = false;
  for (const segment of segments) {
    const plain = segment.replace(/%2e/gi, '.');
    trailing = plain === '' || plain === '.' || plain === '..';
    if (plain === '' || plain === '.') continue;
    if (plain === '..') out.pop();
    else out.push(segment);
  }
  if (out.length === 0) return '/';
  return `/${out.join('/')}${trailing ? '/' : ''}`;
}

/** A record read back from a file, checked enough to be used (the rest of the line is trusted). */
export function asRecord(value: unknown): EventRecord | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Partial<EventRecord>;
  if (typeof r.id !== 'string' || typeof r.receivedAt !== 'string' || typeof r.key !== 'string') return undefined;
  return { ...r, method: typeof r.method === 'string' ? r.method : 'POST', path: typeof r.path === 'string' ? r.path : '/', headers: typeof r.headers === 'object' && r.headers !== null ? r.headers : {} } as EventRecord;
}
