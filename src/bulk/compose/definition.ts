// "The same message" (docs/reruns.md: "Changed files and follow-up campaigns"): what a run sends, as
// its journal records it, and how two runs' messages differ. A resume, --skip-sent, --restart and
// a new run of a finished file each ask it.
import type { PersonalSpec, RunHeader } from '../journal/records.js';
import { messageText } from './base-request.js';
import { columnKey } from '../../message/placeholders.js';
import { messageDifferences } from '../../message/same-message.js';
import { FLAG } from '../flag-names.js';

/** What a run sends: the request without recipients, and how each row's message is made. */
export interface MessageDefinition {
  readonly message: Record<string, unknown>;
  /** The journal's per-row spec (bulk/compose/personalise.ts); absent in journals of earlier msgr versions. */
  readonly personal?: PersonalSpec | undefined;
}

/**
 * "The same message" when rows may have messages of their own: the same definition, not the same
 * rendered texts (docs/reruns.md: "Changed files and follow-up campaigns"). The request as above
 * (its text is the template, placeholders unfilled), the same --text-column and --from-column,
 * and, for a text with placeholders, whether they are filled in (--no-render). --max-parts is
 * not part of it: it decides which rows are sent, not what they say. Returns what differs.
 */
export function definitionDifferences(a: MessageDefinition, b: MessageDefinition): string[] {
  const diffs = messageDifferences(a.message, b.message);
  const ra = perRow(a);
  const rb = perRow(b);
  if (ra.textColumn !== rb.textColumn) diffs.push(FLAG.textColumn);
  if (ra.fromColumn !== rb.fromColumn) diffs.push(FLAG.fromColumn);
  // Said only of the same text: another text differs already, whatever is done to it.
  if (ra.render !== rb.render && !diffs.includes('body')) diffs.push(FLAG.noRender);
  return diffs;
}

function perRow(d: MessageDefinition): { textColumn: string | null; fromColumn: string | null; render: boolean | null } {
  const p = d.personal;
  const text = messageText(d.message);
  return {
    // Column names are compared as the header is searched (columnKey).
    textColumn: p?.textColumn != null ? columnKey(p.textColumn) : null,
    fromColumn: p?.fromColumn != null ? columnKey(p.fromColumn) : null,
    // Only a text with `{{` has placeholders or `\{{`; before messages per row, none was filled in.
    render: text !== undefined && text.includes('{{') ? (p?.render ?? false) : null,
  };
}

/** The definition a journal records. */
export function journaledDefinition(header: RunHeader): MessageDefinition {
  return { message: header.message, personal: header.shape.personal };
}

