// --tz auto by region (src/schedule/): the numbering plan's zones for a number it places (a US
// area code, a Russian fixed line), the country's otherwise, and windows read on the region's clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countryZones, openness, parseWindows, rowZoneChecker, ZONE_KEY_END, zonesOf, zonesOfKey, type Schedule } from '../../../src/schedule/index.js';

const at = (iso: string): number => Date.parse(iso);
const auto = { kind: 'auto' } as const;
const zones = (number: string): readonly string[] => {
  const z = zonesOf(auto, { number });
  assert.ok(!('error' in z), `${number}: ${JSON.stringify(z)}`);
  return z;
};

test('a US number gets its area code\'s zone, not every zone of the United States', () => {
  assert.deepEqual(zones('+12125550101'), ['America/New_York']);
  assert.deepEqual(zones('+16465550101'), ['America/New_York']);
  assert.deepEqual(zones('+12135550102'), ['America/Los_Angeles']);
  assert.deepEqual(zones('+13125550103'), ['America/Chicago']);
  assert.deepEqual(zones('+18085550104'), ['Pacific/Honolulu']);
  // Canada's area codes too; and the longest prefix wins: Idaho's 208 spans two zones, its
  // exchanges say which.
  assert.deepEqual(zones('+16045551234'), ['America/Vancouver']);
  assert.deepEqual(zones('+12082011234'), ['America/Denver']);
  assert.deepEqual(zones('+12082151234'), ['America/Los_Angeles']);
  assert.deepEqual(zones('+12082991234'), ['America/Boise', 'America/Los_Angeles']);
  assert.ok(countryZones('US').length > 5, countryZones('US').join(' '));
});

test('a prefix the map does not list, or a number the plan does not place, gets its country\'s zones', () => {
  // 273 is a Canadian area code newer than the map.
  const ca = countryZones('CA');
  assert.ok(ca.length > 1 && ca.includes('America/Vancouver') && ca.includes('America/St_Johns'), ca.join(' '));
  assert.deepEqual(zones('+12732345678'), ca);
  // Australian and Russian mobiles may be anywhere in the country (the map's one zone for them
  // would be a guess); their fixed lines are placed.
  assert.deepEqual(zones('+61412345678'), countryZones('AU'));
  assert.deepEqual(zones('+61892345678'), ['Australia/Adelaide', 'Australia/Perth']);
  assert.deepEqual(zones('+79161234567'), countryZones('RU'));
  assert.deepEqual(zones('+74232123456'), ['Asia/Vladivostok']);
  // Where mobiles are geographic (Brazil), the mobile's area code places it.
  assert.deepEqual(zones('+5511987654321'), ['America/Sao_Paulo']);
});

test('a country with one zone is unchanged', () => {
  assert.deepEqual(zones('+33612345678'), ['Europe/Paris']);
  assert.deepEqual(zones('+33142345678'), ['Europe/Paris']);
  assert.deepEqual(zones('+393123456789'), ['Europe/Rome']);
  assert.deepEqual(zones('+819012345678'), ['Asia/Tokyo']);
  // The map names the Channel Islands and Man beside London for UK numbers: one clock, one name.
  assert.deepEqual(zones('+442071234567'), ['Europe/London']);
  assert.deepEqual(zonesOf(auto, { country: 'GB' }), ['Europe/London']);
  assert.ok('error' in (zonesOf(auto, { number: '+999123' }) as object));
});

test('windows are read on the region\'s clock: 09:00-20:00 is open in New York at 14:00 UTC, not in Los Angeles', () => {
  const w = parseWindows(['09:00-20:00']);
  assert.ok(!('error' in w));
  const s: Schedule = { windows: w, tz: auto, notBefore: undefined, stopAt: undefined };
  const now = at('2026-12-07T14:00:00Z');
  const check = rowZoneChecker(s, now);
  const ny = check('+12125550101', undefined);
  const ny2 = check('+17185550101', undefined);
  const la = check('+12135550102', undefined);
  const ca = check('+12732345678', undefined);
  assert.ok('key' in ny && 'key' in ny2 && 'key' in la && 'key' in ca);
  // Rows are batched by zone set: two New York area codes share one, Los Angeles has its own.
  assert.equal(ny.key, 'America/New_York');
  assert.equal(ny2.key, ny.key);
  assert.equal(la.key, 'America/Los_Angeles');
  assert.equal(ca.key, countryZones('CA').join(' '));
  assert.deepEqual(openness(s, zonesOfKey(`${ny.key}${ZONE_KEY_END}`), now), { state: 'open', until: at('2026-12-08T01:00:00Z') });
  assert.deepEqual(openness(s, zonesOfKey(`${la.key}${ZONE_KEY_END}`), now), { state: 'closed', opensAt: at('2026-12-07T17:00:00Z') });
  // Every zone of the United States at once would open only at 19:00 UTC (09:00 in Honolulu).
  assert.deepEqual(openness(s, countryZones('US'), now), { state: 'closed', opensAt: at('2026-12-07T19:00:00Z') });
});

test('a country\'s zones are its own: another country\'s zone the dataset lists for a corner of it, at an offset inside theirs, is left out', () => {
  const au = countryZones('AU');
  assert.ok(!au.includes('Asia/Tokyo'), au.join(' '));
  for (const z of ['Australia/Perth', 'Australia/Sydney', 'Australia/Lord_Howe', 'Australia/Eucla']) assert.ok(au.includes(z), `${z}: ${au.join(' ')}`);
  assert.ok(!countryZones('DE').includes('Europe/Zurich'), countryZones('DE').join(' '));
  // A country with no zone of its own keeps the one it shares.
  assert.deepEqual(countryZones('AG'), ['America/Puerto_Rico']);
  // Leaving them out changes no window: an AU mobile opens when Perth's 09:00 comes, as before.
  const s: Schedule = { windows: parseWindows(['09:00-20:00']) as Schedule['windows'], tz: { kind: 'auto' }, notBefore: undefined, stopAt: undefined };
  assert.deepEqual(openness(s, au, Date.parse('2026-12-08T15:00:00Z')), openness(s, [...au, 'Asia/Tokyo'], Date.parse('2026-12-08T15:00:00Z')));
});
