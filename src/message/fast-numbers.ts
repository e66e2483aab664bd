// Fast path for normaliseNumber() on numbers already written in international form, for bulk
// sending (send-bulk needs >= 100k recipients/s on 2 cores). libphonenumber-js spends most of its
// time re-running its parse pipeline and compiling `new RegExp(...)` in matchesEntirely() on every
// call; this module mirrors, step by step, what libphonenumber-js 1.13.x does for "+<digits>"
// input with the `max` metadata, but with regexes compiled once per calling code on first use.
//
// The contract: fastNormalise() returns exactly what normaliseNumber() would, or undefined when
// it cannot be sure (then normaliseNumber() answers). It answers only successes (a valid number,
// with `landline` for a fixed line; a possible one outside the plan only when it is allowed);
// every failure (a number outside the plan is one by default: normaliseNumber() words why), and
// every unusual case (national prefix transform rules, non-geographic calling codes, unexpected
// metadata), falls back.
// test/unit/message/fast-numbers.test.ts checks the equivalence differentially against normaliseNumber().
//
// Mirrored libphonenumber-js code (node_modules/libphonenumber-js/es6): parse.js,
// helpers/extractCountryCallingCode.js, helpers/extractNationalNumber.js,
// helpers/extractNationalNumberFromPossiblyIncompleteNumber.js, helpers/getCountryByCallingCode.js,
// helpers/getCountryByNationalNumber.js, helpers/getNumberType.js, helpers/checkNumberLength.js,
// isPossible.js, isValid.js, PhoneNumber.js (`.number`), metadata.js (v4 tuple layout).
import type { CountryCode } from 'libphonenumber-js/max';
// The very object libphonenumber-js/max uses (same module), so no second copy is parsed.
import metadataJson from 'libphonenumber-js/max/metadata';
import { normaliseNumber, type NumberOptions, type NumberResult } from './numbers.js';

// libphonenumber-js constants (constants.js).
const MIN_LENGTH_FOR_NSN = 2;
const MAX_LENGTH_FOR_NSN = 17;

/** One country's numbering plan, with its regexes compiled. */
interface Plan {
  readonly country: string;
  /** `^(?:nationalNumberPattern)$` */
  readonly nationalNumber: RegExp;
  readonly possibleLengths: readonly number[] | undefined;
  /** `^(?:leadingDigits)` — how getCountryByNationalNumber() picks among shared calling codes. */
  readonly leadingDigits: RegExp | undefined;
  /** Undefined when the plan has no types (then isValid() uses the national number pattern alone). */
  readonly types: readonly PlanType[] | undefined;
  /** getNumberType() can say FIXED_LINE: the plan has a MOBILE type with a pattern of its own. */
  readonly mobileApart: boolean;
}

interface PlanType {
  /** `^(?:pattern)$` */
  readonly pattern: RegExp;
  readonly possibleLengths: readonly number[] | undefined;
  /** Tuple index: 0 FIXED_LINE, 1 MOBILE, 2-9 the others (getNumberType() order). */
  readonly index: number;
}

/** Everything needed for one calling code. */
interface CallingCode {
  readonly code: string;
  /** The plan libphonenumber-js selects by calling code alone (the first country listed). */
  readonly main: Plan;
  /** All countries sharing the code, in metadata order. */
  readonly plans: readonly Plan[];
  /** `^(?:nationalPrefixForParsing)` of the main plan. */
  readonly nationalPrefix: RegExp | undefined;
  readonly hasTransformRule: boolean;
}

type RawPlan = readonly unknown[];
interface RawMetadata {
  readonly version?: unknown;
  readonly country_calling_codes: Readonly<Record<string, readonly string[] | undefined>>;
  readonly countries: Readonly<Record<string, RawPlan | undefined>>;
  readonly nonGeographic?: Readonly<Record<string, unknown>>;
}

const metadata = metadataJson as unknown as RawMetadata;
// The tuple indices below are those of metadata format v4 (metadata.js); any other format: no fast path.
const SUPPORTED = metadata.version === 4 && typeof metadata.country_calling_codes === 'object' && typeof metadata.countries === 'object';

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** Cache per calling code: CallingCode, FALLBACK (let the slow path answer) or NONE (not a calling code). */
const FALLBACK = 1;
const NONE = 2;
type Slot = CallingCode | typeof FALLBACK | typeof NONE | undefined;
// Indexed by the numeric value of the 1-, 2- or 3-digit prefix, offset by 0, 10 or 110.
const slots = new Array<Slot>(1110);
const OFFSET = [0, 0, 10, 110] as const;

function lookUp(code: string, value: number): CallingCode | typeof FALLBACK | typeof NONE {
  const index = OFFSET[code.length as 1 | 2 | 3] + value;
  let slot = slots[index];
  if (slot === undefined) {
    try {
      slot = build(code);
    } catch {
      slot = FALLBACK;
    }
    slots[index] = slot;
  }
  return slot;
}

/** Metadata.hasCallingCode() / getCountryCodesForCallingCode() for one candidate code. */
function build(code: string): CallingCode | typeof FALLBACK | typeof NONE {
  const countries = hasOwn(metadata.country_calling_codes, code) ? metadata.country_calling_codes[code] : undefined;
  const geographic = countries !== undefined && countries !== null && !(countries.length === 1 && countries[0]?.length === 3);
  if (!geographic) {
    if (metadata.nonGeographic !== undefined ? hasOwn(metadata.nonGeographic, code) : countries?.length === 1 && countries[0] === '001') {
      return FALLBACK; // non-geographic (800, 808, 870, 878, 881, 882, 883, 888, 979)
    }
    return NONE;
  }
  if (countries.length === 0) return FALLBACK;
  const plans = countries.map((country) => compilePlan(country));
  if (plans.some((p) => p === undefined)) return FALLBACK;
  const compiled = plans as Plan[];
  const main = compiled[0] as Plan;
  const raw = metadata.countries[main.country] as RawPlan;
  if (raw[0] !== code) return FALLBACK;
  // NumberingPlan.nationalPrefixForParsing(): [7] || nationalPrefix [5].
  const prefixForParsing = str(raw[7]) ?? str(raw[5]);
  return {
    code,
    main,
    plans: compiled,
    nationalPrefix: prefixForParsing === undefined ? undefined : new RegExp(`^(?:${prefixForParsing})`),
    hasTransformRule: Boolean(raw[8]),
  };
}

/** Metadata field: a non-empty string, else undefined (the library tests these fields for truthiness). */
function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function lengths(v: unknown): readonly number[] | undefined {
  if (v === undefined || v === null || v === 0) return undefined;
  if (!Array.isArray(v) || v.length === 0 || !v.every((n) => typeof n === 'number')) throw new Error('unexpected metadata');
  return v.filter((n): n is number => typeof n === 'number');
}

function compilePlan(country: string): Plan | undefined {
  const raw = hasOwn(metadata.countries, country) ? metadata.countries[country] : undefined;
  if (!Array.isArray(raw)) return undefined;
  const pattern = str(raw[2]);
  if (pattern === undefined) return undefined;
  const possibleLengths = lengths(raw[3]);
  const leading = str(raw[10]);
  const rawTypes: unknown = raw[11];
  let types: PlanType[] | undefined;
  let mobileApart = false;
  // NumberingPlan.hasTypes(): truthy and not empty.
  if (rawTypes && !(Array.isArray(rawTypes) && rawTypes.length === 0)) {
    if (!Array.isArray(rawTypes)) return undefined;
    types = [];
    // getNumberType() tries FIXED_LINE, then MOBILE, PREMIUM_RATE, TOLL_FREE, SHARED_COST, VOIP,
    // PERSONAL_NUMBER, PAGER, UAN, VOICEMAIL: tuple indices 0-9. Only "is any one a match" matters,
    // so MOBILE (1) goes first: most numbers messages go to are mobiles, and V8 compiles a pattern
    // on its first test (a country's fixed-line pattern is often its longest).
    for (const i of [1, 0, 2, 3, 4, 5, 6, 7, 8, 9]) {
      const t: unknown = rawTypes[i];
      if (!t) continue; // type absent
      if (!Array.isArray(t)) return undefined;
      const typePattern = str(t[0]);
      if (typePattern === undefined) continue; // isNumberTypeEqualTo(): no pattern, no match
      if (i === 1) mobileApart = true;
      // Type.possibleLengths(): its own, else the plan's.
      types.push({ pattern: new RegExp(`^(?:${typePattern})$`), possibleLengths: lengths(t[1]) ?? possibleLengths, index: i });
    }
  }
  return {
    country,
    nationalNumber: new RegExp(`^(?:${pattern})$`),
    possibleLengths,
    leadingDigits: leading === undefined ? undefined : new RegExp(`^(?:${leading})`),
    types,
    mobileApart,
  };
}

/** What typeOf() finds: no type (not valid), FIXED_LINE (getNumberType()'s answer), or another. */
const NO_TYPE = 0;
const FIXED_LINE = 1;
const OTHER_TYPE = 2;
type TypeFound = typeof NO_TYPE | typeof FIXED_LINE | typeof OTHER_TYPE;

/**
 * getNumberType(), as far as msgr asks: undefined, FIXED_LINE, or another type. FIXED_LINE is a
 * fixed-line match where the plan has a MOBILE pattern of its own that does not match (MOBILE is
 * tried first: a match is never FIXED_LINE, whatever else matches).
 */
function typeOf(plan: Plan, nationalNumber: string): TypeFound {
  if (!plan.nationalNumber.test(nationalNumber)) return NO_TYPE;
  const types = plan.types;
  if (types === undefined) return NO_TYPE;
  const n = nationalNumber.length;
  for (const t of types) {
    if (t.possibleLengths !== undefined && !t.possibleLengths.includes(n)) continue;
    if (t.pattern.test(nationalNumber)) return t.index === 0 && plan.mobileApart ? FIXED_LINE : OTHER_TYPE;
  }
  return NO_TYPE;
}

/** getNumberType(...) !== undefined */
function hasType(plan: Plan, nationalNumber: string): boolean {
  return typeOf(plan, nationalNumber) !== NO_TYPE;
}

/** getCountryByCallingCode() (with getCountryByNationalNumber()); undefined: none fits. */
function countryFor(cc: CallingCode, nationalNumber: string): Plan | undefined {
  const plans = cc.plans;
  if (plans.length === 1) return plans[0];
  for (const plan of plans) {
    if (plan.leadingDigits !== undefined) {
      if (nationalNumber !== '' && plan.leadingDigits.test(nationalNumber)) return plan;
    } else if (hasType(plan, nationalNumber)) {
      return plan;
    }
  }
  return undefined;
}

type LengthCheck = 'IS_POSSIBLE' | 'TOO_SHORT' | 'TOO_LONG' | 'INVALID_LENGTH';

/** checkNumberLength() without a type. */
function checkLength(possible: readonly number[] | undefined, n: number): LengthCheck {
  if (possible === undefined) return 'IS_POSSIBLE';
  const min = possible[0] as number;
  if (min === n) return 'IS_POSSIBLE';
  if (min > n) return 'TOO_SHORT';
  if ((possible[possible.length - 1] as number) < n) return 'TOO_LONG';
  return possible.indexOf(n, 1) >= 0 ? 'IS_POSSIBLE' : 'INVALID_LENGTH';
}

/**
 * The digits after "+" when `raw` is "+<5-15 digits>" or "00<5-15 digits>", possibly with ASCII
 * spaces anywhere (normaliseNumber() drops those and turns "00" into "+"); else undefined.
 */
function internationalDigits(raw: string): string | undefined {
  const s = raw.includes(' ') ? raw.replaceAll(' ', '') : raw;
  let start: number;
  if (s.charCodeAt(0) === 43 /* + */) start = 1;
  else if (s.charCodeAt(0) === 48 && s.charCodeAt(1) === 48) start = 2;
  else return undefined;
  const n = s.length - start;
  if (n < 5 || n > 15) return undefined;
  for (let i = start; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return undefined;
  }
  // "+0..." : extractCountryCallingCode() refuses it, so it is a failure: the slow path words it.
  if (s.charCodeAt(start) === 48) return undefined;
  return s.slice(start);
}

/** Exact fast path for numbers already in international form. Returns the same result as
 *  normaliseNumber(raw, defaultCountry, options) would, or undefined when it cannot be sure (caller falls back). */
export function fastNormalise(raw: string, _defaultCountry?: CountryCode, options?: NumberOptions): NumberResult | undefined {
  // normaliseNumber() ignores defaultCountry for international input.
  if (!SUPPORTED) return undefined;
  const digits = internationalDigits(raw);
  if (digits === undefined) return undefined;

  // extractCountryCallingCode(): the shortest 1-3 digit prefix that is a calling code.
  let cc: CallingCode | undefined;
  let value = 0;
  for (let len = 1; len <= 3; len++) {
    value = value * 10 + (digits.charCodeAt(len - 1) - 48);
    const found = lookUp(digits.slice(0, len), value);
    if (found === NONE) continue;
    if (found === FALLBACK) return undefined;
    cc = found;
    break;
  }
  if (cc === undefined) return undefined; // unknown calling code: a failure
  const number = digits.slice(cc.code.length);

  // extractNationalNumber() with the plan selected by calling code.
  let nationalNumber = number;
  if (cc.nationalPrefix !== undefined) {
    const match = cc.nationalPrefix.exec(number);
    if (match !== null) {
      const groups = match.length - 1;
      const hasCapturedGroups = groups > 0 && Boolean(match[groups]);
      if (cc.hasTransformRule && hasCapturedGroups) return undefined; // transform rules: slow path
      const stripped = number.slice(match[0].length);
      if (stripped !== number && shouldStrip(cc, number, stripped)) nationalNumber = stripped;
    }
  }

  // parse(): the exact country (for shared calling codes), then the national number length bounds.
  const country = countryFor(cc, nationalNumber);
  if (nationalNumber.length < MIN_LENGTH_FOR_NSN || nationalNumber.length > MAX_LENGTH_FOR_NSN) return undefined;
  const plan = country ?? cc.main;
  // isPossible(): without possible lengths, libphonenumber-js throws for geographic codes.
  if (plan.possibleLengths === undefined) return undefined;
  if (checkLength(plan.possibleLengths, nationalNumber.length) !== 'IS_POSSIBLE') return undefined; // a failure
  const e164 = `+${cc.code}${nationalNumber}`;
  // isValid(): a plan without types checks the national number pattern alone.
  const type = plan.types !== undefined ? typeOf(plan, nationalNumber) : plan.nationalNumber.test(nationalNumber) ? OTHER_TYPE : NO_TYPE;
  // Outside the plan: a failure, worded by normaliseNumber(), or with --allow-unlisted-numbers
  // accepted only when it is no slip of a digit, which normaliseNumber() tells; an opt-out list
  // accepts every possible number.
  if (type === NO_TYPE) return options?.anyPossible === true ? { ok: true, e164, unlisted: true } : undefined;
  return type === FIXED_LINE ? { ok: true, e164, landline: true } : { ok: true, e164 };
}

/** extractNationalNumber(): keep the national prefix it found stripped? */
function shouldStrip(cc: CallingCode, before: string, after: string): boolean {
  const main = cc.main;
  // shouldHaveExtractedNationalPrefix()
  if (main.nationalNumber.test(before) && !main.nationalNumber.test(after)) return false;
  if (main.possibleLengths !== undefined) {
    const country = countryFor(cc, after);
    const check = checkLength((country ?? main).possibleLengths, after.length);
    if (check === 'TOO_SHORT' || check === 'INVALID_LENGTH') return false;
  }
  return true;
}

/** Drop-in: fastNormalise(...) ?? normaliseNumber(...). */
export function normaliseNumberFast(raw: string, defaultCountry?: CountryCode, options?: NumberOptions): NumberResult {
  return fastNormalise(raw, defaultCountry, options) ?? normaliseNumber(raw, defaultCountry, options);
}
