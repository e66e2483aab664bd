// --price-file: the user's own prices per SMS part, by country or E.164 prefix, for the estimate a
// campaign's preflight prints and --max-cost checks (docs/cost-and-canary.md). msgr ships no
// prices and asks the API for none (the spec has no price field): the file is the only source.
// Format: a CSV of `prefix,price,currency` lines, the prefix an ISO country code (GB) or an
// E.164 prefix (+44, +447, 44 7); a header line, blank lines and # comments are skipped; `;`
// instead of `,` (a spreadsheet in a language with decimal commas) takes `0,035` as a price. One
// currency per file. The longest prefix that matches a number wins; a country code ranks just
// above its calling code (+1 is a dozen countries: US beats +1, and +1 415 beats US).
import { isSupportedCountry, type CountryCode } from 'libphonenumber-js/max';
import { readFileSync } from 'node:fs';
import { fileHint, fileProblem, UsageError } from '../errors.js';

export interface PriceEntry {
  /** As written in the file (`GB`, `+44 7`). */
  readonly written: string;
  /** The line it is on (1-based). */
  readonly line: number;
  /** Price of one SMS part, in millionths of the currency unit (exact sums). */
  readonly micros: number;
}

export interface PriceTable {
  /** The file as given, for messages. */
  readonly file: string;
  readonly currency: string;
  /** E.164 digits (no +) → entry. */
  readonly prefixes: ReadonlyMap<string, PriceEntry>;
  /** ISO country → entry. */
  readonly countries: ReadonlyMap<string, PriceEntry>;
  /** The longest prefix, in digits. */
  readonly longest: number;
}

const CURRENCY = /^[A-Z]{3}$/;
const PRICE = /^\d+(?:\.\d+)?$/;
/** Six decimals: the smallest prices per part are a few ten-thousandths. */
const MICROS = 1_000_000;

function priceError(file: string, line: number, field: string, what: string, hint: string): UsageError {
  return new UsageError(`${file}, line ${line}, ${field}: ${what}`, { hint });
}

const FORMAT_HINT = 'Each line is: country code or E.164 prefix, price per SMS part, currency. For example: GB,0.035,EUR or +1415,0.0079,EUR.';

/** Splits one line: double quotes around a field are dropped. */
function fields(line: string, delimiter: string): string[] {
  return line.split(delimiter).map((f) => {
    const t = f.trim();
    return t.length >= 2 && t.startsWith('"') && t.endsWith('"') ? t.slice(1, -1).trim() : t;
  });
}

/** Reads a price file's text; every problem names the file, the line and the field. */
export function parsePriceFile(text: string, file: string): PriceTable {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n|\r/);
  const first = lines.find((l) => l.trim() !== '' && !l.trim().startsWith('#')) ?? '';
  const delimiter = first.includes(';') && !first.includes(',') ? ';' : first.includes('\t') && !first.includes(',') ? '\t' : ',';
  const prefixes = new Map<string, PriceEntry>();
  const countries = new Map<string, PriceEntry>();
  let currency: { code: string; line: number } | undefined;
  let longest = 0;
  let seenData = false;
  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    const raw = (lines[i] ?? '').trim();
    if (raw === '' || raw.startsWith('#')) continue;
    const [where = '', priceText = '', cur = '', ...rest] = fields(raw, delimiter);
    const price = delimiter === ';' ? priceText.replace(',', '.') : priceText;
    // A header: the first line whose price is not a number and names no price.
    if (!seenData && !PRICE.test(price) && !/^\d/.test(price) && /[a-z]/i.test(priceText)) {
      seenData = true;
      continue;
    }
    seenData = true;
    if (rest.some((f) => f !== '')) throw priceError(file, n, 'the line', `has ${3 + rest.length} fields, not 3`, FORMAT_HINT);
    if (where === '') throw priceError(file, n, 'prefix (field 1)', 'is empty', FORMAT_HINT);
    if (price === '') throw priceError(file, n, 'price (field 2)', 'is empty', FORMAT_HINT);
    if (!PRICE.test(price)) {
      const hint = /[^\d.,\s-]/.test(price) ? 'Write the price as a number alone (0.035); the currency goes in field 3.' : /^-/.test(price) ? 'A price is 0 or more.' : 'Write the price with a dot for decimals, for example 0.035.';
      throw priceError(file, n, 'price (field 2)', `"${priceText}" is not a price per part`, hint);
    }
    const code = cur.toUpperCase();
    if (!CURRENCY.test(code)) throw priceError(file, n, 'currency (field 3)', cur === '' ? 'is empty' : `"${cur}" is not a currency code`, 'Use the three-letter ISO 4217 code, for example EUR, USD or GBP.');
    if (currency === undefined) currency = { code, line: n };
    else if (currency.code !== code) {
      throw priceError(file, n, 'currency (field 3)', `${code} differs from ${currency.code} on line ${currency.line}`, 'Give every price in the one currency your account is billed in.');
    }
    const micros = Math.round(Number(price) * MICROS);
    const entry: PriceEntry = { written: where, line: n, micros };
    const digits = where.replace(/[\s\-().]/g, '');
    if (/^[A-Za-z]{2}$/.test(where)) {
      const cc = where.toUpperCase();
      if (!isSupportedCountry(cc)) throw priceError(file, n, 'prefix (field 1)', `"${where}" is not a country code`, 'Use a two-letter ISO 3166 code (GB, US, DE) or an E.164 prefix (+44).');
      const before = countries.get(cc);
      if (before !== undefined) throw priceError(file, n, 'prefix (field 1)', `${cc} is priced already on line ${before.line}`, 'Keep one price per country or prefix.');
      countries.set(cc, entry);
    } else if (/^(?:\+|00)?\d{1,15}$/.test(digits)) {
      const key = digits.replace(/^(?:\+|00)/, '');
      if (!/^[1-9]/.test(key)) throw priceError(file, n, 'prefix (field 1)', `"${where}" is not an E.164 prefix`, 'An E.164 prefix starts with the country calling code: +44, +1415.');
      const before = prefixes.get(key);
      if (before !== undefined) throw priceError(file, n, 'prefix (field 1)', `+${key} is priced already on line ${before.line}`, 'Keep one price per country or prefix.');
      prefixes.set(key, entry);
      longest = Math.max(longest, key.length);
    } else {
      throw priceError(file, n, 'prefix (field 1)', `"${where}" is neither a country code nor an E.164 prefix`, 'Use a two-letter ISO 3166 code (GB) or an E.164 prefix (+44, +447).');
    }
  }
  if (currency === undefined) throw new UsageError(`${file} has no prices`, { hint: FORMAT_HINT });
  return { file, currency: currency.code, prefixes, countries, longest };
}

/**
 * The price of a part to this number: the longest E.164 prefix that matches, where the number's
 * country ranks as a prefix half a digit longer than its calling code. `digits`: E.164 without
 * the +; `callingCode`: its first 1-3 digits; `country`: its ISO country.
 */
export function priceFor(table: PriceTable, digits: string, callingCode: string, country: CountryCode | undefined): PriceEntry | undefined {
  for (let k = Math.min(table.longest, digits.length); k > 0; k--) {
    if (k <= callingCode.length && country !== undefined) {
      const byCountry = table.countries.get(country);
      if (byCountry !== undefined) return byCountry;
    }
    const entry = table.prefixes.get(digits.slice(0, k));
    if (entry !== undefined) return entry;
  }
  return country !== undefined ? table.countries.get(country) : undefined;
}

/** `EUR 1,234.50` from millionths: cents, or up to four decimals for a finer amount. */
export function formatMoney(micros: number, currency: string): string {
  let value = (micros / MICROS).toFixed(4).replace(/0{1,2}$/, '');
  if (micros % 10_000 === 0) value = (micros / MICROS).toFixed(2);
  const [whole = '0', fraction = ''] = value.split('.');
  return `${currency} ${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${fraction}`;
}

export { MICROS };

/** Reads and checks a price file: `given` as the command named it, for messages. */
export function readPriceFile(path: string, given: string): PriceTable {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read the price file ${given} (${fileProblem(err)})`, { hint: fileHint(err) });
  }
  return parsePriceFile(text, given);
}
