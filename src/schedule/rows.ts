// Each row's zones, as a key: rows with the same key share batches (a batch's window is its
// rows' window), and the key says which zones the send pass waits for. The number's country comes
// from libphonenumber-js (--tz auto); a column's zone from the row (--tz column:NAME).
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
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

/** Makes the checker of rows' zones, with what it learns of each zone set kept (a few hundred at most). */
export function rowZoneChecker(s: Schedule, now: number): (e164: string, cell: string | undefined) => RowZones {
  const known = new Map<string, RowZones>();
  return (e164, cell) => {
    const country = s.tz?.kind === 'auto' ? parsePhoneNumberFromString(e164)?.country : undefined;
    const id = s.tz?.kind === 'auto' ? `c:${country ?? ''}` : `z:${cell ?? ''}`;
    let r = known.get(id);
    if (r === undefined) {
      const zones = zonesOf(s.tz, { country, cell });
      if ('error' in zones) r = { error: zones.error, cause: 'zone' };
      else if (commonSpans(s.windows, zones, now, now + 15 * 86_400_000).length === 0) r = { error: `is never inside the send window ${s.windows.map((w) => w.text).join(', ')} in all of ${zones.join(', ')} at once`, cause: 'no-open-time' };
      else r = { key: zones.join(' ') };
      known.set(id, r);
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
