// A message per row (docs/personalised.md: "Personalised messages"): the text rendered from placeholders, or
// taken from a column, and optionally the sender from a column. Each row's message is checked in
// the preflight like its number: an empty value with no default, an empty text cell, a sender the
// channel does not allow or a text over --max-parts make the row invalid (line, column, reason).
//
// A row's message travels as its grouping key: JSON of [text] or [text, from] (text null for a
// template). The preflight groups by it to count requests, writes it to the spool after the
// recipient, and the send pass groups by the very same string and builds each request from it.
import { analyseText, type TextAnalysis } from '../../message/segments.js';
import { checkSender, SMS_SENDER_RULE, type Channel } from '../../message/channel.js';
import { isBlank, trimInvisible } from '../../message/invisible.js';
import { bindPlaceholders, findColumn, parsePlaceholders, placeholderNames, type BoundText } from '../../message/placeholders.js';
import { phoneText } from '../../message/text-file.js';
import { asciiJson } from '../input/columns.js';
import { noSuchColumn } from '../../csv/header.js';
import { requestFrame } from './base-request.js';
import type { PersonalSpec } from '../journal/records.js';
import { FLAG } from '../flag-names.js';

export interface MessageSource {
  /** The text as given (--text/--text-file), undefined for a template or --text-column. */
  readonly text: string | undefined;
  /** Which flag the text came from, for errors. */
  readonly textFlag: string;
  readonly channel: Channel;
  readonly spec: PersonalSpec;
}

export type RowMessage =
  | { readonly ok: true; readonly key: string; readonly text: string | undefined; readonly analysis: TextAnalysis | undefined }
  | { readonly ok: false; readonly cause: string; readonly column: string; readonly reason: string; readonly hint?: string };

export interface RowMessagePlan {
  /** Columns the message is made of (their text is checked like the variables'). */
  readonly columns: readonly number[];
  message(fields: readonly string[]): RowMessage;
}

/** Whether rows can have messages of their own (else one shared message, as before). */
export function isPersonal(source: MessageSource): boolean {
  const { spec } = source;
  if (spec.textColumn !== null || spec.fromColumn !== null) return true;
  if (!spec.render || source.text === undefined) return false;
  // A text with placeholders, or with `\{{` (sent as `{{`): made per row, even if all the same.
  const parsed = parsePlaceholders(source.text, source.textFlag);
  return parsed.slots.length > 0 || parsed.literals[0] !== source.text;
}

/**
 * Column names the message uses, known before the header is read: they are left out of the
 * default `recipients[].variables` (the text already says them).
 */
export function messageColumnNames(source: MessageSource): string[] {
  const names: string[] = [];
  if (source.spec.render && source.text !== undefined) names.push(...placeholderNames(parsePlaceholders(source.text, source.textFlag)));
  if (source.spec.textColumn !== null) names.push(source.spec.textColumn);
  if (source.spec.fromColumn !== null) names.push(source.spec.fromColumn);
  return names;
}

/** Ties the message to the header: unknown placeholder or column names are usage errors here. */
export function planRowMessage(header: readonly string[], source: MessageSource, fileLabel: string): RowMessagePlan {
  const { spec } = source;
  const column = (name: string, flag: string): number => {
    const i = findColumn(header, name, flag, fileLabel);
    if (i === -1) throw noSuchColumn(flag, fileLabel, name, header);
    return i;
  };
  const textAt = spec.textColumn !== null ? column(spec.textColumn, FLAG.textColumn) : -1;
  const fromAt = spec.fromColumn !== null ? column(spec.fromColumn, FLAG.fromColumn) : -1;
  const bound: BoundText | undefined =
    textAt === -1 && source.text !== undefined && spec.render ? bindPlaceholders(parsePlaceholders(source.text, source.textFlag), header, source.textFlag, fileLabel) : undefined;
  const fixed = textAt === -1 && bound === undefined ? source.text : undefined;
  const fixedAnalysis = fixed !== undefined ? analyseText(fixed) : undefined;
  const textName = textAt !== -1 ? (header[textAt] ?? '').trim() : '';
  const fromName = fromAt !== -1 ? (header[fromAt] ?? '').trim() : '';
  const maxParts = spec.maxParts;
  // A repeated text is analysed once: rows of one campaign often share their rendered text.
  let lastText: string | undefined;
  let lastAnalysis: TextAnalysis | undefined;

  const columns = [...new Set([...(bound?.columns ?? []), ...(textAt !== -1 ? [textAt] : []), ...(fromAt !== -1 ? [fromAt] : [])])].sort((a, b) => a - b);
  return {
    columns,
    message(fields) {
      let text: string | undefined = fixed;
      let analysis = fixedAnalysis;
      if (textAt !== -1) {
        text = phoneText(fields[textAt] ?? '');
        if (isBlank(text)) return { ok: false, cause: 'empty-message', column: textName, reason: 'is empty: every row needs its message', hint: 'Fill the message cells.' };
      } else if (bound !== undefined) {
        const r = bound.render(fields);
        if (!r.ok) return { ok: false, cause: 'empty-value', column: r.column, reason: r.reason, hint: 'Give the placeholder a default, {{column|…}}, or fill the cells.' };
        text = phoneText(r.text);
        if (isBlank(text)) return { ok: false, cause: 'empty-message', column: '', reason: 'the message is empty once its placeholders are filled in', hint: 'Give the placeholders defaults, {{column|…}}, or write text around them.' };
      }
      if (text !== undefined && text !== fixed) {
        if (text !== lastText) {
          lastText = text;
          lastAnalysis = analyseText(text);
        }
        analysis = lastAnalysis;
      }
      if (maxParts !== null && analysis !== undefined && analysis.parts > maxParts) {
        return { ok: false, cause: 'max-parts', column: textName, reason: `the message takes ${analysis.parts} SMS parts, more than ${FLAG.maxParts} ${maxParts}`, hint: `Shorten the text, or raise ${FLAG.maxParts}.` };
      }
      let from: string | undefined;
      if (fromAt !== -1) {
        from = trimInvisible(fields[fromAt] ?? '');
        if (isBlank(from)) return { ok: false, cause: 'empty-sender', column: fromName, reason: 'is empty: every row needs its sender', hint: `Fill the sender cells, or leave ${FLAG.fromColumn} out and give every row one ${FLAG.from}.` };
        const problem = checkSender(from, source.channel);
        if (problem !== undefined) return { ok: false, cause: 'sender', column: fromName, reason: `sender ${problem}`, hint: source.channel === 'RCS' ? 'Fix the sender cells: no line breaks or other control characters.' : `Fix the sender cells: an SMS sender is ${SMS_SENDER_RULE}.` };
      }
      const key = from === undefined ? JSON.stringify([text ?? null]) : JSON.stringify([text ?? null, from]);
      return { ok: true, key, text, analysis };
    },
  };
}

/** The text and sender a grouping key carries (see above). */
export function messageOfKey(key: string): { text: string | undefined; from: string | undefined } {
  const [text, from] = JSON.parse(key) as [string | null, string?];
  return { text: text ?? undefined, from };
}

/** Request fields in the spec's order, so a row's request reads like every other. */
const FIELD_ORDER = ['accountReference', 'name', 'characterSet', 'channel', 'from', 'validity', 'messageType', 'body', 'recipients', 'addressBook', 'metaData'];

/** The message of one grouping key: the run's message with that text and sender. */
export function messageForKey(message: Record<string, unknown>, key: string): Record<string, unknown> {
  const { text, from } = messageOfKey(key);
  const fields: Record<string, unknown> = { ...message, ...(from !== undefined ? { from } : {}), ...(text !== undefined ? { body: { text } } : {}) };
  const out: Record<string, unknown> = {};
  for (const name of FIELD_ORDER) if (fields[name] !== undefined) out[name] = fields[name];
  return out;
}

/** The body frame of one grouping key (bulk/compose/base-request.ts, requestFrame). */
export function frameForKey(message: Record<string, unknown>, key: string): { prefix: string; suffix: string } {
  // A key of a text alone, `["…"]`, holds the text's JSON already: it goes into the run's frame
  // built once around a marker (a request per row otherwise rebuilds the whole frame each time).
  if (key.startsWith('["') && closingQuote(key, 1) === key.length - 2) {
    let t = textFrames.get(message);
    if (t === undefined) {
      t = textFrame(message);
      textFrames.set(message, t);
    }
    if (t !== null) return { prefix: t.before + asciiJson(key.slice(1, -1)) + t.after, suffix: t.suffix };
  }
  return requestFrame(messageForKey(message, key));
}

/** Where the JSON string opening at `open` ends (its closing quote), or -1. */
function closingQuote(json: string, open: number): number {
  for (let i = open + 1; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i;
  }
  return -1;
}

const MARKER = '\u0000msgr text\u0000';
const textFrames = new WeakMap<Record<string, unknown>, { before: string; after: string; suffix: string } | null>();

/** The run's frame split around its text's JSON; null when the marker is not found once. */
function textFrame(message: Record<string, unknown>): { before: string; after: string; suffix: string } | null {
  const { prefix, suffix } = requestFrame(messageForKey(message, JSON.stringify([MARKER])));
  const marker = JSON.stringify(MARKER);
  const at = prefix.indexOf(marker);
  if (at < 0 || prefix.indexOf(marker, at + 1) >= 0) return null;
  return { before: prefix.slice(0, at), after: prefix.slice(at + marker.length), suffix };
}
