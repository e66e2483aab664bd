// The cost estimate of a campaign: each row to send priced by --price-file (./price-file.ts) at
// its parts, summed per country and in total. Only an estimate: the account's real prices, and
// what a network charges for a part, are not known to msgr (docs/cost-and-canary.md).
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import metadataJson from 'libphonenumber-js/max/metadata';
import { formatMoney, priceFor, type PriceTable } from './price-file.js';

const CALLING_CODES = (metadataJson as unknown as { country_calling_codes: Record<string, readonly string[] | undefined> }).country_calling_codes;

/** One country's share of the estimate. */
export interface CountryCost {
  /** ISO country, or `??` when the numbering plan names none. */
  readonly country: string;
  readonly messages: number;
  readonly parts: number;
  /** Millionths of the currency; undefined when no price in the file matches (`unpriced`). */
  readonly micros: number;
  /** Messages no price matched. */
  readonly unpriced: number;
}

/** The estimate as the preflight shows it and --json carries it. */
export interface CostEstimate {
  readonly file: string;
  readonly currency: string;
  readonly countries: readonly CountryCost[];
  readonly messages: number;
  readonly parts: number;
  readonly micros: number;
  /** Messages no price matched: the total leaves them out. */
  readonly unpriced: number;
}

interface Tally {
  messages: number;
  parts: number;
  micros: number;
  unpriced: number;
}

/** Adds each row to send, then gives the estimate. */
export class CostTally {
  readonly #table: PriceTable;
  readonly #byCountry = new Map<string, Tally>();
  /** A calling code of one country (44 is GB, GG, IM and JE: not one) → that country. */
  readonly #single = new Map<string, string | null>();

  constructor(table: PriceTable) {
    this.#table = table;
  }

  /** One message of `parts` SMS parts to an E.164 number. */
  add(e164: string, parts: number): void {
    const digits = e164.slice(1);
    let callingCode = '';
    for (let k = 1; k <= 3 && callingCode === ''; k++) if (CALLING_CODES[digits.slice(0, k)] !== undefined) callingCode = digits.slice(0, k);
    const country = this.#countryOf(e164, callingCode);
    const entry = priceFor(this.#table, digits, callingCode, country as CountryCode | undefined);
    const key = country ?? '??';
    let t = this.#byCountry.get(key);
    if (t === undefined) {
      t = { messages: 0, parts: 0, micros: 0, unpriced: 0 };
      this.#byCountry.set(key, t);
    }
    t.messages++;
    t.parts += parts;
    if (entry === undefined) t.unpriced++;
    else t.micros += entry.micros * parts;
  }

  /** Countries by cost, then by messages. */
  estimate(): CostEstimate {
    const countries = [...this.#byCountry].map(([country, t]) => ({ country, ...t })).sort((a, b) => b.micros - a.micros || b.messages - a.messages || a.country.localeCompare(b.country));
    const sum = (f: (c: CountryCost) => number): number => countries.reduce((n, c) => n + f(c), 0);
    return { file: this.#table.file, currency: this.#table.currency, countries, messages: sum((c) => c.messages), parts: sum((c) => c.parts), micros: sum((c) => c.micros), unpriced: sum((c) => c.unpriced) };
  }

  #countryOf(e164: string, callingCode: string): string | undefined {
    const known = this.#single.get(callingCode);
    if (known !== undefined) return known ?? parsePhoneNumberFromString(e164)?.country;
    const list = CALLING_CODES[callingCode];
    // `001` and the like (satellite, international services) have no country.
    const one = list?.length === 1 && /^[A-Z]{2}$/.test(list[0] ?? '') ? (list[0] as string) : null;
    this.#single.set(callingCode, one);
    return one ?? parsePhoneNumberFromString(e164)?.country;
  }
}

/** Lines for people: `GB  1,200 messages, 1,200 parts  EUR 42.00`, then the total. */
export function estimateLines(e: CostEstimate): string[] {
  const money = (m: number): string => formatMoney(m, e.currency);
  const lines = e.countries.map((c) => `${c.country}: ${c.messages} message${c.messages === 1 ? '' : 's'}, ${c.parts} part${c.parts === 1 ? '' : 's'}, ${c.unpriced === c.messages ? 'no price in the file' : money(c.micros)}${c.unpriced > 0 && c.unpriced < c.messages ? ` (${c.unpriced} without a price)` : ''}`);
  return lines;
}
