// Phone numbers to E.164 (docs/contract.md: "Requests"). libphonenumber-js with
// `max` metadata: the default `min` metadata cannot tell valid from merely possible numbers
// (docs/dependencies.md: "libphonenumber-js").
import { isSupportedCountry, parsePhoneNumberFromString, validatePhoneNumberLength, type CountryCode, type PhoneNumber } from 'libphonenumber-js/max';
// The very object libphonenumber-js/max uses: each calling code lists its main country first.
import metadataJson from 'libphonenumber-js/max/metadata';
import { UsageError } from '../errors.js';

export type NumberResult =
  | {
      readonly ok: true;
      readonly e164: string;
      /** Possible, outside the known numbering plan, and accepted: --allow-unlisted-numbers. */
      readonly unlisted?: true;
      /** A fixed line by its numbering plan (libphonenumber-js type FIXED_LINE): SMS to it usually fails. */
      readonly landline?: true;
    }
  | { readonly ok: false; readonly reason: string; readonly cause: NumberProblem; readonly needsCountry?: boolean; readonly hint?: string };

/**
 * Why a number was refused, without the number itself: problems of many rows are grouped by it.
 * `no-plus`: digits that are a valid international number once a `+` is put in front.
 * `unlisted`: possible (a length the country uses) but in no range of its numbering plan.
 * `mistyped`: possible but outside the plan the way a slip of the keyboard or the spreadsheet
 * makes it: one digit missing or one too many, or a national 0 kept after the country code.
 * `two-numbers`: a cell (or a --to) holding two numbers or more (`07911 123457 / 07400 123458`),
 * which would otherwise read as one number too long.
 */
export type NumberProblem = 'empty' | 'scientific' | 'decimal' | 'formula' | 'characters' | 'national' | 'no-plus' | 'too-long' | 'impossible' | 'unlisted' | 'mistyped' | 'two-numbers';

export interface NumberOptions {
  /**
   * Accept possible numbers in no range of the known numbering plan (--allow-unlisted-numbers):
   * for ranges newer than the phone metadata. Never a mistyped one (a digit missing or one too
   * many, a national 0 kept): no new range explains those (docs/contract.md: "Requests").
   */
  readonly allowUnlisted?: boolean | undefined;
  /** Accept every possible number outside the plan, mistyped ones too: an opt-out list (leaving one out costs nothing). */
  readonly anyPossible?: boolean | undefined;
}

/** The flag that accepts numbers outside the known numbering plan, for hints. */
export const ALLOW_UNLISTED_FLAG = '--allow-unlisted-numbers';
export const UNLISTED_HINT = `Check these numbers. Numbers in ranges newer than msgr's phone data (libphonenumber-js) can be sent with ${ALLOW_UNLISTED_FLAG}.`;
/** A mistyped number is never sent as it is: no flag is offered, only a fix. */
export const MISTYPED_HINT = 'Check these numbers in the file: a digit missing or one too many, or a national 0 kept after the country code.';

/** What a spreadsheet writes for a long number in a General cell: 4.47911E+11, 4,47911E+11. */
const SCIENTIFIC = /^[+-]?\d+(?:[.,]\d+)?[eE][+]?\d+$/;
/** `447911123456.0`: a number column a spreadsheet or script wrote as decimals. */
const DECIMAL = /^\+?\d{6,}[.,]0+$/;
/** A number with spaces and a `.0` (`+44 7911 123461.0`): the part before its one dot or comma. */
const DECIMAL_TAIL = /^([^.,]+)[.,]0+$/;

/**
 * A spreadsheet's error value: a number typed with a leading + (or =) is a formula to it, and
 * `+44 7911 123456` (a space is its intersection operator) exports as #NULL!.
 */
const SPREADSHEET_ERROR = /^#(?:NULL!|NAME\?|VALUE!|REF!|DIV\/0!|NUM!|N\/A|ERROR!?|SPILL!|CALC!)$/i;

/** Whether a value is a spreadsheet's error value (#NULL!, #NAME?): a number lost, not a word. */
export function isSpreadsheetError(raw: string): boolean {
  return SPREADSHEET_ERROR.test(raw.trim());
}

export const FORMULA_HINT =
  'A spreadsheet read numbers typed with a leading + as formulas and exported their error values: format the number column as Text (Excel: Format Cells > Text; LibreOffice: Format > Cells > Text), type the numbers again, and export again.';
export const DECIMAL_HINT =
  'A spreadsheet or script stored the numbers as decimals and exported them with ".0": format the number column as Text before exporting (Excel: Format Cells > Text; LibreOffice: Format > Cells > Text), with each number written as +<country code><number>.';
export const SCIENTIFIC_HINT =
  'A spreadsheet showed the numbers in scientific notation and exported them so, losing their last digits: format the number column as Text before exporting (Excel: Format Cells > Text; LibreOffice: Format > Cells > Text), then re-enter or re-import the numbers.';

// Spaces (incl. no-break and thin spaces), dashes (incl. Unicode dashes), dots, brackets, slashes,
// and the invisible formatting characters that come with numbers copied from contact cards and
// right-to-left text (U+202A … U+202C around "+44 7911 123456", marks, joiners, a BOM).
const SEPARATORS = /[\s\u00a0\u2000-\u200f\u202a-\u202f\u2060-\u2064\u2066-\u2069\ufeff\u3000\-\u2010-\u2015.()[\]/]/g;

/**
 * Whether a value is written as a number (digits with the separators normaliseNumber() drops, an
 * optional + or 00, or a spreadsheet's scientific notation), valid or not: a list's first line
 * that looks like this is an entry, not a header.
 */
export function looksLikeNumber(raw: string): boolean {
  const s = raw.trim();
  return SCIENTIFIC.test(s) || /^\+?\d{3,}$/.test(s.replace(SEPARATORS, ''));
}

/** Checks a `--default-country` value; returns the upper-cased ISO code. */
export function parseCountry(input: string): CountryCode | undefined {
  const cc = input.trim().toUpperCase();
  return isSupportedCountry(cc) ? cc : undefined;
}

// Codes people type for a country that are not its ISO 3166 code: the UK's own abbreviation,
// the EU's code for Greece, and ISO alpha-3 codes of the countries most often meant.
const NOT_ISO: Readonly<Record<string, string>> = {
  UK: 'GB', EL: 'GR', EN: 'GB',
  GBR: 'GB', USA: 'US', DEU: 'DE', FRA: 'FR', ESP: 'ES', ITA: 'IT', NLD: 'NL', IRL: 'IE', BEL: 'BE', CHE: 'CH', AUT: 'AT',
  PRT: 'PT', SWE: 'SE', NOR: 'NO', DNK: 'DK', FIN: 'FI', POL: 'PL', CAN: 'CA', AUS: 'AU', NZL: 'NZ', IND: 'IN', BRA: 'BR',
  MEX: 'MX', ZAF: 'ZA', JPN: 'JP', CHN: 'CN', SGP: 'SG', ARE: 'AE',
};

/**
 * A default country from a flag, variable or profile: the ISO code, or an error naming where it
 * came from and, when it can tell, the code that was meant (`UK` → `GB`, `44` → `GB`).
 */
export function checkCountry(input: string, origin: string): CountryCode {
  const cc = parseCountry(input);
  if (cc !== undefined) return cc;
  const typed = input.trim().toUpperCase();
  let meant: string | undefined = NOT_ISO[typed];
  const digits = /^\+?(\d{1,3})$/.exec(typed)?.[1];
  if (meant === undefined && digits !== undefined) {
    meant = (metadataJson as unknown as { country_calling_codes: Record<string, string[] | undefined> }).country_calling_codes[digits]?.[0];
  }
  throw new UsageError(`${origin}: "${input}" is not a country code${meant !== undefined ? `; did you mean ${meant}?` : ''}`, {
    hint: meant !== undefined ? `Use the two-letter ISO 3166 code: ${meant}.` : 'Use a two-letter ISO 3166 code such as GB, US or DE.',
  });
}


/**
 * Normalises one number. Impossible numbers (wrong length, unknown country code) are refused, and
 * so are possible numbers outside the known numbering plan (`07911 12345`, a digit short; the
 * UK's +44 7700 900xxx drama range), with why, unless `allowUnlisted`: a warning for them was
 * one people learned to ignore (docs/contract.md: "Requests").
 */
/**
 * How opt-outs read numbers: one outside the known numbering plan is kept (an opt-out must be
 * honoured whatever the phone metadata knows; `--exclude` lists read them so too).
 */
export const OPT_OUT_NUMBERS: NumberOptions = { allowUnlisted: true, anyPossible: true };

export function normaliseNumber(raw: string, defaultCountry?: CountryCode, options: NumberOptions = {}): NumberResult {
  const one = normaliseOne(raw, defaultCountry, options);
  return one.ok ? one : (severalNumbers(raw) ?? one);
}

export const TWO_NUMBERS_HINT = 'Give one number to a cell: each number on a row of its own (or the one to message), or a --to for each number in msgr send.';

/** Between two numbers in one cell: a slash, comma, semicolon, bar, ampersand, "or", "and". */
const BETWEEN_NUMBERS = /\s*(?:[/,;|&]|\s(?:or|and|ou|oder|o|y|et|und)\s)\s*/i;

/**
 * A value that is not one number but holds two or more (`07911 123457 / 07400 123458`,
 * `+447911123457, +447400123458`): each part is written as a number of its own. Asked only of a
 * value that is not a number as a whole, as a slash is also a separator within one number
 * (`0151/23456789`).
 */
function severalNumbers(raw: string): NumberResult | undefined {
  const parts = raw.trim().split(BETWEEN_NUMBERS).map((p) => p.trim()).filter((p) => p !== '');
  if (parts.length < 2 || !parts.every((p) => /^(?:\+|00)?\d{7,15}$/.test(p.replace(SEPARATORS, '')))) return undefined;
  return { ok: false, cause: 'two-numbers', reason: `"${raw.trim()}" holds ${parts.length === 2 ? 'two' : parts.length} numbers (${parts.join(', ')}), not one`, hint: TWO_NUMBERS_HINT };
}

function normaliseOne(raw: string, defaultCountry: CountryCode | undefined, options: NumberOptions): NumberResult {
  const shown = raw.trim();
  if (isSpreadsheetError(shown)) {
    return { ok: false, cause: 'formula', reason: `"${shown}" is a spreadsheet's error value, not a number: the cell held a formula`, hint: FORMULA_HINT };
  }
  if (SCIENTIFIC.test(shown)) {
    return { ok: false, cause: 'scientific', reason: `"${shown}" is in scientific notation: a spreadsheet rounded the number`, hint: SCIENTIFIC_HINT };
  }
  // A dot elsewhere is a separator (`06.12.34.56.78`), but one dot or comma before nothing but
  // zeros at the end is a decimal even with spaces: `+49 151 23456789.0` would otherwise be sent
  // to +49 151 234567890, which is possible too.
  const beforeTail = DECIMAL_TAIL.exec(shown)?.[1];
  if (DECIMAL.test(shown) || (beforeTail !== undefined && normaliseNumber(beforeTail, defaultCountry, options).ok)) {
    return { ok: false, cause: 'decimal', reason: `"${shown}" is written as a decimal number, not as a phone number`, hint: DECIMAL_HINT };
  }
  let s = shown.replace(SEPARATORS, '');
  if (s === '') return { ok: false, cause: 'empty', reason: 'is empty' };
  if (s.startsWith('00')) s = `+${s.slice(2)}`;
  if (!/^\+?\d+$/.test(s)) return { ok: false, cause: 'characters', reason: `"${shown}" has characters that are not digits` };
  const international = s.startsWith('+');
  if (international && s.length > 16) return { ok: false, cause: 'too-long', reason: `"${shown}" is too long for a phone number (at most 15 digits)` };
  const parsed = international ? parsePhoneNumberFromString(s) : defaultCountry !== undefined ? parsePhoneNumberFromString(s, defaultCountry) : undefined;
  const possible = parsed?.isPossible() === true;
  // `447911123456`: an international number that lost its `+` (a spreadsheet drops it).
  if (!international && !possible && withPlus(s)) {
    return {
      ok: false,
      cause: 'no-plus',
      reason: `"${shown}" has no +: it is +${s} if international`,
      hint: `Write international numbers with their +, as +${s}${defaultCountry === undefined ? ', or give national numbers with --default-country' : ''}.`,
      ...(defaultCountry === undefined ? { needsCountry: true } : {}),
    };
  }
  // With a default country, the same digits can also be a national number that is not a mobile:
  // `4915123456789` is a German mobile with a +, and with --default-country DE the landline
  // +49 4915123456789 (Germany's plan allows long landlines). A message goes to mobiles, so digits
  // that are a valid number with a + and no mobile of their own country are refused as
  // ambiguous, not sent to a stranger (and an opt-out entry written so would exclude nobody).
  // A national mobile is taken as one: `15123456789` (a German mobile whose 0 a spreadsheet
  // dropped) is sent to +49 151…, not to +1 512… (docs/campaign-input.md: "Input").
  if (!international && possible && parsed !== undefined && parsed.number !== `+${s}` && !nationalMobile(parsed) && withPlus(s)) {
    return {
      ok: false,
      cause: 'no-plus',
      reason: `"${shown}" has no +: it is +${s} if international, not the ${parsed.country ?? defaultCountry} number ${parsed.number}`,
      hint: `Write international numbers with their +, as +${s}, and ${parsed.country ?? defaultCountry} numbers as they are dialled there.`,
    };
  }
  if (!international && defaultCountry === undefined) {
    return {
      ok: false,
      cause: 'national',
      reason: `"${shown}" is a national number: give it as +<country code>..., or set --default-country`,
      needsCountry: true,
      hint: 'Write it as +<country code><number>, or add --default-country GB (or your country).',
    };
  }
  if (parsed === undefined || !possible) {
    return { ok: false, cause: 'impossible', reason: `"${shown}" cannot be a phone number (${lengthProblem(s, defaultCountry)})` };
  }
  const e164 = parsed.number;
  if (!parsed.isValid()) {
    if (options.anyPossible === true) return { ok: true, e164, unlisted: true };
    const why = unlistedWhy(parsed);
    if (options.allowUnlisted === true && !why.mistyped) return { ok: true, e164, unlisted: true };
    const reason = `${shown === e164 ? `${e164} is` : `"${shown}" is ${e164},`} ${why.words()}`;
    return why.mistyped ? { ok: false, cause: 'mistyped', reason, hint: MISTYPED_HINT } : { ok: false, cause: 'unlisted', reason, hint: UNLISTED_HINT };
  }
  return parsed.getType() === 'FIXED_LINE' ? { ok: true, e164, landline: true } : { ok: true, e164 };
}

/** Made on first use: ICU's region names cost ~90 ms to load, more than a whole dry run's start. */
let regionNames: Intl.DisplayNames | undefined;

/**
 * Why a possible number is not a valid one: a digit short or one too many (the same digits with
 * one more, or one fewer, at the end are a valid number), a national 0 kept after the country
 * code (`01632 96` with GB: too short once the 0 is dropped, so libphonenumber-js keeps it), all
 * three `mistyped`; or no range of the plan holds it (+44 7700 900xxx, reserved for drama).
 * `words()` says it for people (it loads the region names, so only for a refusal).
 */
function unlistedWhy(parsed: PhoneNumber): { readonly mistyped: boolean; words(): string } {
  const cc = parsed.countryCallingCode;
  const metadata = metadataJson as unknown as { country_calling_codes: Record<string, string[] | undefined>; countries: Record<string, unknown[] | undefined> };
  // An invalid number of a shared calling code has no country of its own: the code's main one.
  const country = parsed.country ?? metadata.country_calling_codes[cc]?.[0];
  const meta = country !== undefined ? metadata.countries[country] : undefined;
  const zero = parsed.nationalNumber.startsWith('0') && meta?.[5] === '0';
  const digits = zero ? parsed.nationalNumber.slice(1) : parsed.nationalNumber;
  const valid = (national: string): boolean => parsePhoneNumberFromString(`+${cc}${national}`)?.isValid() === true;
  const length: 'short' | 'long' | 'too-short' | undefined =
    '0123456789'.split('').some((d) => valid(`${digits}${d}`)) ? 'short'
    : digits.length > 1 && valid(digits.slice(0, -1)) ? 'long'
    : validatePhoneNumberLength(`+${cc}${digits}`) === 'TOO_SHORT' ? 'too-short'
    : undefined;
  return {
    mistyped: zero || length !== undefined,
    words: () => {
      regionNames ??= new Intl.DisplayNames(['en'], { type: 'region' });
      const where = `+${cc}${country !== undefined && /^[A-Z]{2}$/.test(country) ? ` (${regionNames.of(country) ?? country})` : ''}`;
      const said = length === 'short' ? `too short for a ${where} number: one digit missing?` : length === 'long' ? `too long for a ${where} number: one digit too many?` : length === 'too-short' ? `too short for a ${where} number` : undefined;
      if (zero) return `with the national 0 kept after the country code (+${cc} 0…); without it, ${said ?? `not in the numbering plan of ${where} either`}`;
      return said ?? `not in the numbering plan of ${where}: no range of its numbers holds it`;
    },
  };
}

/**
 * Whether digits are an international number without its `+`: valid with one (not merely
 * possible), and as long as international numbers are (11 digits and more; national numbers
 * are shorter, or start with a 0).
 */
function withPlus(digits: string): boolean {
  if (digits.length < 11 || digits.length > 15 || digits.startsWith('0')) return false;
  return parsePhoneNumberFromString(`+${digits}`)?.isValid() === true;
}

/** A valid number of a type that can be a mobile's (the plans of the US and others cannot tell). */
function nationalMobile(parsed: PhoneNumber): boolean {
  if (!parsed.isValid()) return false;
  const type = parsed.getType();
  return type === 'MOBILE' || type === 'FIXED_LINE_OR_MOBILE';
}

function lengthProblem(s: string, defaultCountry: CountryCode | undefined): string {
  const problem = s.startsWith('+') ? validatePhoneNumberLength(s) : validatePhoneNumberLength(s, defaultCountry);
  switch (problem) {
    case 'TOO_SHORT':
      return 'too short';
    case 'TOO_LONG':
      return 'too long';
    case 'INVALID_COUNTRY':
      return 'unknown country code';
    case 'INVALID_LENGTH':
      return 'wrong length for its country';
    case 'NOT_A_NUMBER':
      return 'not a number';
    default:
      return 'wrong length or unknown country code';
  }
}
