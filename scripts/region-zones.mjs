// Writes src/schedule/region-zones-data.ts, the numbering plan's time zones by number prefix that
// `--tz auto` reads (docs/design.md: "Time zones"), from Google libphonenumber's
// resources/timezones/map_data.txt (Apache-2.0). Run by hand when that file changes, never in CI:
//
//   git clone --filter=blob:none https://github.com/google/libphonenumber /tmp/libphonenumber
//   node scripts/region-zones.mjs /tmp/libphonenumber     (a checkout or a bare clone; reads HEAD)
//
// What it keeps, so that the module stays small:
// - only the calling codes whose prefixes name more than one zone between them (+1, +7, +52, +55,
//   +61…), a tzdata link counted as the zone it links to (Europe/Jersey is Europe/London's clock;
//   countries-and-timezones says which are links): elsewhere the country's zones already say it all;
// - in a prefix's zones, one name per clock: Europe/Guernsey&Europe/Isle_of_Man&Europe/London is
//   Europe/London (the name linked to, or the first of its links);
// - not the line of a bare calling code (`1|America/Adak&…`): a number no longer prefix matches
//   gets its country's zones instead, as before the map;
// - not a prefix whose zones are those of the longest shorter prefix kept: the lookup (longest
//   prefix) gives the same answer without it.
// Zone names are written as the source spells them; src/schedule/regions.ts reads them through
// Intl at run time (the Node that runs msgr knows which names its ICU has).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { getTimezone } from 'countries-and-timezones';

const SOURCE = 'resources/timezones/map_data.txt';
const OUT = 'src/schedule/region-zones-data.ts';

const repo = process.argv[2];
if (repo === undefined) {
  console.error('usage: node scripts/region-zones.mjs PATH-TO-A-LIBPHONENUMBER-CLONE');
  process.exit(2);
}
const git = (...args) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
const commit = git('rev-parse', 'HEAD').trim();
const fileCommit = git('log', '-1', '--format=%H %cs', 'HEAD', '--', SOURCE).trim();
const text = git('show', `HEAD:${SOURCE}`);

// The calling codes, from libphonenumber-js's metadata (they are prefix-free: one matches at most).
const metadata = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('libphonenumber-js/max/metadata'), 'utf8'));
const callingCodes = new Set(Object.keys(metadata.country_calling_codes));
const callingCodeOf = (prefix) => [1, 2, 3].map((n) => prefix.slice(0, n)).find((c) => callingCodes.has(c));

/** prefix → sorted zone names, by calling code. */
const byCode = new Map();
for (const line of text.split('\n')) {
  if (line.trim() === '' || line.startsWith('#')) continue;
  const m = /^(\d+)\|([A-Za-z0-9_/+-]+(?:&[A-Za-z0-9_/+-]+)*)$/.exec(line.trim());
  if (m === null) throw new Error(`${SOURCE}: cannot read the line ${JSON.stringify(line)}`);
  const [, prefix, zones] = m;
  const code = callingCodeOf(prefix);
  if (code === undefined) throw new Error(`${SOURCE}: ${prefix} starts with no calling code libphonenumber-js knows`);
  if (!byCode.has(code)) byCode.set(code, new Map());
  byCode.get(code).set(prefix, onePerClock(zones.split('&')));
}

/** The zone a tzdata link names (Europe/Jersey: Europe/London), or the zone itself. */
function clockOf(zone) {
  return getTimezone(zone)?.aliasOf ?? zone;
}

/** The zones, one name per clock (the zone linked to, when it is there), sorted. */
function onePerClock(zones) {
  const byClock = new Map();
  for (const z of [...new Set(zones)].sort()) {
    const clock = clockOf(z);
    if (!byClock.has(clock) || z === clock) byClock.set(clock, z);
  }
  return [...byClock.values()].sort();
}

const kept = new Map();
for (const [code, prefixes] of byCode) {
  const all = new Set([...prefixes.values()].flat().map(clockOf));
  if (all.size < 2) continue;
  for (const [prefix, zones] of [...prefixes].sort(([a], [b]) => a.length - b.length || a.localeCompare(b))) {
    if (prefix === code) continue;
    let parent;
    for (let n = prefix.length - 1; n > code.length && parent === undefined; n--) parent = kept.get(prefix.slice(0, n));
    if (parent !== undefined && parent.join('&') === zones.join('&')) continue;
    kept.set(prefix, zones);
  }
}

// Zones by index; then each zone set once, with its prefixes.
const zoneNames = [...new Set([...kept.values()].flat())].sort();
const index = new Map(zoneNames.map((z, i) => [z, i]));
const sets = new Map();
for (const [prefix, zones] of [...kept].sort(([a], [b]) => a.localeCompare(b))) {
  const key = zones.map((z) => index.get(z)).join(',');
  if (!sets.has(key)) sets.set(key, []);
  sets.get(key).push(prefix);
}
const groups = [...sets].map(([key, prefixes]) => `${key}:${prefixes.join(' ')}`).join(';');
const codes = [...new Set([...kept.keys()].map(callingCodeOf))].sort((a, b) => Number(a) - Number(b));

const module = `// Generated by scripts/region-zones.mjs: do not edit; run it again (docs/design.md: "Time zones").
// Source: Google libphonenumber (https://github.com/google/libphonenumber), ${SOURCE},
// at commit ${commit} (the file's last change: ${fileCommit}).
// Copyright (C) 2012 The Libphonenumber Authors, licensed under the Apache License, Version 2.0 (https://www.apache.org/licenses/LICENSE-2.0);
// reduced to the calling codes whose prefixes name several zones, without redundant prefixes.
// Calling codes: ${codes.map((c) => `+${c}`).join(' ')}. ${kept.size} prefixes, ${sets.size} zone sets, ${zoneNames.length} zones.

/** The zone names, each referred to by its index in this list (space-separated). */
export const ZONES = ${JSON.stringify(zoneNames.join(' '))};

/**
 * Each zone set with its number prefixes (calling code and national digits):
 * \`i,j:prefix prefix …\`, sets joined by \`;\`, i and j indexes into ZONES.
 */
export const PREFIXES = ${JSON.stringify(groups)};
`;
writeFileSync(OUT, module);
console.log(`${OUT}: ${kept.size} prefixes of ${codes.length} calling codes, ${sets.size} zone sets, ${zoneNames.length} zones, ${Buffer.byteLength(module)} bytes (source ${commit.slice(0, 12)})`);
