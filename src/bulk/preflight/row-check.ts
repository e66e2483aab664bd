// One data row's verdict, as every preflight pass (whole file or part) and the invalid-rows report
// check it: its shape, its text, its number, and with messages of their own, its message.
import type { ColumnPlan } from '../input/columns.js';
import type { NumberCheck, NumberChecker } from '../input/number-check.js';
import type { RowMessage, RowMessagePlan } from '../compose/personalise.js';
import type { CsvFormat } from '../../csv/reader.js';
import { MOJIBAKE_HINT, mojibakeReason, repairMojibake } from '../../message/mojibake.js';
import { notUtf8Hint } from '../../message/text-file.js';
import { FLAG } from '../flag-names.js';

export type RowCheck = Omit<NumberCheck, 'cause'> & {
  readonly column?: string;
  readonly cause?: string;
  readonly message?: Extract<RowMessage, { ok: true }>;
  /** The row's fields with mangled text repaired (--fix-mojibake); undefined when none was. */
  readonly fields?: readonly string[];
};

/** Causes of invalid rows that are the file's encoding, not the people in it (no --skip-invalid for them). */
export const ENCODING_CAUSES: ReadonlySet<string> = new Set(['utf8', 'mojibake']);

export type RowChecker = (fields: readonly string[]) => RowCheck;

/** For a CSV read as UTF-8, the hint for text that is not valid UTF-8 (csvUtf8Hint); else undefined. */
export function csvUtf8Hint(format: CsvFormat): string | undefined {
  return format.encoding === 'utf8' ? notUtf8Hint(FLAG.encoding, format.crLineEnds === true) : undefined;
}

/**
 * One row's verdict: its shape (as many fields as the header; extra empty ones are tolerated,
 * a trailing comma is common, and so are missing ones under the header's trailing columns with no
 * name, which nothing reads: some exporters, and rows added by hand, leave their delimiters out), its text (not valid UTF-8 shows as U+FFFD), then its number.
 * `utf8Hint` (csvUtf8Hint): the hint for text that is not valid UTF-8; undefined when the file is
 * not read as UTF-8. Text mangled by a spreadsheet round trip (message/mojibake.ts) in the cells
 * a message is made of (variables, placeholders, --text-column, --from-column) makes the row
 * invalid, naming the repaired text; `fixMojibake`: the row goes on with it repaired.
 */
export function createRowChecker(columns: ColumnPlan, checker: NumberChecker, utf8Hint: string | undefined, message?: RowMessagePlan, fixMojibake = false): RowChecker {
  const width = columns.header.length;
  let least = width;
  while (least > 0 && columns.unnamed.includes(least - 1)) least--;
  const used = [...new Set([columns.msisdn, ...columns.vars, ...columns.meta, ...(message?.columns ?? [])])];
  const texts = [...new Set([...columns.vars, ...(message?.columns ?? [])])];
  return (raw) => {
    let fields = raw;
    let repaired: string[] | undefined;
    if (fields.length !== width && (fields.length < least || fields.slice(width).some((f) => f !== ''))) {
      return {
        verdict: 'invalid',
        e164: '',
        cause: 'fields',
        reason: `has ${fields.length} field${fields.length === 1 ? '' : 's'} where the header has ${width}`,
        hint: `Check the delimiter (${FLAG.delimiter}) and that fields holding the delimiter are quoted.`,
      };
    }
    if (utf8Hint !== undefined) {
      for (const i of used) {
        if ((fields[i] as string).includes('\uFFFD')) {
          return { verdict: 'invalid', e164: '', cause: 'utf8', column: columns.header[i] ?? '', reason: 'is not valid UTF-8 text', hint: utf8Hint };
        }
      }
    }
    for (const i of texts) {
      const text = fields[i] as string;
      const fixed = repairMojibake(text);
      if (fixed === undefined) continue;
      if (!fixMojibake) return { verdict: 'invalid', e164: '', cause: 'mojibake', column: columns.header[i] ?? '', reason: mojibakeReason(text, fixed), hint: MOJIBAKE_HINT };
      repaired ??= [...fields];
      repaired[i] = fixed;
    }
    if (repaired !== undefined) fields = repaired;
    const r = checker.check(fields[columns.msisdn] as string);
    if (r.verdict === 'invalid') return headerAgain(fields, columns) ?? { ...r, column: columns.msisdnName };
    // Millions of rows: no object made for a row with nothing repaired and one shared message.
    if (message === undefined) return repaired !== undefined ? { ...r, fields: repaired } : r;
    const m = message.message(fields);
    if (!m.ok) return { verdict: 'invalid', e164: '', cause: m.cause, column: m.column, reason: m.reason, ...(m.hint !== undefined ? { hint: m.hint } : {}) };
    return repaired !== undefined ? { ...r, message: m, fields: repaired } : { ...r, message: m };
  };
}

export const HEADER_AGAIN_HINT = 'Two files were joined, each with its header: delete the header row in the middle (and check that the rows after it are the ones meant), or export the list again as one file.';

/**
 * The header row again, in the middle of the file: two exports joined (`cat a.csv b.csv`), the
 * second one's header read as a recipient. Said as such rather than as a number that is not
 * one. Known by its number cell: the number column's name, or its row: the header's names.
 */
function headerAgain(fields: readonly string[], columns: ColumnPlan): RowCheck | undefined {
  const name = (s: string | undefined): string => (s ?? '').trim().toLowerCase();
  const cell = name(fields[columns.msisdn]);
  // Columns without a header (--no-header) are named 1, 2, …: no row repeats those.
  if (!/[a-z]/.test(cell)) return undefined;
  const header = columns.header.map(name);
  const same = fields.filter((f, i) => name(f) !== '' && name(f) === header[i]).length;
  if (cell !== name(columns.msisdnName) && same < Math.max(2, header.filter((h) => h !== '').length / 2)) return undefined;
  return { verdict: 'invalid', e164: '', cause: 'header', column: columns.msisdnName, reason: `is the header row again ("${(fields[columns.msisdn] ?? '').trim()}"): two files joined?`, hint: HEADER_AGAIN_HINT };
}
