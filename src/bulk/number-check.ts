// Number checks for millions of rows, with exactly the verdicts of `send` (docs/contract.md: Requests:
// impossible numbers are refused; possible ones outside the known plan are sent with a
// warning). normaliseNumberFast answers international numbers ~70x faster than libphonenumber-js
// and falls back to it for anything unusual (message/fast-numbers.ts).
import type { CountryCode } from 'libphonenumber-js/max';
import { normaliseNumberFast } from '../message/fast-numbers.js';
import type { NumberProblem } from '../message/numbers.js';

/** ok; possible but outside the known numbering plan (warned about); invalid (refused). */
export type NumberVerdict = 'ok' | 'outside' | 'invalid';

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
}

export function createNumberChecker(defaultCountry: CountryCode | undefined): NumberChecker {
  return {
    check(raw: string): NumberCheck {
      const result = normaliseNumberFast(raw, defaultCountry);
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
      return { verdict: result.warning === undefined ? 'ok' : 'outside', e164: result.e164 };
    },
  };
}
