// Number checks for millions of rows, with exactly the verdicts of `send` (docs/contract.md:
// "Requests": impossible numbers are refused, and so are possible ones outside the known plan
// unless --allow-unlisted-numbers). normaliseNumberFast answers international numbers ~70x faster
// than libphonenumber-js and falls back to it for anything unusual (message/fast-numbers.ts).
import type { CountryCode } from 'libphonenumber-js/max';
import { normaliseNumberFast } from '../../message/fast-numbers.js';
import { OPT_OUT_NUMBERS, type NumberOptions, type NumberProblem, type NumberResult } from '../../message/numbers.js';

/**
 * ok; a fixed line by its numbering plan (sent; an SMS run says how many); possible but outside
 * the known numbering plan, accepted by --allow-unlisted-numbers; invalid (refused).
 */
export type NumberVerdict = 'ok' | 'landline' | 'outside' | 'invalid';

export interface NumberCheck {
  readonly verdict: NumberVerdict;
  /** E.164 when not invalid. */
  readonly e164: string;
  /** Why it is invalid: in words (with the number), as a cause (without), what to do. */
  readonly reason?: string;
  readonly cause?: NumberProblem;
  readonly hint?: string;
  readonly needsCountry?: boolean;
}

export interface NumberChecker {
  check(raw: string): NumberCheck;
  /**
   * As check(), with possible numbers outside the known plan accepted whatever the run allows:
   * an opt-out list (bulk/input/exclude.ts) names numbers not to message, and leaving one out costs
   * nothing (with --allow-unlisted-numbers, the same number must be left out of the rows).
   */
  checkOptOut(raw: string): NumberCheck;
}

export function createNumberChecker(defaultCountry: CountryCode | undefined, options: NumberOptions = {}): NumberChecker {
  const optOut = { ...options, ...OPT_OUT_NUMBERS };
  return {
    check: (raw) => verdictOf(normaliseNumberFast(raw, defaultCountry, options)),
    checkOptOut: (raw) => verdictOf(normaliseNumberFast(raw, defaultCountry, optOut)),
  };
}

function verdictOf(result: NumberResult): NumberCheck {
  if (!result.ok) {
    return {
      verdict: 'invalid',
      e164: '',
      reason: result.reason,
      cause: result.cause,
      ...(result.hint !== undefined ? { hint: result.hint } : {}),
      ...(result.needsCountry === true ? { needsCountry: true } : {}),
    };
  }
  return { verdict: result.unlisted === true ? 'outside' : result.landline === true ? 'landline' : 'ok', e164: result.e164 };
}
