// Time zones: the rule a command gives (--tz), a zone's offset at an instant and a local time's
// instant (Intl, with Node's full ICU: the IANA rules, DST included), and a country's zones from
// the countries-and-timezones dataset (docs/design.md: "Time zones"); a region's are in ./regions.ts.
import { getCountry, getTimezone } from 'countries-and-timezones';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/** Whose clock a window is read on: one zone for every row, a zone per row from a column, or the number's region or country. */
export type ZoneRule = { readonly kind: 'zone'; readonly zone: string } | { readonly kind: 'column'; readonly column: string } | { readonly kind: 'auto' };

/** The zone's canonical IANA name, or undefined when Intl does not know it. */
export function canonicalZone(name: string): string | undefined {
  const text = name.trim();
  if (text === '' || /^[+-]?\d/.test(text)) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: text }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** `Europe/Paris`, `column:tz`, `auto`; undefined when it is none of them (the caller names the flag). */
export function parseZoneRule(text: string): ZoneRule | { readonly error: string } {
  const t = text.trim();
  if (t.toLowerCase() === 'auto') return { kind: 'auto' };
  if (t.toLowerCase().startsWith('column:')) {
    const column = t.slice('column:'.length).trim();
    return column === '' ? { error: 'column: needs a column name (column:NAME)' } : { kind: 'column', column };
  }
  const zone = canonicalZone(t);
  return zone !== undefined ? { kind: 'zone', zone } : { error: `"${t}" is not an IANA time zone` };
}

export function zoneRuleText(rule: ZoneRule): string {
  return rule.kind === 'zone' ? rule.zone : rule.kind === 'column' ? `column:${rule.column}` : 'auto';
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(zone, f);
  }
  return f;
}

/** The wall clock in `zone` at instant `t`: its fields, as a UTC timestamp of the same digits. */
export function wallClock(zone: string, t: number): number {
  const parts: Record<string, number> = {};
  for (const p of formatter(zone).formatToParts(new Date(t))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return Date.UTC(parts.year ?? 1970, (parts.month ?? 1) - 1, parts.day ?? 1, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0);
}

/** The zone's offset from UTC at instant `t`, in ms (whole seconds). */
export function offsetAt(zone: string, t: number): number {
  return wallClock(zone, Math.floor(t / 1000) * 1000) - Math.floor(t / 1000) * 1000;
}

/**
 * The instant a wall-clock time (given as a UTC timestamp of its digits) happens in `zone`. In a
 * spring-forward gap (02:30 that never comes) it moves on by the gap's length (03:30), as
 * java.time and Temporal do; in a fall-back repeat, it is the first of the two.
 */
export function instantOf(zone: string, wall: number): number {
  const before = offsetAt(zone, wall - 86_400_000);
  const after = offsetAt(zone, wall + 86_400_000);
  const first = wall - before;
  if (wallClock(zone, first) === wall) return first;
  const second = wall - after;
  if (wallClock(zone, second) === wall) return second;
  // In the gap: read with the offset before it, which lands the gap's length later.
  return wall - before;
}

const byCountry = new Map<string, readonly string[]>();

/**
 * Instants through one whole year, every 15 days, to compare zones' offsets through both DST
 * seasons. A fixed year, as nothing here reads a clock: zones that agree since 1970 (what
 * zone1970.tab merges) agree in it too.
 */
const A_YEAR = Array.from({ length: 25 }, (_, i) => Date.UTC(2026, 0, 1) + i * 15 * 86_400_000);

/**
 * A country's zones without another country's zone that the dataset lists only because it keeps
 * the same time in some corner of it (zone1970.tab merges zones that agree since 1970: Asia/Tokyo
 * is listed for Australia): such a zone, whose own country (its first) is another, is dropped when
 * the country has zones of its own and its offset lies, all year, within theirs, so that leaving
 * it out changes no window. One that would (Canada's America/Phoenix were it not so) stays, and so
 * do the shared zones of a country with none of its own (Antigua's America/Puerto_Rico).
 */
function ownZones(code: string, listed: readonly string[]): readonly string[] {
  const all = [...new Set(listed)].sort();
  const own = all.filter((z) => (getTimezone(z)?.countries[0] ?? code) === code);
  if (own.length === 0 || own.length === all.length) return all;
  const at = A_YEAR;
  const ranges = at.map((t) => {
    const offsets = own.map((z) => offsetAt(z, t));
    return [Math.min(...offsets), Math.max(...offsets)] as const;
  });
  return all.filter((z) => own.includes(z) || at.some((t, i) => {
    const o = offsetAt(z, t);
    const [low, high] = ranges[i] ?? [o, o];
    return o < low || o > high;
  }));
}

/**
 * The zones of a country (ISO 3166 alpha-2), as the dataset lists them; empty when it lists
 * none. For a number whose region the numbering plan does not name: a country with several zones
 * is read as all of them (the caller intersects their windows).
 */
export function countryZones(country: string): readonly string[] {
  const code = country.toUpperCase();
  let zones = byCountry.get(code);
  if (zones === undefined) {
    zones = ownZones(code, (getCountry(code)?.timezones ?? []).map((z) => canonicalZone(z) ?? z));
    // A few hundred countries at most.
    byCountry.set(code, zones);
  }
  return zones;
}

/**
 * Calling codes whose mobile numbers are geographic too: Mexico, Argentina, Brazil, Indonesia,
 * China (libphonenumber's PhoneNumberUtil.GEO_MOBILE_COUNTRIES). Elsewhere a mobile number says
 * its country only: in Australia or Russia it may be anywhere.
 */
const GEO_MOBILE = new Set(['52', '54', '55', '62', '86']);

/**
 * A number's country (ISO 3166 alpha-2), and, `withType`, whether the numbering plan places it in
 * a region (libphonenumber's isNumberGeographical: a fixed line, a number that may be either as in
 * the United States, or a mobile where mobiles are geographic), from libphonenumber-js.
 */
export function placeOf(e164: string, withType: boolean): { readonly country: string | undefined; readonly geographic: boolean } {
  const p = parsePhoneNumberFromString(e164);
  if (p === undefined || !withType) return { country: p?.country, geographic: false };
  const type = p.getType();
  return { country: p.country, geographic: type === 'FIXED_LINE' || type === 'FIXED_LINE_OR_MOBILE' || (type === 'MOBILE' && GEO_MOBILE.has(p.countryCallingCode)) };
}
