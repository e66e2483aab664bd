// A schedule and the one question it answers: open, closed, past its deadline, or never (the
// door: ./index.ts).
import { parseInstant } from './deadlines.js';
import { regionZones } from './regions.js';
import { canonicalZone, countryZones, instantOf, parseZoneRule, placeOf, wallClock, zoneRuleText, type ZoneRule } from './zones.js';
import { intersect, openSpans, parseWindow, type Span, type Window } from './windows.js';


export interface Schedule {
  /** Empty: any time of day. */
  readonly windows: readonly Window[];
  /** Whose clock the windows are read on; undefined without windows. */
  readonly tz: ZoneRule | undefined;
  /** Instants, ms: nothing leaves before `notBefore`, nor at or after `stopAt`. */
  readonly notBefore: number | undefined;
  readonly stopAt: number | undefined;
}

export const ANY_TIME: Schedule = { windows: [], tz: undefined, notBefore: undefined, stopAt: undefined };

/** Whether the schedule limits anything. */
export function isScheduled(s: Schedule): boolean {
  return s.windows.length > 0 || s.notBefore !== undefined || s.stopAt !== undefined;
}

export type Openness =
  /** May send now, until `until` (a window closes, or the deadline; Infinity: nothing closes it). */
  | { readonly state: 'open'; readonly until: number }
  /** Closed now; opens at `opensAt`, before the deadline. */
  | { readonly state: 'closed'; readonly opensAt: number }
  /** The deadline has passed, or no window opens before it. */
  | { readonly state: 'deadline' }
  /** The windows are never open at once in all these zones. */
  | { readonly state: 'never' };

/** How far ahead an opening is looked for: two weeks covers every weekly rule, DST changes included. */
const HORIZON_MS = 15 * 86_400_000;

const CLOCK = { wallClock, instantOf };

/** Where the windows are open in every one of `zones` within [from, to). */
export function commonSpans(windows: readonly Window[], zones: readonly string[], from: number, to: number): Span[] {
  if (windows.length === 0) return [{ from, to }];
  let spans: Span[] = [{ from, to }];
  for (const zone of zones) spans = intersect(spans, openSpans(windows, zone, from, to, CLOCK));
  return spans;
}

/** The schedule for a set of zones at instant `now`. */
export function openness(s: Schedule, zones: readonly string[], now: number): Openness {
  const stop = s.stopAt ?? Number.POSITIVE_INFINITY;
  if (now >= stop) return { state: 'deadline' };
  const from = Math.max(now, s.notBefore ?? now);
  if (s.windows.length === 0) return from > now ? (from < stop ? { state: 'closed', opensAt: from } : { state: 'deadline' }) : { state: 'open', until: stop };
  const spans = commonSpans(s.windows, zones, from, from + HORIZON_MS);
  const first = spans[0];
  if (first === undefined) return { state: 'never' };
  if (first.from >= stop) return { state: 'deadline' };
  if (first.from > now) return { state: 'closed', opensAt: first.from };
  // Open now: until it closes (spans touching across midnight were merged), or the deadline.
  return { state: 'open', until: Math.min(first.to >= from + HORIZON_MS ? Number.POSITIVE_INFINITY : first.to, stop) };
}

/** Parsed --window values, or the first error. */
export function parseWindows(texts: readonly string[]): Window[] | { readonly error: string } {
  const out: Window[] = [];
  for (const t of texts) {
    const w = parseWindow(t);
    if ('error' in w) return w;
    out.push(w);
  }
  return out;
}

/**
 * A row's zones under the rule: its column's zone, the one zone, or (auto) its number's: for a
 * number the numbering plan places (a US area code, a fixed line in Russia), the zones of its
 * longest prefix in the map; else, or when no prefix matches, its country's. As libphonenumber's
 * own time-zone mapper: the map names one zone for mobiles of countries whose mobiles are not
 * geographic (Australia, Russia), which would be a guess. `country` stands in for a number.
 */
export function zonesOf(rule: ZoneRule | undefined, row: { readonly number?: string | undefined; readonly country?: string | undefined; readonly cell?: string | undefined }): readonly string[] | { readonly error: string } {
  if (rule === undefined) return [];
  if (rule.kind === 'zone') return [rule.zone];
  if (rule.kind === 'column') {
    const cell = (row.cell ?? '').trim();
    const zone = canonicalZone(cell);
    return zone !== undefined ? [zone] : { error: cell === '' ? `has no time zone in column ${rule.column}` : `"${cell}" in column ${rule.column} is not an IANA time zone` };
  }
  const number = row.number;
  const region = number !== undefined ? regionZones(number) : undefined;
  // The North American plan places every number by its area code, mobiles too (libphonenumber
  // types them "fixed line or mobile"), and the map lists no non-geographic code (800, 900, 5XX):
  // a +1 number needs no parse, which is most rows of a US list (docs/design.md: "Time zones").
  if (region !== undefined && number?.startsWith('+1') === true) return region;
  // Its type (a second pass over the plan's patterns) only where the map has a prefix for it.
  const place = number !== undefined ? placeOf(number, region !== undefined) : undefined;
  if (region !== undefined && place?.geographic === true) return region;
  const country = row.country ?? place?.country;
  const zones = country !== undefined ? countryZones(country) : [];
  return zones.length > 0 ? zones : { error: `the time zone of ${country ?? 'its number'}'s country is not known` };
}

/** What the schedule keeps in a journal (and shows in --json): instants as ISO 8601 UTC. */
export interface ScheduleRecord {
  readonly windows: readonly string[];
  readonly tz: string | null;
  readonly notBefore: string | null;
  readonly stopAt: string | null;
}

export function scheduleRecord(s: Schedule): ScheduleRecord {
  return {
    windows: s.windows.map((w) => w.text),
    tz: s.tz !== undefined ? zoneRuleText(s.tz) : null,
    notBefore: s.notBefore !== undefined ? new Date(s.notBefore).toISOString() : null,
    stopAt: s.stopAt !== undefined ? new Date(s.stopAt).toISOString() : null,
  };
}

/** A journal's schedule back; undefined when the record is damaged (the caller says so). */
export function scheduleFromRecord(r: ScheduleRecord): Schedule | undefined {
  const windows = parseWindows(r.windows);
  const tz = r.tz !== null ? parseZoneRule(r.tz) : undefined;
  if ('error' in windows || (tz !== undefined && 'error' in tz)) return undefined;
  const at = (v: string | null): number | undefined => (v !== null ? Date.parse(v) : undefined);
  return { windows, tz, notBefore: at(r.notBefore), stopAt: at(r.stopAt) };
}

/** Parses an instant a flag names, or says why not (the caller names the flag). */
export function instantOrError(text: string, now: number): number | { readonly error: string } {
  const t = parseInstant(text, now);
  return t !== undefined ? t : { error: `"${text}" is neither a date and time (2026-12-11T20:00:00-05:00) nor a duration (90m, 2h, 3d, PT2H)` };
}

/** One line for people: the windows and whose clock, and the deadlines; `one` for a single recipient. */
export function describeSchedule(s: Schedule, recipients: 'each' | 'one' = 'each'): string {
  const parts: string[] = [];
  if (s.windows.length > 0) {
    const whose = s.tz === undefined ? '' : s.tz.kind === 'zone' ? ` in ${s.tz.zone}` : s.tz.kind === 'column' ? ` in each row's zone (column ${s.tz.column})` : recipients === 'one' ? " in the recipient's zone (their number's region or country)" : " in each recipient's zone (their number's region or country)";
    parts.push(`send window ${s.windows.map((w) => w.text).join(', ')}${whose}`);
  }
  if (s.notBefore !== undefined) parts.push(`not before ${new Date(s.notBefore).toISOString()}`);
  if (s.stopAt !== undefined) parts.push(`stop at ${new Date(s.stopAt).toISOString()}`);
  return parts.join('; ');
}
