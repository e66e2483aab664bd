// The zones of a number's region, where the numbering plan names them (a US area code, a Russian
// or Australian prefix): the longest prefix of the number in libphonenumber's time-zone map
// (./region-zones-data.ts, made by scripts/region-zones.mjs; docs/design.md: "Time zones"). The
// data is a bundle of its own in dist/, read the first time a number's zones are looked up.
import { PREFIXES, ZONES } from './region-zones-data.js';
import { canonicalZone } from './zones.js';

interface Table {
  /** Prefix (digits after the +) → its zone set's index. */
  readonly byPrefix: Map<string, number>;
  /** Each set's zone names as the data spells them; read through Intl when first asked for. */
  readonly raw: ReadonlyArray<readonly string[]>;
  readonly sets: Array<readonly string[] | undefined>;
  readonly longest: number;
}

let table: Table | undefined;

function load(): Table {
  const names = ZONES.split(' ');
  const byPrefix = new Map<string, number>();
  const raw: string[][] = [];
  let longest = 0;
  for (const group of PREFIXES.split(';')) {
    const [zones = '', prefixes = ''] = group.split(':');
    const i = raw.push(zones.split(',').map((n) => names[Number(n)] ?? '')) - 1;
    for (const p of prefixes.split(' ')) {
      byPrefix.set(p, i);
      if (p.length > longest) longest = p.length;
    }
  }
  return { byPrefix, raw, sets: [], longest };
}

/**
 * The zones of the longest prefix of `e164` (+ and digits) in the map, canonical and sorted;
 * undefined when no prefix matches (the caller takes the country's zones), or when the Node that
 * runs msgr knows none of the set's zones.
 */
export function regionZones(e164: string): readonly string[] | undefined {
  const t = (table ??= load());
  const digits = e164.startsWith('+') ? e164.slice(1) : e164;
  for (let n = Math.min(t.longest, digits.length); n > 0; n--) {
    const i = t.byPrefix.get(digits.slice(0, n));
    if (i === undefined) continue;
    let zones = t.sets[i];
    if (zones === undefined) {
      zones = [...new Set((t.raw[i] ?? []).flatMap((z) => canonicalZone(z) ?? []))].sort();
      t.sets[i] = zones;
    }
    return zones.length > 0 ? zones : undefined;
  }
  return undefined;
}
