// How an event is shown (docs/events.md: "On the terminal"): one line for people, or one JSON
// line for scripts (--json). Nothing from the sender is shown raw: the whole line, every field and
// label, goes through showControls, so an event cannot move the cursor, clear the screen or
// retitle the window. The JSON line is printed whatever the event holds (nested too deep to
// re-serialise, or to parse for jq): a --json reader sees every stored event once.
import { quoted, showControls } from '../output/sanitize.js';
import type { EventSummary } from './fields.js';
import type { EventRecord } from './saved-event.js';

/** What the opt-outs made of an event, for its line. */
export type OptOutNote = 'opted-out' | 'possible' | 'already-opted-out' | 'undeliverable' | 'resubscribed' | 'not-opted-out' | 'start-ignored' | 'not-a-number' | 'stop-ignored';

const NOTES: Readonly<Record<OptOutNote, string>> = {
  'opted-out': '→ opted out',
  possible: '→ possible opt-out: a person decides (the warning above says how)',
  'already-opted-out': '→ opted out already',
  undeliverable: '→ added as undeliverable',
  resubscribed: '→ re-subscribed (taken off the opt-outs)',
  'not-opted-out': '→ START: was not opted out',
  'start-ignored': '→ START not applied (--ignore-start)',
  'not-a-number': '→ not a phone number: opt-out not recorded',
  'stop-ignored': '→ a stop word: run msgr listen --optouts to record opt-outs',
};

/** HH:MM:SS of an ISO time, in the local time zone. */
export function clock(iso: string): string {
  const d = new Date(iso);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

function label(s: EventSummary): string {
  switch (s.kind) {
    case 'delivery':
      return s.state === 'pending' ? (s.status ?? 'status').toLowerCase().slice(0, 12) : (s.state ?? 'status');
    case 'inbound':
      return 'inbound';
    case 'fallback':
      return 'fallback';
    case 'other':
      return 'event';
  }
}

function short(text: string, max: number): string {
  // Only ASCII white space is folded into one space: a BOM or another invisible character that
  // JavaScript counts as white space (\s) is shown, not turned into a space that hides it.
  const one = showControls(text.replace(/[\t\n\v\f\r ]+/g, ' '));
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

export function eventLine(record: EventRecord, s: EventSummary, note?: OptOutNote): string {
  const cells = [clock(record.receivedAt), short(label(s), 12).padEnd(10), (s.number !== undefined ? short(s.number, 20) : '-').padEnd(16)];
  if (s.messageId !== undefined) cells.push(short(s.messageId, 48));
  if (s.kind === 'inbound' && s.text !== undefined) cells.push(quoted(short(s.text, 60)));
  if (s.kind === 'fallback') cells.push('RCS → SMS');
  if (s.kind === 'delivery' && s.state === 'failed' && (s.errorCode !== undefined || s.permanent !== undefined)) {
    cells.push(`${s.errorCode !== undefined ? short(s.errorCode, 30) : 'failed'}${s.permanent === true ? ' (permanent)' : ''}`);
  }
  if (s.kind === 'delivery' && s.part !== undefined) cells.push(`part ${s.part.index}/${s.part.count}`);
  if (s.kind === 'other') cells.push(`${record.method} ${short(record.path, 40)}${record.contentType !== undefined ? ` ${short(record.contentType, 40)}` : ''}`);
  if (note !== undefined) cells.push(NOTES[note]);
  return showControls(cells.join('  ').trimEnd());
}

/**
 * Deeper than this, an event's JSON line gives its body as text (`body`) instead of parsed
 * (`event`): jq refuses input nested deeper than 256 levels (its older releases) and V8 cannot
 * re-serialise a few thousand, while no real event nests more than a dozen.
 */
export const MAX_JSON_DEPTH = 100;

/** Whether a parsed JSON value nests objects and arrays deeper than `limit`, without recursion. */
export function deeperThan(value: unknown, limit: number): boolean {
  const stack: Array<{ v: unknown; d: number }> = [{ v: value, d: 1 }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { v, d } = top;
    if (typeof v !== 'object' || v === null) continue;
    if (d > limit) return true;
    for (const child of Array.isArray(v) ? (v as unknown[]) : Object.values(v)) {
      if (typeof child === 'object' && child !== null) stack.push({ v: child, d: d + 1 });
    }
  }
  return false;
}

/** The JSON line of an event for --json: what was pulled from it, and the event itself. Never throws. */
export function eventJson(record: EventRecord, s: EventSummary, parsed: unknown, note?: OptOutNote): string {
  const head = {
    id: record.id,
    receivedAt: record.receivedAt,
    kind: s.kind,
    ...(s.status !== undefined ? { status: s.status, state: s.state } : {}),
    ...(s.number !== undefined ? { number: s.number } : {}),
    ...(s.messageId !== undefined ? { messageId: s.messageId } : {}),
    ...(s.eventId !== undefined ? { eventId: s.eventId } : {}),
    ...(s.text !== undefined ? { text: s.text } : {}),
    ...(s.part !== undefined ? { part: s.part } : {}),
    ...(note !== undefined ? { optout: note } : {}),
    path: record.path,
  };
  const asText = { ...head, event: null, body: record.body ?? null, ...(record.bodyBase64 !== undefined ? { bodyBase64: record.bodyBase64 } : {}) };
  try {
    if (deeperThan(parsed, MAX_JSON_DEPTH)) return JSON.stringify(asText);
    return JSON.stringify({ ...head, event: parsed ?? null });
  } catch {
    return JSON.stringify(asText);
  }
}
