// Each row's zones, as a key: rows with the same key share batches (a batch's window is its
// rows' window), and the key says which zones the send pass waits for. The zones come from the
// number (--tz auto: its region's or its country's) or from the row (--tz column:NAME).
import { commonSpans, zonesOf, type Schedule } from './plan.js';

/** Between a row's zone key and its message key in a grouping key: no zone name has it. */
export const ZONE_KEY_END = '\u001e';

/** A row's zones, checked: its key, or why it cannot be sent (no zone known; never open). */
export type RowZones = { readonly key: string } | { readonly error: string; readonly cause: 'zone' | 'no-open-time' };

/**
 * Whether rows have zones of their own (by country, or a column): then they are batched by
 * them. One zone for every row needs no grouping.
 */
export function zonedRows(s: Schedule | undefined): boolean {
  return s !== undefined && s.windows.length > 0 && s.tz !== undefined && s.tz.kind !== 'zone';
}

/**
 * Makes the checker of rows' zones. What it learns is kept by zone set (a few hundred at most:
 * the sets of the region map and of the countries), and a column's zone by its cell's text; a
 * number's zones are looked up for each row (a prefix lookup, or a parse of the number: their
 * cost per row is in docs/design.md, "Time zones").
 */
export function rowZoneChecker(s: Schedule, now: number): (e164: string, cell: string | undefined) => RowZones {
  const bySet = new Map<string, RowZones>();
  const byCell = new Map<string, readonly string[] | { readonly error: string }>();
  const cellZones = (cell: string | undefined): readonly string[] | { readonly error: string } => {
    let z = byCell.get(cell ?? '');
    if (z === undefined) byCell.set(cell ?? '', (z = zonesOf(s.tz, { cell })));
    return z;
  };
  return (e164, cell) => {
    const zones = s.tz?.kind === 'auto' ? zonesOf(s.tz, { number: e164 }) : cellZones(cell);
    if ('error' in zones) return { error: zones.error, cause: 'zone' };
    const key = zones.join(' ');
    let r = bySet.get(key);
    if (r === undefined) {
      r = commonSpans(s.windows, zones, now, now + 15 * 86_400_000).length === 0 ? { error: `is never inside the send window ${s.windows.map((w) => w.text).join(', ')} in all of ${zones.join(', ')} at once`, cause: 'no-open-time' } : { key };
      bySet.set(key, r);
    }
    return r;
  };
}

/** The zones a grouping key names (none when the key has no zone part). */
export function zonesOfKey(key: string | undefined): readonly string[] {
  if (key === undefined) return [];
  const end = key.indexOf(ZONE_KEY_END);
  return end === -1 ? [] : key.slice(0, end).split(' ');
}

/** The message key inside a grouping key (what is left once the zones are taken off). */
export function messageKeyOf(key: string): string {
  const end = key.indexOf(ZONE_KEY_END);
  return end === -1 ? key : key.slice(end + 1);
}
