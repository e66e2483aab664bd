// src/bulk/input/: what a campaign reads from its CSV file (the file itself is read by src/csv/).
// columns.ts (this file) finds the number column, variables and metaData; number-check.ts checks
// numbers as `send` does; number-set.ts holds millions of them; exclude.ts reads an opt-out list;
// identity.ts knows a file again. It imports no other folder of the engine.
//
// Which CSV column is the number, which become `recipients[].variables` and which
// `recipients[].metaData` (docs/campaign-input.md: "Input"), and the recipient JSON built straight from a row's
// fields: millions of rows go through `recipientJson`, so it concatenates pre-encoded keys and
// JSON.stringify'd values instead of building objects.
import { UsageError } from '../../errors.js';
import { looksLikeNumber } from '../../message/numbers.js';
import { columnKey, findColumn, headerNames, shownName } from '../../message/placeholders.js';
import { chooseNumberColumn, cleanName, noSuchColumn, NUMBER_COLUMNS_SHOWN, type NumberColumnChoice } from '../../csv/header.js';
import { phoneLineEnds } from '../../message/text-file.js';
import { FLAG } from '../flag-names.js';
import { quoted } from '../../output/sanitize.js';

export interface ColumnOptions {
  readonly msisdnColumn?: string | undefined;
  /** undefined: every other column; [] none. */
  readonly varColumns?: readonly string[] | undefined;
  readonly metaColumns?: readonly string[] | undefined;
  /** Columns the message itself uses (placeholders, --text-column): not default variables. */
  readonly messageColumns?: readonly string[] | undefined;
}

export interface ColumnPlan {
  readonly header: readonly string[];
  readonly msisdn: number;
  readonly msisdnName: string;
  /** How the number column was chosen (by --msisdn-column, or by its name). */
  readonly numberColumn: NumberColumnChoice;
  readonly vars: readonly number[];
  readonly meta: readonly number[];
  /** `"name":` for each of `vars` / `meta`, JSON-encoded once. */
  readonly varKeys: readonly string[];
  readonly metaKeys: readonly string[];
  /** Columns left out of the variables because their header is empty. */
  readonly unnamed: readonly number[];
}

/** Where the delimiter a file is read with came from: --delimiter, a `sep=` first line, or a guess. */
export type DelimiterSource = 'flag' | 'sep' | 'detected';

/**
 * A header whose names hold another delimiter, the one the file is more likely split by: read as
 * one column (`Mobile,Name` read with `;`, as a `sep=;` line or --delimiter said), or as columns
 * split inside their names (`Phone\tLast, First` read with `,`). The hint for it, else undefined.
 */
function delimiterHint(header: readonly string[], delimiter: string | undefined, source: DelimiterSource): string | undefined {
  if (delimiter === undefined) return undefined;
  const name = (d: string): string => (d === '\t' ? 'tab' : `"${d}"`);
  const flag = (d: string): string => `${FLAG.delimiter} ${d === '\t' ? 'tab' : `'${d}'`}`;
  const others = [',', ';', '\t', '|'].filter((d) => d !== delimiter);
  if (header.length === 1) {
    const other = others.find((d) => (header[0] as string).includes(d));
    if (other === undefined) return undefined;
    // A guess is "," unless the header line has more ";" or tabs outside quotes (src/csv/reader.ts, sniffDelimiter).
    const why = source === 'flag' ? `as ${FLAG.delimiter} says` : source === 'sep' ? `as its first line "sep=${delimiter}" says` : 'the default, as its header line has no ";" or tab outside quotes';
    return `Its header is one column, ${quoted(header[0] ?? '')}: the file is read with ${name(delimiter)} between columns (${why}). If ${name(other)} separates them, give ${flag(other)}.`;
  }
  // The candidate the most names hold (the first of a tie, in the order above).
  let other: string | undefined;
  let most = 0;
  for (const d of others) {
    const n = header.filter((h) => h.includes(d)).length;
    if (n > most) {
      other = d;
      most = n;
    }
  }
  if (other === undefined) return undefined;
  const why = source === 'flag' ? `as ${FLAG.delimiter} says` : source === 'sep' ? `as its first line "sep=${delimiter}" says` : 'guessed from its header line';
  const holding = header.filter((h) => h.includes(other)).slice(0, 3).map((h) => JSON.stringify(h)).join(', ');
  return `The file is read with ${name(delimiter)} between columns (${why}), and ${most === 1 ? 'a column name holds' : `${most} column names hold`} ${name(other)}: ${holding}${most > 3 ? ', …' : ''}. If ${name(other)} separates the columns, give ${flag(other)}.`;
}

/** `delimiter`: the one the file is read with and where it came from, to explain a header read as one column. */
export function planColumns(rawHeader: readonly string[], options: ColumnOptions, fileLabel: string, delimiter?: string, source: DelimiterSource = 'flag'): ColumnPlan {
  const header = rawHeader.map(cleanName);
  // Compared as names are searched (columnKey): "First name" and "First\nname" are one name.
  const lower = header.map(columnKey);
  const shown = header.map((h) => JSON.stringify(h)).join(', ');
  const wrongDelimiter = delimiterHint(header, delimiter, source);
  const find = (name: string, flag: string): number => {
    const first = findColumn(header, cleanName(name), flag, fileLabel);
    if (first === -1) {
      const err = noSuchColumn(flag, fileLabel, name, header);
      throw wrongDelimiter !== undefined ? new UsageError(err.message, { hint: wrongDelimiter }) : err;
    }
    return first;
  };

  let msisdn: number;
  let numberColumn: NumberColumnChoice;
  if (options.msisdnColumn !== undefined) {
    msisdn = find(options.msisdnColumn, FLAG.msisdnColumn);
    numberColumn = { name: header[msisdn] ?? '', how: 'flag', over: [] };
  } else {
    ({ index: msisdn, choice: numberColumn } = chooseNumberColumn(header, fileLabel, FLAG.msisdnColumn));
    if (msisdn === -1) {
      // A list without a header: its first line is already a recipient.
      const headerless = header.some((h) => looksLikeNumber(h));
      throw new UsageError(`${fileLabel} has no number column: none of its headers is ${NUMBER_COLUMNS_SHOWN}`, {
        hint: wrongDelimiter !== undefined
          ? wrongDelimiter
          : headerless
          ? `Its header line (${shown}) looks like a recipient, not a header: add ${FLAG.noHeader} to read it as one (the number is then column 1; name another with ${FLAG.msisdnColumn} 2).`
          : `Name the column with ${FLAG.msisdnColumn}. The header has: ${header.includes('') ? `${headerNames(header)}; a column with no name cannot be chosen: give the number column a name in the header (phone, say)` : shown}.`,
      });
    }
  }

  const meta = (options.metaColumns ?? []).map((n) => find(n, FLAG.metaColumns));
  let vars: number[];
  const unnamed: number[] = [];
  if (options.varColumns !== undefined) {
    vars = options.varColumns.map((n) => find(n, FLAG.varColumns));
    // Columns with no name are read by nothing here either: a row may leave them out, and a
    // value typed under one is said (bulk/preflight/range.ts).
    for (let i = 0; i < header.length; i++) if (header[i] === '' && i !== msisdn && !meta.includes(i) && !vars.includes(i)) unnamed.push(i);
  } else {
    vars = [];
    const inMessage = new Set((options.messageColumns ?? []).map((n) => columnKey(cleanName(n))));
    for (let i = 0; i < header.length; i++) {
      if (i === msisdn || meta.includes(i) || inMessage.has(lower[i] as string)) continue;
      if (header[i] === '') unnamed.push(i);
      else vars.push(i);
    }
  }
  for (const [flag, list] of [
    [FLAG.varColumns, vars],
    [FLAG.metaColumns, meta],
  ] as const) {
    if (list.includes(msisdn)) throw new UsageError(`${flag}: "${header[msisdn]}" is the number column`);
    // A column named twice in the flag; every other column by default is checked below, by name.
    if (flag === FLAG.varColumns && options.varColumns === undefined) continue;
    const names = list.map((i) => lower[i]);
    const dup = names.find((n, i) => names.indexOf(n) !== i);
    if (dup !== undefined) throw new UsageError(`${flag}: "${dup}" is named twice (column names are compared ignoring case and spacing)`);
  }
  const dupAt = vars.find((v, i, a) => a.findIndex((w) => lower[w] === lower[v]) !== i);
  if (dupAt !== undefined) {
    const which = vars.filter((v) => lower[v] === lower[dupAt]).map((v) => `${v + 1} "${shownName(header[v] ?? '')}"`);
    throw new UsageError(`${fileLabel} has more than one column "${shownName(header[dupAt] ?? '')}" (columns ${which.join(', ')}); each would be the same variable`, {
      hint: `Rename one in the header, or choose the variables with ${FLAG.varColumns}.`,
    });
  }
  return {
    header,
    msisdn,
    msisdnName: header[msisdn] ?? '',
    numberColumn,
    vars,
    meta,
    varKeys: vars.map((i) => `${asciiJson(JSON.stringify(header[i]))}:`),
    metaKeys: meta.map((i) => `${asciiJson(JSON.stringify(header[i]))}:`),
    unnamed,
  };
}

const NON_ASCII = /[^\x00-\x7f]/;
const NON_ASCII_ALL = /[^\x00-\x7f]/g;
const escapeUnit = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * JSON text in ASCII only: characters outside it as \uXXXX escapes (the same JSON value). A body
 * that is all ASCII is a one-byte string to a JavaScript server's JSON parser and to the
 * encoders on the way, measurably cheaper than the two-byte string one accented name makes of it.
 */
export function asciiJson(json: string): string {
  return NON_ASCII.test(json) ? json.replace(NON_ASCII_ALL, escapeUnit) : json;
}

/**
 * One `recipients[]` entry as JSON, from the normalised number and the row's fields. A variable's
 * line break is sent as one LF, as in a rendered text (docs/personalised.md: "Personalised messages"): the API
 * puts variables into the message, where a CR would cost a character. metaData is sent as written.
 */
export function recipientJson(plan: ColumnPlan, e164: string, fields: readonly string[]): string {
  let json = `{"msisdn":"${e164}"`;
  const { vars, meta, varKeys, metaKeys } = plan;
  if (vars.length > 0) {
    json += ',"variables":{';
    for (let i = 0; i < vars.length; i++) {
      if (i > 0) json += ',';
      json += (varKeys[i] as string) + asciiJson(JSON.stringify(phoneLineEnds(fields[vars[i] as number] ?? '')));
    }
    json += '}';
  }
  if (meta.length > 0) {
    json += ',"metaData":{';
    for (let i = 0; i < meta.length; i++) {
      if (i > 0) json += ',';
      json += (metaKeys[i] as string) + asciiJson(JSON.stringify(fields[meta[i] as number] ?? ''));
    }
    json += '}';
  }
  return `${json}}`;
}

