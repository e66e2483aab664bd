// Seeing a campaign before paying for it (README: "Personalised messages"): the first rows'
// messages exactly as they will be sent (--preview), a short view of the first request for a dry
// run on a terminal, and the samples --sample-to sends instead of the rows' recipients.
import { analyseText } from '../message/segments.js';
import { messageForKey } from './personalise.js';
import type { FirstRow } from './preflight.js';

export interface PreviewEntry {
  readonly line: number;
  readonly msisdn: string;
  readonly from: string | null;
  /** The text as sent; null for a template. */
  readonly text: string | null;
  readonly templateId: string | null;
  /** The row's recipients[] entry beyond its number (variables, metaData). */
  readonly recipient: Record<string, unknown>;
  readonly encoding: string | null;
  readonly parts: number | null;
}

/** The whole request one of the first rows is sent in, but with that row as its only recipient. */
export function rowRequest(message: Record<string, unknown>, row: FirstRow): Record<string, unknown> {
  return row.key !== undefined ? messageForKey(message, row.key) : message;
}

export function previewEntries(message: Record<string, unknown>, rows: readonly FirstRow[]): PreviewEntry[] {
  return rows.map((row) => {
    const request = rowRequest(message, row);
    const body = (request.body ?? {}) as { text?: string; templateId?: string };
    const { msisdn: _m, ...recipient } = JSON.parse(row.recipient) as Record<string, unknown>;
    const analysis = body.text !== undefined ? analyseText(body.text) : undefined;
    return {
      line: row.line,
      msisdn: row.e164,
      from: typeof request.from === 'string' ? request.from : null,
      text: body.text ?? null,
      templateId: body.templateId ?? null,
      recipient,
      encoding: analysis?.encoding ?? null,
      parts: analysis?.parts ?? null,
    };
  });
}

/** For people: one block per message. */
export function formatPreview(entries: readonly PreviewEntry[]): string {
  return entries
    .map((e) => {
      const what = e.text !== null ? `${e.encoding ?? ''}, ${e.parts ?? 0} SMS part${e.parts === 1 ? '' : 's'}` : `template ${e.templateId ?? ''}`;
      const head = `line ${e.line} → ${e.msisdn}${e.from !== null ? ` from ${e.from}` : ''} (${what})`;
      const extra = Object.keys(e.recipient).length > 0 ? `\n  ${JSON.stringify(e.recipient)}` : '';
      const text = e.text !== null ? `\n${e.text.split(/\r?\n/).map((l) => `  │ ${l}`).join('\n')}` : '';
      return `${head}${text}${extra}`;
    })
    .join('\n\n');
}

/** A request with only its first few recipients shown, and how many more there are. */
export function shortRequestView(request: Record<string, unknown>, shown = 3): string {
  const recipients = Array.isArray(request.recipients) ? (request.recipients as unknown[]) : [];
  if (recipients.length <= shown) return JSON.stringify(request, null, 2);
  const json = JSON.stringify({ ...request, recipients: recipients.slice(0, shown) }, null, 2);
  const more = recipients.length - shown;
  // After the last recipient shown: the closing bracket of the list is the first `\n  ]` after it.
  const end = json.indexOf('\n  ]');
  return `${json.slice(0, end)}\n    … and ${more} more recipient${more === 1 ? '' : 's'} in this request${json.slice(end)}`;
}
