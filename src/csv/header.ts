// What a CSV file's header names say (docs/campaign-input.md: "Input"): which column holds the numbers,
// by its name, for a campaign and an opt-out list alike; a name as --exclude-column compares it;
// the error for a column a flag names and the file lacks.
import { UsageError } from '../errors.js';
import { closestName, headerNames, shownName } from '../message/placeholders.js';

/** A header name as --exclude-column and a resume compare it: lower case, letters and digits only. */
export function headerKey(name: string): string {
  return cleanName(name)
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
  return cleanName(name)
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
  const names = header.map(cleanName);
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

/** A header name without a byte-order mark or the spaces around it. */
export function cleanName(name: string): string {
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

