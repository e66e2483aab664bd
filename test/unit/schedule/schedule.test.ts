// Send windows and deadlines (src/schedule/): window arithmetic on each zone's clock, days of the
// week, DST changes, the intersection for a country with several zones, and deadlines, all at
// fixed instants.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commonSpans, countryZones, describeSchedule, instantOrError, openness, parseDuration, parseInstant, parseWindow, parseWindows, parseZoneRule, scheduleFromRecord, scheduleRecord, zonesOf, type Schedule, type ScheduleRecord, type Window } from '../../../src/schedule/index.js';

const at = (iso: string): number => Date.parse(iso);
const iso = (t: number): string => new Date(t).toISOString();
function windows(...texts: string[]): Window[] {
  const w = parseWindows(texts);
  assert.ok(!('error' in w), JSON.stringify(w));
  return w;
}
function sched(texts: string[], extra: Partial<Schedule> = {}): Schedule {
  return { windows: windows(...texts), tz: { kind: 'auto' }, notBefore: undefined, stopAt: undefined, ...extra };
}

test('windows parse with days, and bad ones say what is wrong', () => {
  assert.deepEqual(parseWindow('mon-fri:09:00-20:00'), { days: [1, 2, 3, 4, 5], start: 540, end: 1200, text: 'mon-fri:09:00-20:00' });
  assert.equal((parseWindow('sat:10-16') as Window).text, 'sat:10:00-16:00');
  assert.deepEqual((parseWindow('fri-mon:08:00-09:00') as Window).days, [1, 5, 6, 7]);
  assert.equal((parseWindow('sat,sun:10:00-16:00') as Window).text, 'sat,sun:10:00-16:00');
  assert.equal((parseWindow('22:00-06:00') as Window).end, 360);
  for (const bad of ['8-25', '08:60-09:00', 'funday:08:00-09:00', '09:00-09:00', 'soon', '24:00-06:00']) assert.ok('error' in parseWindow(bad), bad);
});

test('a window is read on the zone\'s clock: 08:00-21:00 in New York is 13:00-02:00 UTC in winter, 12:00-01:00 in summer', () => {
  const s = sched(['08:00-21:00']);
  const ny = ['America/New_York'];
  assert.deepEqual(openness(s, ny, at('2026-01-15T12:59:00Z')), { state: 'closed', opensAt: at('2026-01-15T13:00:00Z') });
  assert.deepEqual(openness(s, ny, at('2026-01-15T13:00:00Z')), { state: 'open', until: at('2026-01-16T02:00:00Z') });
  assert.deepEqual(openness(s, ny, at('2026-07-15T12:30:00Z')), { state: 'open', until: at('2026-07-16T01:00:00Z') });
  // Closed at 21:00 local: the next opening is tomorrow's 08:00.
  assert.deepEqual(openness(s, ny, at('2026-07-16T01:00:00Z')), { state: 'closed', opensAt: at('2026-07-16T12:00:00Z') });
});

test('DST: the day the clocks change keeps the local hours (Paris, 29 March and 25 October 2026)', () => {
  const s = sched(['08:00-21:00']);
  const paris = ['Europe/Paris'];
  // Saturday 28 March: UTC+1; Sunday 29 March: UTC+2.
  assert.deepEqual(openness(s, paris, at('2026-03-28T22:00:00Z')), { state: 'closed', opensAt: at('2026-03-29T06:00:00Z') });
  assert.deepEqual(openness(s, paris, at('2026-03-29T06:00:00Z')), { state: 'open', until: at('2026-03-29T19:00:00Z') });
  // Sunday 25 October: back to UTC+1; 08:00 is 07:00 UTC.
  assert.deepEqual(openness(s, paris, at('2026-10-25T06:30:00Z')), { state: 'closed', opensAt: at('2026-10-25T07:00:00Z') });
  // A window that starts in the spring-forward gap starts the gap's length later (02:30 is 03:30 CEST).
  const gap = sched(['02:30-04:00']);
  assert.deepEqual(openness(gap, paris, at('2026-03-29T00:00:00Z')), { state: 'closed', opensAt: at('2026-03-29T01:30:00Z') });
});

test('days: mon-fri and sat windows; Sunday waits for Monday', () => {
  const s = sched(['mon-fri:09:00-20:00', 'sat:10:00-16:00']);
  const ldn = ['Europe/London'];
  // Saturday 5 December 2026, 09:30 London: opens at 10:00.
  assert.deepEqual(openness(s, ldn, at('2026-12-05T09:30:00Z')), { state: 'closed', opensAt: at('2026-12-05T10:00:00Z') });
  assert.deepEqual(openness(s, ldn, at('2026-12-05T12:00:00Z')), { state: 'open', until: at('2026-12-05T16:00:00Z') });
  // Sunday noon: Monday 09:00.
  assert.deepEqual(openness(s, ldn, at('2026-12-06T12:00:00Z')), { state: 'closed', opensAt: at('2026-12-07T09:00:00Z') });
});

test('a window past midnight joins the next day\'s', () => {
  const s = sched(['22:00-06:00']);
  assert.deepEqual(openness(s, ['UTC'], at('2026-12-07T23:00:00Z')), { state: 'open', until: at('2026-12-08T06:00:00Z') });
  assert.deepEqual(openness(s, ['UTC'], at('2026-12-08T12:00:00Z')), { state: 'closed', opensAt: at('2026-12-08T22:00:00Z') });
});

test('several zones: open only where every one is open; none at all is "never"', () => {
  const s = sched(['08:00-21:00']);
  // New York (UTC-5) and Honolulu (UTC-10) in winter: 13:00-02:00 ∩ 18:00-07:00 = 18:00-02:00 UTC.
  assert.deepEqual(openness(s, ['America/New_York', 'Pacific/Honolulu'], at('2026-01-15T14:00:00Z')), { state: 'closed', opensAt: at('2026-01-15T18:00:00Z') });
  assert.deepEqual(openness(s, ['America/New_York', 'Pacific/Honolulu'], at('2026-01-15T19:00:00Z')), { state: 'open', until: at('2026-01-16T02:00:00Z') });
  // 09:00-10:00 in Tokyo and in New York never overlap.
  assert.deepEqual(openness(sched(['09:00-10:00']), ['Asia/Tokyo', 'America/New_York'], at('2026-01-15T00:00:00Z')), { state: 'never' });
  // The United States under --tz auto: every zone the dataset lists, Honolulu and Adak among them.
  const us = countryZones('US');
  assert.ok(us.includes('America/New_York') && us.includes('Pacific/Honolulu'), us.join(' '));
  const spans = commonSpans(windows('08:00-21:00'), us, at('2026-01-15T00:00:00Z'), at('2026-01-16T00:00:00Z'));
  assert.deepEqual(spans.map((x) => [iso(x.from), iso(x.to)]), [['2026-01-15T00:00:00.000Z', '2026-01-15T02:00:00.000Z'], ['2026-01-15T18:00:00.000Z', '2026-01-16T00:00:00.000Z']]);
  assert.deepEqual(countryZones('FR'), ['Europe/Paris']);
  assert.deepEqual(countryZones('ZZ'), []);
});

test('deadlines: --stop-at ends the open time; --not-before starts it', () => {
  const s = sched(['08:00-21:00'], { stopAt: at('2026-01-15T15:00:00Z') });
  assert.deepEqual(openness(s, ['Europe/London'], at('2026-01-15T09:00:00Z')), { state: 'open', until: at('2026-01-15T15:00:00Z') });
  assert.deepEqual(openness(s, ['Europe/London'], at('2026-01-15T15:00:00Z')), { state: 'deadline' });
  // The next opening comes after the deadline.
  assert.deepEqual(openness(s, ['America/Los_Angeles'], at('2026-01-15T10:00:00Z')), { state: 'deadline' });
  const nb: Schedule = { windows: [], tz: undefined, notBefore: at('2026-01-15T12:00:00Z'), stopAt: undefined };
  assert.deepEqual(openness(nb, [], at('2026-01-15T09:00:00Z')), { state: 'closed', opensAt: at('2026-01-15T12:00:00Z') });
  assert.deepEqual(openness(nb, [], at('2026-01-15T12:00:00Z')), { state: 'open', until: Number.POSITIVE_INFINITY });
  const both = sched(['08:00-21:00'], { notBefore: at('2026-01-15T12:00:00Z') });
  assert.deepEqual(openness(both, ['Europe/London'], at('2026-01-15T09:00:00Z')), { state: 'closed', opensAt: at('2026-01-15T12:00:00Z') });
});

test('instants: ISO 8601 with an offset, and durations from now', () => {
  const now = at('2026-12-07T05:00:00Z');
  assert.equal(parseInstant('2026-12-11T20:00:00-05:00', now), at('2026-12-12T01:00:00Z'));
  assert.equal(parseInstant('2026-12-11T20:00Z', now), at('2026-12-11T20:00:00Z'));
  assert.equal(parseInstant('2h', now), now + 7_200_000);
  assert.equal(parseInstant('1d12h', now), now + 36 * 3_600_000);
  assert.equal(parseInstant('PT90M', now), now + 5_400_000);
  assert.equal(parseDuration('P1W'), 7 * 86_400_000);
  for (const bad of ['tomorrow', '2026-02-30', '2h later', '', 'P', 'PT']) assert.equal(parseInstant(bad, now), undefined, bad);
  assert.ok('error' in (instantOrError('friday', now) as object));
});

test('zone rules and each row\'s zones', () => {
  assert.deepEqual(parseZoneRule('Europe/Paris'), { kind: 'zone', zone: 'Europe/Paris' });
  assert.deepEqual(parseZoneRule('column:tz'), { kind: 'column', column: 'tz' });
  assert.deepEqual(parseZoneRule('auto'), { kind: 'auto' });
  assert.ok('error' in parseZoneRule('Mars/Olympus'));
  assert.ok('error' in parseZoneRule('+02:00'));
  assert.deepEqual(zonesOf({ kind: 'column', column: 'tz' }, { cell: ' Asia/Tokyo ' }), ['Asia/Tokyo']);
  assert.ok('error' in (zonesOf({ kind: 'column', column: 'tz' }, { cell: '' }) as object));
  assert.deepEqual(zonesOf({ kind: 'auto' }, { country: 'GB' }), ['Europe/London']);
});

test('a schedule survives its journal record', () => {
  const s = sched(['mon-fri:09:00-20:00'], { tz: { kind: 'column', column: 'zone' }, stopAt: at('2026-12-11T20:00:00Z') });
  const back = scheduleFromRecord(JSON.parse(JSON.stringify(scheduleRecord(s))) as ScheduleRecord);
  assert.deepEqual(back, s);
  assert.equal(describeSchedule(s), "send window mon-fri:09:00-20:00 in each row's zone (column zone); stop at 2026-12-11T20:00:00.000Z");
});

test('a wait across zones names first the zone whose window opens last: the opening it waits for', async () => {
  const { waitUntilOpen, windowWait } = await import('../../../src/schedule/index.js');
  // 12:00 UTC: 23:00 in Sydney (opens 22:00 UTC), 20:00 in Perth (opens 01:00 UTC the next day).
  const now = Date.parse('2026-12-08T12:00:00Z');
  const stop = new AbortController();
  let told: { zones: readonly string[]; opensAt: number } | undefined;
  const result = await waitUntilOpen(sched(['09:00-20:00']), ['Australia/Sydney', 'Australia/Perth'], {
    now: () => now,
    signal: stop.signal,
    exitWhenClosed: false,
    onWait: (zones, opensAt) => {
      told = { zones, opensAt };
      stop.abort();
    },
  });
  assert.equal(result.state, 'aborted');
  assert.deepEqual(told?.zones, ['Australia/Perth', 'Australia/Sydney']);
  assert.equal(told?.opensAt, Date.parse('2026-12-09T01:00:00Z'));
  assert.match(windowWait(told?.zones ?? [], told?.opensAt ?? 0), /waiting until Wed 09:00 in Australia\/Perth \(and 1 more zone\), 2026-12-09T01:00:00\.000Z/);
});
