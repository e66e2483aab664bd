// Mail-merge placeholders in a bulk message's text (docs/personalised.md: "Personalised messages"):
//   {{column}}           the row's value of that column (surrounding spaces of the value dropped)
//   {{column|default}}   the same, or `default` when the value is empty
//   \{{                  a literal `{{`
// Spaces just inside the braces and around `|` are ignored (`{{ first_name | there }}`), so a
// name or a default never starts or ends with a space. Names match column headers ignoring case,
// as the column flags do. A value that is empty (or only spaces, or zero-width characters) with no default makes the row
// invalid rather than sending "Hi ," to a customer.
//
// The text is parsed once into literals and slots; binding to the header turns names into column
// indexes (an unknown name is a usage error with the nearest header), and rendering a row is then
// one concatenation per slot.
import { UsageError } from '../errors.js';
import { isBlank, trimInvisible, ZERO_WIDTH } from './invisible.js';

export interface Placeholder {
  /** The name as written, spaces trimmed. */
  readonly name: string;
  /** undefined: no `|`; a value is required. */
  readonly fallback: string | undefined;
  /** The placeholder as written, for messages. */
  readonly source: string;
}

export interface ParsedText {
  /** `literals.length === slots.length + 1`: literal, slot, literal, …, literal. */
  readonly literals: readonly string[];
  readonly slots: readonly Placeholder[];
}

export type RenderResult = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly column: string; readonly reason: string };

export interface BoundText {
  /** The distinct columns the text uses, in header order. */
  readonly columns: readonly number[];
  /** The text has no placeholder: every row gets `literals[0]`. */
  readonly constant: boolean;
  render(fields: readonly string[]): RenderResult;
}

const OPEN = '{{';
const CLOSE = '}}';

/** Parses a text once; `flag` names where it came from in errors (`--text`, `--text-file`). */
export function parsePlaceholders(text: string, flag: string): ParsedText {
  const literals: string[] = [];
  const slots: Placeholder[] = [];
  let literal = '';
  let i = 0;
  for (;;) {
    const open = text.indexOf(OPEN, i);
    if (open === -1) {
      literal += text.slice(i);
      break;
    }
    if (open > 0 && text.charCodeAt(open - 1) === 0x5c /* \ */) {
      // `\{{`: the braces are text, the backslash goes.
      literal += `${text.slice(i, open - 1)}${OPEN}`;
      i = open + OPEN.length;
      continue;
    }
    literal += text.slice(i, open);
    const close = text.indexOf(CLOSE, open + OPEN.length);
    const nested = text.indexOf(OPEN, open + OPEN.length);
    if (close !== -1 && nested !== -1 && nested < close && text.lastIndexOf('|', nested) > open) {
      // `{{Name|{{Other}}}}`: a default is text, not another placeholder.
      throw new UsageError(`${flag}: the placeholder at "${excerpt(text, open)}" has a placeholder in its default`, {
        hint: 'A default is plain text: write {{column|default}}, not {{column|{{other}}}}.',
      });
    }
    if (close === -1 || (nested !== -1 && nested < close)) {
      throw new UsageError(`${flag}: the placeholder at "${excerpt(text, open)}" has no closing }}`, {
        hint: 'Write {{column}} or {{column|default}}; for a literal {{ write \\{{.',
      });
    }
    const inner = text.slice(open + OPEN.length, close);
    const bar = inner.indexOf('|');
    const name = (bar === -1 ? inner : inner.slice(0, bar)).trim();
    const source = text.slice(open, close + CLOSE.length);
    if (name === '') {
      throw new UsageError(`${flag}: ${source} names no column`, { hint: 'Write {{column}} with a column name from the CSV header; for a literal {{ write \\{{.' });
    }
    literals.push(literal);
    literal = '';
    slots.push({ name, fallback: bar === -1 ? undefined : inner.slice(bar + 1).trim(), source });
    i = close + CLOSE.length;
  }
  literals.push(literal);
  return { literals, slots };
}

/** The distinct placeholder names, in order of first use. */
export function placeholderNames(parsed: ParsedText): string[] {
  const seen = new Set<string>();
  const names: string[] = [];
  for (const s of parsed.slots) {
    const key = columnKey(s.name);
    if (!seen.has(key)) {
      seen.add(key);
      names.push(s.name);
    }
  }
  return names;
}

/**
 * Ties each placeholder to a column of `header` (names compared ignoring case). A name that is
 * not a column is a usage error naming the closest header, so a typo stops the run before the
 * preflight rather than making every row invalid.
 */
export function bindPlaceholders(parsed: ParsedText, header: readonly string[], flag: string, fileLabel: string): BoundText {
  const indexes: number[] = [];
  for (const s of parsed.slots) {
    const at = findColumn(header, s.name, `${flag}: ${s.source}`, fileLabel);
    if (at === -1) {
      const near = closestName(s.name, header);
      const shown = headerNames(header);
      throw new UsageError(`${flag}: ${s.source} names no column of ${fileLabel}${near !== undefined ? `; did you mean {{${near}}}?` : ''}`, {
        hint: `Its header has: ${shown}. For a literal {{ write \\{{.`,
      });
    }
    indexes.push(at);
  }
  const { literals, slots } = parsed;
  const columns = [...new Set(indexes)].sort((a, b) => a - b);
  if (slots.length === 0) {
    const text = literals[0] ?? '';
    return { columns, constant: true, render: () => ({ ok: true, text }) };
  }
  const names = indexes.map((i) => header[i]?.trim() ?? '');
  return {
    columns,
    constant: false,
    render(fields) {
      let text = literals[0] as string;
      for (let k = 0; k < slots.length; k++) {
        let value = trimInvisible(fields[indexes[k] as number] ?? '');
        if (isBlank(value)) {
          const fallback = (slots[k] as Placeholder).fallback;
          if (fallback === undefined) {
            const name = names[k] as string;
            return { ok: false, column: name, reason: `is empty and {{${(slots[k] as Placeholder).name}}} has no default (write {{${name}|…}} to give one, or fill the cell)` };
          }
          value = fallback;
        }
        text += value + (literals[k + 1] as string);
      }
      return { ok: true, text };
    },
  };
}

/** A header name as a message shows it, on one line: a line break typed in the cell is a space. */
export function shownName(name: string): string {
  return name.replace(/\s+/g, ' ').trim();
}

/**
 * A header's names for a hint: `"Mobile", "Name"`. Columns with no name (a spreadsheet's empty
 * trailing columns) are counted, not shown as `""`: nothing can name them.
 */
export function headerNames(header: readonly string[]): string {
  const named = header.map(shownName).filter((h) => h !== '');
  const unnamed = header.length - named.length;
  const shown = named.map((h) => JSON.stringify(h)).join(', ');
  return unnamed === 0 ? shown : `${shown} (and ${unnamed} column${unnamed === 1 ? '' : 's'} with no name)`;
}

/**
 * A column name as names are compared: case, surrounding spaces and invisible differences
 * ignored. Spreadsheets copy a no-break or other Unicode space, or a zero-width character, into a
 * header where it looks like a plain space or nothing: `{{First name}}` must find "First name"
 * with a no-break space, not suggest a name that looks the same. A line break typed in a header
 * cell (Alt+Enter in Excel) shows as a space on screen, so it is one, and a run of spaces is one.
 */
export function columnKey(name: string): string {
  return name
    .replace(/[\t\n\r\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/g, ' ')
    .replace(ZERO_WIDTH, '')
    .replace(/ {2,}/g, ' ')
    .trim()
    .toLowerCase();
}

/**
 * The column `name` means in `header`, compared by columnKey (ignoring case and surrounding spaces); -1 for none.
 * A name two columns share is refused: the message could mean either (docs/personalised.md: "Personalised
 * messages").
 */
export function findColumn(header: readonly string[], name: string, flag: string, fileLabel: string): number {
  const want = columnKey(name);
  const lower = header.map(columnKey);
  const at = lower.indexOf(want);
  if (at !== -1 && lower.indexOf(want, at + 1) !== -1) {
    const which = lower.flatMap((h, i) => (h === want ? [`${i + 1} "${shownName(header[i] ?? '')}"`] : []));
    throw new UsageError(`${flag}: ${fileLabel} has more than one column "${name.trim()}" (columns ${which.join(', ')})`, {
      hint: 'Rename one of them in the header (names are compared ignoring case).',
    });
  }
  return at;
}

/**
 * The header name closest to `name` (case ignored; a swap of two neighbours counts as one edit),
 * when it is close enough to be a typo: at most one edit in four characters, and at least one.
 */
export function closestName(name: string, header: readonly string[]): string | undefined {
  const want = columnKey(name);
  // A name of one or two characters is one edit from most short names (`{{3}}` from column 1 of
  // a file read with --no-header): no suggestion rather than a wrong one.
  if (want.length <= 2) return undefined;
  const limit = Math.max(1, Math.floor(want.length / 4));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const h of header) {
    const d = editDistance(want, columnKey(h));
    if (d < bestDistance) {
      best = shownName(h);
      bestDistance = d;
    }
  }
  return best;
}

/** Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps. */
export function editDistance(a: string, b: string): number {
  const s = [...a];
  const t = [...b];
  const rows: number[][] = [];
  for (let i = 0; i <= s.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= t.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const prev = rows[i - 1] as number[];
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let d = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) d = Math.min(d, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      row.push(d);
    }
    rows.push(row);
  }
  return (rows[s.length] as number[])[t.length] as number;
}

/** Up to 20 characters from `at`, for an error message. */
function excerpt(text: string, at: number): string {
  const chars = [...text.slice(at, at + 40)];
  return chars.length > 20 ? `${chars.slice(0, 20).join('')}…` : chars.join('');
}

/**
 * `{name}` in single braces where `name` is a column: sent as written, which is rarely what was
 * meant (other tools write placeholders that way), so the caller warns.
 */
export function singleBraceColumns(text: string, header: readonly string[]): string[] {
  const lower = new Set(header.map(columnKey));
  const found: string[] = [];
  for (const m of text.matchAll(/(?<!\{)\{([^{}\n]+)\}(?!\})/g)) {
    const name = (m[1] as string).trim();
    if (lower.has(columnKey(name)) && !found.some((f) => columnKey(f) === columnKey(name))) found.push(name);
  }
  return found;
}
