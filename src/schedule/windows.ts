// Send windows: when, on a recipient's clock, a message may leave (--window). A window is a
// time range on some days of the week (every day unless it names them); a rule is the union of
// its windows. Each zone's open time is laid out as instants, and a set of zones (a country with
// several, or a batch's rows) gets the intersection: open only while open in every one of them.

/** Monday = 1 … Sunday = 7, as ISO 8601 numbers them. */
const DAY_NAMES = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

export interface Window {
  /** ISO weekdays, 1–7: the days its start falls on. */
  readonly days: readonly number[];
  /** Minutes after local midnight; `end` ≤ `start` runs past midnight into the next day. */
  readonly start: number;
  readonly end: number;
  /** As given, normalised (`mon-fri:09:00-20:00`). */
  readonly text: string;
}

/** A time span, instants in ms: [from, to). */
export interface Span {
  readonly from: number;
  readonly to: number;
}

function parseClock(text: string, end: boolean): number | undefined {
  const m = /^(\d{1,2})(?::?(\d{2}))?$/.exec(text.trim());
  if (m === null) return undefined;
  const h = Number(m[1]);
  const min = Number(m[2] ?? '0');
  if (min > 59 || h > 24 || (h === 24 && (min !== 0 || !end))) return undefined;
  return h * 60 + min;
}

function parseDays(text: string): number[] | undefined {
  const days = new Set<number>();
  for (const part of text.toLowerCase().split(',')) {
    const [a, b] = part.split('-').map((s) => DAY_NAMES.indexOf(s.trim().slice(0, 3) as (typeof DAY_NAMES)[number]) + 1);
    if (a === undefined || a === 0 || b === 0) return undefined;
    if (b === undefined) days.add(a);
    else for (let d = a; ; d = (d % 7) + 1) {
      days.add(d);
      if (d === b) break;
    }
  }
  return [...days].sort((x, y) => x - y);
}

const pad = (n: number): string => String(n).padStart(2, '0');
const clock = (m: number): string => `${pad(Math.floor(m / 60))}:${pad(m % 60)}`;

/** `08:00-21:00`, `mon-fri:09:00-20:00`, `sat,sun:10-16`; an error naming what is wrong. */
export function parseWindow(text: string): Window | { readonly error: string } {
  const t = text.trim();
  const m = /^(?:([a-z ,-]+):)?\s*([\d:]+)\s*-\s*([\d:]+)$/i.exec(t);
  if (m === null) return { error: `"${t}" is not a window (HH:MM-HH:MM, with days before it: mon-fri:09:00-20:00)` };
  const days = m[1] !== undefined ? parseDays(m[1]) : [1, 2, 3, 4, 5, 6, 7];
  if (days === undefined) return { error: `"${m[1] ?? ''}" are not days (mon, tue, wed, thu, fri, sat, sun; a range mon-fri; a list sat,sun)` };
  const start = parseClock(m[2] ?? '', false);
  const end = parseClock(m[3] ?? '', true);
  if (start === undefined || end === undefined) return { error: `"${t}": the times must be HH:MM, from 00:00 to 24:00` };
  if (start === end) return { error: `"${t}" opens and closes at the same time` };
  const named = m[1] !== undefined ? `${dayList(days)}:` : '';
  return { days, start, end: end === 24 * 60 ? end : end, text: `${named}${clock(start)}-${clock(end)}` };
}

function dayList(days: readonly number[]): string {
  // Runs of consecutive days as ranges: mon-fri, sat,sun.
  const out: string[] = [];
  for (let i = 0; i < days.length; ) {
    let j = i;
    while (j + 1 < days.length && (days[j + 1] as number) === (days[j] as number) + 1) j++;
    const a = DAY_NAMES[(days[i] as number) - 1] as string;
    const b = DAY_NAMES[(days[j] as number) - 1] as string;
    out.push(j - i >= 2 ? `${a}-${b}` : j > i ? `${a},${b}` : a);
    i = j + 1;
  }
  return out.join(',');
}

/** The windows' open spans in one zone, for the local days around [from, to), merged and in order. */
export function openSpans(windows: readonly Window[], zone: string, from: number, to: number, clockOf: { wallClock: (zone: string, t: number) => number; instantOf: (zone: string, wall: number) => number }): Span[] {
  const spans: Span[] = [];
  const firstDay = Math.floor(clockOf.wallClock(zone, from) / 86_400_000) - 1;
  const lastDay = Math.floor(clockOf.wallClock(zone, to) / 86_400_000) + 1;
  for (let day = firstDay; day <= lastDay; day++) {
    const midnight = day * 86_400_000;
    const weekday = ((new Date(midnight).getUTCDay() + 6) % 7) + 1;
    for (const w of windows) {
      if (!w.days.includes(weekday)) continue;
      const endWall = midnight + (w.end > w.start ? w.end : w.end + 24 * 60) * 60_000;
      const s = clockOf.instantOf(zone, midnight + w.start * 60_000);
      const e = clockOf.instantOf(zone, endWall);
      if (e > s && e > from && s < to) spans.push({ from: Math.max(s, from), to: Math.min(e, to) });
    }
  }
  return merge(spans);
}

/** Overlapping or touching spans joined, in order. */
export function merge(spans: readonly Span[]): Span[] {
  const sorted = [...spans].sort((a, b) => a.from - b.from);
  const out: Span[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && s.from <= last.to) out[out.length - 1] = { from: last.from, to: Math.max(last.to, s.to) };
    else out.push(s);
  }
  return out;
}

/** Where both lists of spans (each merged, in order) are open. */
export function intersect(a: readonly Span[], b: readonly Span[]): Span[] {
  const out: Span[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as Span;
    const y = b[j] as Span;
    const from = Math.max(x.from, y.from);
    const to = Math.min(x.to, y.to);
    if (from < to) out.push({ from, to });
    if (x.to < y.to) i++;
    else j++;
  }
  return out;
}
