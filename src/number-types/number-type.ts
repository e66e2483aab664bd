// --mobile-only: what kind of line a number is, by its country's numbering plan as
// libphonenumber-js knows it (its `max` metadata, which msgr loads already for validation:
// message/numbers.ts). A plan tells mobiles from fixed lines in most countries; where it cannot
// (the US and Canada give both from the same ranges) the type is "fixed line or mobile", and the
// number is kept: leaving it out would leave out most of North America.
import { parsePhoneNumberFromString, type NumberType } from 'libphonenumber-js/max';

/** The types --mobile-only leaves out, as libphonenumber-js names them. */
export const NOT_MOBILE: ReadonlySet<NonNullable<NumberType>> = new Set(['FIXED_LINE', 'TOLL_FREE', 'PREMIUM_RATE', 'SHARED_COST', 'UAN', 'VOICEMAIL']);

/** Types in words, for the summary and the report. */
const WORDS: Readonly<Record<NonNullable<NumberType>, string>> = {
  MOBILE: 'mobile',
  FIXED_LINE_OR_MOBILE: 'fixed line or mobile',
  FIXED_LINE: 'fixed line',
  TOLL_FREE: 'toll-free',
  PREMIUM_RATE: 'premium rate',
  SHARED_COST: 'shared cost',
  UAN: 'UAN (a company\'s national number)',
  VOICEMAIL: 'voicemail',
  VOIP: 'VoIP',
  PERSONAL_NUMBER: 'personal number',
  PAGER: 'pager',
};

/** The type of an E.164 number, or undefined when the plan gives none (a number outside it). */
export function numberType(e164: string): NonNullable<NumberType> | undefined {
  return parsePhoneNumberFromString(e164)?.getType() ?? undefined;
}

/** The type --mobile-only leaves this number out for, or undefined when it is kept. */
export function notMobile(e164: string): NonNullable<NumberType> | undefined {
  const type = numberType(e164);
  return type !== undefined && NOT_MOBILE.has(type) ? type : undefined;
}

export function describeNumberType(type: NonNullable<NumberType>): string {
  return WORDS[type];
}
