// Phone numbers to E.164 (cli-contract: "Numbers are normalised..."). libphonenumber-js with
// `max` metadata: the default `min` metadata cannot tell valid from merely possible numbers
// (engineering-notes).
import { isSupportedCountry, parsePhoneNumberFromString, validatePhoneNumberLength, type CountryCode } from 'libphonenumber-js/max';

export type NumberResult =
  | { readonly ok: true; readonly e164: string; readonly warning?: string }
  | { readonly ok: false; readonly reason: string; readonly needsCountry?: boolean };

// Spaces (incl. no-break and thin spaces), dashes (incl. Unicode dashes), dots, brackets, slashes.
const SEPARATORS = /[\s\u00a0\u2000-\u200b\u202f\u3000\-\u2010-\u2015.()[\]/]/g;

/** Checks a `--default-country` value; returns the upper-cased ISO code. */
export function parseCountry(input: string): CountryCode | undefined {
  const cc = input.trim().toUpperCase();
  return isSupportedCountry(cc) ? cc : undefined;
}

/**
 * Normalises one number. Impossible numbers (wrong length, unknown country code) are refused;
 * possible numbers outside the known numbering plan (the UK's +44 7700 900xxx test range) are
 * accepted with a warning, because numbering metadata lags behind new ranges.
 */
export function normaliseNumber(raw: string, defaultCountry?: CountryCode): NumberResult {
  let s = raw.trim().replace(SEPARATORS, '');
  if (s === '') return { ok: false, reason: 'is empty' };
  if (s.startsWith('00')) s = `+${s.slice(2)}`;
  if (!/^\+?\d+$/.test(s)) return { ok: false, reason: `"${raw.trim()}" has characters that are not digits` };
  const international = s.startsWith('+');
  if (!international && defaultCountry === undefined) {
    return { ok: false, reason: `"${raw.trim()}" is a national number: give it as +<country code>..., or set --default-country`, needsCountry: true };
  }
  if (international && s.length > 16) return { ok: false, reason: `"${raw.trim()}" is too long for a phone number (at most 15 digits)` };
  const parsed = international ? parsePhoneNumberFromString(s) : parsePhoneNumberFromString(s, defaultCountry);
  if (parsed === undefined) {
    return { ok: false, reason: `"${raw.trim()}" cannot be a phone number (${lengthProblem(s, defaultCountry)})` };
  }
  if (!parsed.isPossible()) {
    return { ok: false, reason: `"${raw.trim()}" cannot be a phone number (${lengthProblem(s, defaultCountry)})` };
  }
  const e164 = parsed.number;
  if (!parsed.isValid()) {
    return { ok: true, e164, warning: `${e164} is possible but outside the known numbering plan; sending anyway` };
  }
  return { ok: true, e164 };
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
