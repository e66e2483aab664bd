// Which CSV column is the number, which become `recipients[].variables` and which
// `recipients[].metaData` (docs/campaign-input.md: "Input"), and the recipient JSON built straight from a row's
// fields: millions of rows go through `recipientJson`, so it concatenates pre-encoded keys and
// JSON.stringify'd values instead of building objects.
import { UsageError } from '../../errors.js';
import { looksLikeNumber } from '../../message/numbers.js';
import { closestName, columnKey, findColumn, headerNames, shownName } from '../../message/placeholders.js';
import { phoneLineEnds } from '../../message/text-file.js';
import { FLAG } from '../flag-names.js';

/** A header name as --exclude-column and a resume compare it: lower case, letters and digits only. */
export function headerKey(name: string): string {
  return clean(name)
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
}

// The number column by its name (docs/campaign-input.md: "Input"). A header is a candidate when its words are
// all number words and qualifiers (`Phone`, `Mobile No.`, `Téléphone portable`, `Home phone 2`,
// `PhoneNumber`), compared without case, accents or punctuation; `Phone type` or `Order number`
// is not. One candidate is the column. Of several, the one whose name says mobile is taken over
// generic ones (Phone, Tel: often a landline, and an SMS to a landline usually fails); any other
// choice (two generic names, two mobile ones) is not guessed: the run stops and lists them.

/** Words that say mobile, in the languages of spreadsheet exports (accents dropped). */
const MOBILE_WORDS = ['mobile', 'mobil', 'mobiel', 'mobila', 'mobilni', 'mob', 'cell', 'cellular', 'cellphone', 'celular', 'cellulare', 'cel', 'handy', 'portable', 'movil', 'gsm', 'natel', 'msisdn'];
/** Words that name a phone number without saying which kind. */
const PHONE_WORDS = ['phone', 'telephone', 'tel', 'tele', 'telefon', 'telefono', 'telefone', 'telf', 'tlf', 'tfn', 'fon', 'number', 'to', 'landline', 'festnetz'];
/** Words that may stand beside them in a number column's name. */
const QUALIFIERS = [
  'number', 'no', 'nr', 'num', 'nummer', 'numero', 'numer', 'n', 'de', 'du', 'da', 'di', 'do', 'des', 'del', 'of', 'the', 'e',
  'home', 'work', 'office', 'business', 'private', 'privat', 'prive', 'personal', 'main', 'primary', 'secondary', 'other', 'alt',
  'alternative', 'alternate', 'direct', 'contact', 'fixe', 'fixed', 'fijo', 'fisso', 'line', 'international', 'intl', 'e164',
];
const SUFFIXES = ['number', 'no', 'nr', 'num', 'nummer', 'phone', 'telefon', 'tel'];
const compounds = (words: readonly string[]): string[] => words.flatMap((w) => [w, ...SUFFIXES.map((s) => `${w}${s}`)]);
const MOBILE = new Set(compounds(MOBILE_WORDS));
const PHONE = new Set(compounds(PHONE_WORDS));
const ALLOWED = new Set([...MOBILE, ...PHONE, ...QUALIFIERS]);

/** A header name's words: accents, case and punctuation dropped; `PhoneNumber2` is phone, number, 2. */
export function headerWords(name: string): string[] {
  return clean(name)
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{L})(\p{N})|(\p{N})(\p{L})/gu, '$1$3 $2$4')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '');
}

/** Whether a header names a number column, and of which kind; undefined when it does not. */
export function numberColumnKind(name: string): 'mobile' | 'phone' | undefined {
  const words = headerWords(name);
  if (words.length === 0 || !words.every((w) => ALLOWED.has(w) || /^\d+$/.test(w))) return undefined;
  if (words.some((w) => MOBILE.has(w))) return 'mobile';
  return words.some((w) => PHONE.has(w)) ? 'phone' : undefined;
}

/** How the number column was chosen: said by the preflight, and in --json (`numberColumn`). */
export interface NumberColumnChoice {
  readonly name: string;
  /** flag: --msisdn-column (or the run's journal); only: the one header that names a number; mobile: the one of several whose name says mobile. */
  readonly how: 'flag' | 'only' | 'mobile';
  /** With `mobile`: the other candidates, passed over. */
  readonly over: readonly string[];
}

/**
 * The number column of a header by name (see above): its index and how it was chosen; -1 when no
 * header names a number. Several candidates that no mobile name settles are a UsageError whose
 * hint gives `flag` with each of them (--msisdn-column, or --exclude-column for an opt-out list).
 */
export function chooseNumberColumn(header: readonly string[], fileLabel: string, flag: string): { index: number; choice: NumberColumnChoice } {
  const names = header.map(clean);
  const found = names.flatMap((name, index) => {
    const kind = numberColumnKind(name);
    return kind !== undefined ? [{ index, name, kind }] : [];
  });
  const first = found[0];
  if (first === undefined) return { index: -1, choice: { name: '', how: 'only', over: [] } };
  if (found.length === 1) return { index: first.index, choice: { name: first.name, how: 'only', over: [] } };
  const mobiles = found.filter((c) => c.kind === 'mobile');
  const mobile = mobiles[0];
  if (mobiles.length === 1 && mobile !== undefined) {
    return { index: mobile.index, choice: { name: mobile.name, how: 'mobile', over: found.filter((c) => c !== mobile).map((c) => c.name) } };
  }
  const listed = found.map((c) => `"${shownName(c.name)}"`);
  const why = mobiles.length === 0 ? 'and none of their names says mobile' : `and ${mobiles.length} of their names say mobile`;
  throw new UsageError(`${fileLabel} has ${found.length} columns that could hold the numbers, ${listed.slice(0, -1).join(', ')} and ${listed[listed.length - 1] ?? ''}, ${why}: msgr does not guess which one to message; nothing was sent`, {
    hint: `Name the column to send to, with one of:\n${found.map((c) => `        ${flag} ${shellWord(c.name)}`).join('\n')}`,
  });
}

/** A column name as a shell word (quoted when it must be). */
function shellWord(name: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(name) ? name : `'${name.replace(/'/g, "'\\''")}'`;
}

/** The names a number column is found by, for messages. */
export const NUMBER_COLUMNS_SHOWN = 'phone, mobile, cell, tel, telephone, number, msisdn, handy, portable, móvil, celular, … (with no, nr, number, home, work…)';

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

function clean(name: string): string {
  return name.replace(/^\uFEFF/, '').trim();
}

/**
 * The error for a flag naming a column the file lacks, with the nearest header name when one is
 * close (`--text-column mesage` → did you mean "message"?) and every header name.
 */
export function noSuchColumn(flag: string, fileLabel: string, name: string, header: readonly string[], line = 'Its header has'): UsageError {
  const near = closestName(name, header);
  return new UsageError(`${flag}: ${fileLabel} has no column "${name}"${near !== undefined ? `; did you mean "${near}"?` : ''}`, {
    hint: `${line}: ${headerNames(header)}.`,
  });
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
    // A guess is "," unless the header line has more ";" or tabs outside quotes (bulk/input/csv.ts, sniffDelimiter).
    const why = source === 'flag' ? `as ${FLAG.delimiter} says` : source === 'sep' ? `as its first line "sep=${delimiter}" says` : 'the default, as its header line has no ";" or tab outside quotes';
    return `Its header is one column, ${JSON.stringify(header[0])}: the file is read with ${name(delimiter)} between columns (${why}). If ${name(other)} separates them, give ${flag(other)}.`;
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
  const header = rawHeader.map(clean);
  // Compared as names are searched (columnKey): "First name" and "First\nname" are one name.
  const lower = header.map(columnKey);
  const shown = header.map((h) => JSON.stringify(h)).join(', ');
  const wrongDelimiter = delimiterHint(header, delimiter, source);
  const find = (name: string, flag: string): number => {
    const first = findColumn(header, clean(name), flag, fileLabel);
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
    const inMessage = new Set((options.messageColumns ?? []).map((n) => columnKey(clean(n))));
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

