// Seeing a campaign before paying for it (docs/personalised.md: "Personalised messages"): the first rows'
// messages exactly as they will be sent (--preview), the first request of a dry run (short on a
// terminal), each printed for people or as the --json document; and the requests of the samples
// --sample-to sends instead of the rows' recipients (bulk/send-pass/samples.ts).
import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';
import { analyseText } from '../../message/segments.js';
import type { Ui } from '../../output/ui.js';
import { showControls } from '../../output/sanitize.js';
import { lineWidth, wrap } from '../../output/wrap.js';
import type { FirstRow } from '../preflight/range.js';
import type { Summary } from './summary.js';
import { formatCount } from '../../output/count.js';
import { rowRequest } from '../send-pass/samples.js';

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

/**
 * For people: one block per message. On a terminal `columns` wide (output/wrap.ts), a line of the
 * message wraps with `┆` beside its continuation, so that it is told from a line break of the
 * message (`│`), and the recipient's fields are spaced so that they can wrap.
 */
export function formatPreview(entries: readonly PreviewEntry[], columns?: number): string {
  return entries
    .map((e) => {
      const what = e.text !== null ? `${e.encoding ?? ''}, ${e.parts ?? 0} SMS part${e.parts === 1 ? '' : 's'}` : `template ${e.templateId ?? ''}`;
      const head = wrap(`line ${e.line} → ${e.msisdn}${e.from !== null ? ` from ${e.from}` : ''} (${what})`, columns);
      // JSON escapes C0 but not C1 or the bidirectional overrides.
      const json = columns === undefined ? JSON.stringify(e.recipient) : JSON.stringify(e.recipient, null, 1).replace(/\n */g, ' ');
      const extra = Object.keys(e.recipient).length > 0 ? `\n${wrap(`  ${showControls(json)}`, columns)}` : '';
      // Lines as sent (a line feed, the only control character a message line may end with);
      // any other control character is shown as <U+...>: a cell's ESC or lone CR must neither
      // recolour the terminal nor hide part of the text.
      const text = e.text !== null ? `\n${e.text.split('\n').map((l) => wrap(`  │ ${showControls(l)}`, columns, { lead: '  ┆ ' })).join('\n')}` : '';
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

/** Where a preview or a dry run prints: the document or the requests on stdout, the count on stderr. */
export interface TrialOutput {
  readonly stdout: Context['stdout'];
  readonly ui: Pick<Ui, 'info'>;
  readonly json: boolean;
  /** The --json document's figures (the preflight's summary). */
  readonly summary: Summary;
}

/** `--preview`: the first rows' messages as they will be sent (`--json`: in the summary document). */
export function printPreview(out: TrialOutput, message: Record<string, unknown>, rows: readonly FirstRow[], toSend: number): void {
  const entries = previewEntries(message, rows);
  if (out.json) out.stdout.write(`${JSON.stringify({ ...out.summary, preview: entries, exitCode: ExitCode.OK }, null, 2)}\n`);
  else if (entries.length > 0) out.stdout.write(`${formatPreview(entries, lineWidth(out.stdout))}\n`);
  out.ui.info(`preview: the first ${formatCount(entries.length)} of ${formatCount(toSend)} message${toSend === 1 ? '' : 's'}; nothing was sent`);
}

/**
 * `--dry-run`: the first request (its frame around the first batch's recipients), null when there
 * is none; whole in a document or a pipe, its first recipients only on a terminal.
 */
export function printDryRun(out: TrialOutput, frame: { prefix: string; suffix: string }, firstBatch: readonly string[], pre: { toSend: number; requests: number }, limit?: number): void {
  const first = firstBatch.length > 0 ? (JSON.parse(`${frame.prefix}${firstBatch.join(',')}${frame.suffix}`) as Record<string, unknown>) : null;
  if (out.json) out.stdout.write(`${JSON.stringify({ ...out.summary, firstRequest: first, exitCode: ExitCode.OK }, null, 2)}\n`);
  // On a terminal, a person reads it: the first recipients, not hundreds of lines.
  else if (first !== null) out.stdout.write(`${out.stdout.isTTY === true ? shortRequestView(first) : JSON.stringify(first, null, 2)}\n`);
  const all = `${formatCount(pre.toSend)} recipient${pre.toSend === 1 ? '' : 's'} in ${formatCount(pre.requests)} request${pre.requests === 1 ? '' : 's'}`;
  // A canary sends the first whole requests within its limit (docs/cost-and-canary.md), not all.
  if (limit !== undefined && limit < pre.toSend) out.ui.info(`dry run: ${all} in all; with --limit ${formatCount(limit)} this command would send the first whole requests within ${formatCount(limit)} of them, then stop; nothing was sent`);
  else out.ui.info(`dry run: ${all} would be sent; nothing was sent`);
}
