// How an event is shown (docs/events.md: "On the terminal"): one line for people, or one JSON
// line for scripts (--json). Text from the sender is never shown raw: its control characters are
// made visible, so a reply cannot move the cursor or recolour the terminal.
import { showControls } from '../output/sanitize.js';
import type { EventSummary } from './fields.js';
import type { EventRecord } from './records.js';

/** What the opt-outs made of an event, for its line. */
export type OptOutNote = 'opted-out' | 'possible' | 'already-opted-out' | 'undeliverable' | 'resubscribed' | 'not-opted-out' | 'start-ignored' | 'not-a-number' | 'stop-ignored';

const NOTES: Readonly<Record<OptOutNote, string>> = {
  'opted-out': '→ opted out',
  possible: '→ possible opt-out: msgr optout possible',
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
  const one = showControls(text.replace(/\s+/g, ' '));
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

export function eventLine(record: EventRecord, s: EventSummary, note?: OptOutNote): string {
  const cells = [clock(record.receivedAt), label(s).padEnd(10), (s.number !== undefined ? short(s.number, 20) : '-').padEnd(16)];
  if (s.messageId !== undefined) cells.push(short(s.messageId, 48));
  if (s.kind === 'inbound' && s.text !== undefined) cells.push(JSON.stringify(short(s.text, 60)));
  if (s.kind === 'fallback') cells.push('RCS → SMS');
  if (s.kind === 'delivery' && s.state === 'failed' && (s.errorCode !== undefined || s.permanent !== undefined)) {
    cells.push(`${s.errorCode !== undefined ? short(s.errorCode, 30) : 'failed'}${s.permanent === true ? ' (permanent)' : ''}`);
  }
  if (s.kind === 'delivery' && s.part !== undefined) cells.push(`part ${s.part.index}/${s.part.count}`);
  if (s.kind === 'other') cells.push(`${record.method} ${short(record.path, 40)}${record.contentType !== undefined ? ` ${short(record.contentType, 40)}` : ''}`);
  if (note !== undefined) cells.push(NOTES[note]);
  return cells.join('  ').trimEnd();
}

/** The JSON line of an event for --json: what was pulled from it, and the event itself. */
export function eventJson(record: EventRecord, s: EventSummary, parsed: unknown, note?: OptOutNote): string {
  return JSON.stringify({
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
    event: parsed ?? null,
  });
}
