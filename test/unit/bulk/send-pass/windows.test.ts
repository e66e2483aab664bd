// Send windows and deadlines in a whole send-bulk run (docs/send-windows.md), in-process against
// a fake API and a clock of the test's that runs fast: the run waits while a row's window is
// closed and goes on when it opens, and the API checks that every recipient it gets is inside
// its window on its own clock; --exit-when-closed stops (exit 8) with the command that goes on;
// a deadline leaves rows "not sent (deadline)", and a resume after it is refused unless it gives
// a new one.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ExitCode } from '../../../../src/errors.js';
import { fakeApi, accept, type FakeApi, type Responder } from '../../../support/fake-api.js';
import { fakeContext } from '../../../support/fake-context.js';
import { bulkFiles, runInProcess, sendBulk } from '../../../support/in-process.js';

/** Each row's number and zone: New York, London, Sydney, Paris, Los Angeles. */
const ROWS: Array<[string, string]> = [
  ['+12125550101', 'America/New_York'],
  ['+447911123456', 'Europe/London'],
  ['+61412345678', 'Australia/Sydney'],
  ['+33612345678', 'Europe/Paris'],
  ['+12135550102', 'America/Los_Angeles'],
];
const ZONE = new Map(ROWS);

/** A clock that starts at `iso` and runs `speed` times faster than the real one. */
function fastClock(iso: string, speed: number): () => Date {
  const start = Date.parse(iso);
  const t0 = performance.now();
  return () => new Date(start + (performance.now() - t0) * speed);
}

/**
 * A clock that starts at `iso` and keeps real time until the run has opened its journal (its
 * "run ID; journal" line, before any batch waits or leaves) or sends its first request, then runs
 * `speed` times faster: the preflight, a second or more on a loaded machine, takes no hours off
 * the test's day. A wait learns the clock's speed from its first short step, so the switch comes
 * before the first wait. `ctx` is read once the run has one.
 */
function clockFastOnceWaiting(iso: string, speed: number): { now: () => Date; ctx: { err?: () => string }; go: () => void } {
  const start = Date.parse(iso);
  const t0 = performance.now();
  let fast: { real: number; clock: number } | undefined;
  const ctx: { err?: () => string } = {};
  const go = (): void => {
    if (fast === undefined) fast = { real: performance.now(), clock: start + performance.now() - t0 };
  };
  const now = (): Date => {
    if (fast === undefined && /^run \S+; journal /m.test(ctx.err?.() ?? '')) go();
    return new Date(fast === undefined ? start + performance.now() - t0 : fast.clock + (performance.now() - fast.real) * speed);
  };
  return { now, ctx, go };
}

/** The hour and minute on `zone`'s clock at `t`, as minutes after midnight. */
function localMinutes(zone: string, t: Date): number {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(t);
  const n = (type: string): number => Number(parts.find((p) => p.type === type)?.value);
  return n('hour') * 60 + n('minute');
}

function files(): ReturnType<typeof bulkFiles> & { csv: string } {
  const c = bulkFiles(1, 'msgr-windows-');
  const csv = join(c.dir, 'people.csv');
  writeFileSync(csv, ['msisdn,name,tz', ...ROWS.map(([n, z], i) => `${n},P${i},${z}`)].join('\n') + '\n');
  return { ...c, csv };
}

/** The API, checking every recipient against 09:00-20:00 on its own clock when the request arrives. */
function checkedApi(now: () => Date, seen: Array<{ msisdn: string; at: Date }>, onRequest?: () => void): FakeApi {
  const respond: Responder = (r, i) => {
    onRequest?.();
    const at = now();
    for (const x of r.body.recipients ?? []) {
      const zone = ZONE.get(x.msisdn) ?? 'UTC';
      const m = localMinutes(zone, at);
      assert.ok(m >= 9 * 60 && m < 20 * 60, `${x.msisdn} sent at ${at.toISOString()}, ${Math.floor(m / 60)}:${m % 60} in ${zone}`);
      seen.push({ msisdn: x.msisdn, at });
    }
    return accept(r, i);
  };
  return fakeApi(respond);
}

function run(env: Record<string, string>, now: () => Date, api: FakeApi, argv: string[], clock?: { ctx: { err?: () => string } }) {
  const ctx = { ...fakeContext({ env, http: api.http }), now };
  if (clock !== undefined) clock.ctx.err = () => ctx.err();
  return sendBulk(ctx, argv).then((err) => ({ err, ctx }));
}

const COMMON = ['--from', 'Acme', '--text', 'Hi {{name}}', '--window', '09:00-20:00', '--tz', 'column:tz', '--yes'];

describe('send windows in send-bulk', () => {
  test('the run waits while a window is closed, goes on when it opens, and sends no row outside its own', async () => {
    const c = files();
    // Monday 7 December 2026, 05:00 UTC: only Sydney (16:00) is open. Once the run waits or
    // sends, one real ms is 36 s.
    const clock = clockFastOnceWaiting('2026-12-07T05:00:00Z', 36_000);
    const now = clock.now;
    const seen: Array<{ msisdn: string; at: Date }> = [];
    const api = checkedApi(now, seen, clock.go);
    const { err, ctx } = await run(c.env, now, api, [c.csv, ...COMMON, '--report', join(c.dir, 'out.csv')], clock);
    assert.equal(err, undefined, err?.message);
    // Batched by zone: one request per row, each inside its window.
    assert.deepEqual(seen.map((s) => s.msisdn).sort(), ROWS.map(([n]) => n).sort());
    assert.equal(api.requests.length, 5);
    // The run said that it waits, and for whom: Los Angeles opens last, at 09:00 there (17:00
    // UTC), on whichever day the fast clock reaches it (a loaded machine can stall it past a
    // window; each send is checked inside its window above, whatever the day).
    assert.match(ctx.err(), /outside the send window: waiting until \w{3} 09:00 in America\/Los_Angeles, 2026-12-\d\dT17:00:00\.000Z; Ctrl-C stops/);
    assert.match(ctx.err(), /when: send window 09:00-20:00 in each row's zone \(column tz\)/);
    assert.match(readFileSync(join(c.dir, 'out.csv'), 'utf8'), /\+12135550102,accepted/);
  });

  test('--exit-when-closed sends what is open, stops with 8 and the command that goes on; the resume sends the rest once open', async () => {
    const c = files();
    const seen: Array<{ msisdn: string; at: Date }> = [];
    const early = fastClock('2026-12-07T05:00:00Z', 1);
    const first = await run(c.env, early, checkedApi(early, seen), [c.csv, ...COMMON, '--exit-when-closed']);
    assert.equal(first.err?.exitCode, ExitCode.WINDOW_CLOSED, first.err?.message);
    assert.match(first.err?.message ?? '', /outside the send window: 1 of 5 recipients accepted; the next batch may leave at 2026-12-07T08:00:00\.000Z/);
    const resume = /msgr send-bulk (.*)$/m.exec(first.err?.hint ?? '')?.[1] ?? '';
    assert.match(resume, /--resume .*--exit-when-closed/);
    assert.deepEqual(seen.map((s) => s.msisdn), ['+61412345678']);
    // The journal keeps the window: the resume gives none of its flags. At 14:30 UTC New York,
    // London and Paris are open; Los Angeles (06:30) is not.
    const later = fastClock('2026-12-07T14:30:00Z', 1);
    const args = resume.split(' ').map((a) => a.replace(/^'(.*)'$/, '$1'));
    const second = await run(c.env, later, checkedApi(later, seen), args);
    assert.equal(second.err?.exitCode, ExitCode.WINDOW_CLOSED, second.err?.message);
    assert.deepEqual(seen.map((s) => s.msisdn).sort(), ['+12125550101', '+33612345678', '+447911123456', '+61412345678']);
    // A resume cannot change the window, and is not offered --any-time (it would send the rest at
    // whatever hour it is where they live): the same resume, or a --restart with the new window.
    const wider = await run(c.env, later, checkedApi(later, seen), [...args, '--window', '05:00-23:00']);
    assert.equal(wider.err?.exitCode, ExitCode.USAGE);
    assert.match(wider.err?.message ?? '', /keeps the send window it started with \(09:00-20:00\); --window cannot change it/);
    assert.match(wider.err?.hint ?? '', /^Leave out --window to resume it as it was\. To send the rest in other windows, start over with --restart/);
    assert.doesNotMatch(wider.err?.hint ?? '', /--any-time/);
    const evening = fastClock('2026-12-07T22:30:00Z', 1);
    const third = await run(c.env, evening, checkedApi(evening, seen), args);
    assert.equal(third.err, undefined, third.err?.message);
    // Each row once, every one inside its window.
    assert.deepEqual(seen.map((s) => s.msisdn).sort(), ROWS.map(([n]) => n).sort());
  });

  test('a deadline leaves rows "not sent (deadline)"; a resume after it is refused unless it gives a new one, and the command offered is accepted', async () => {
    const c = files();
    const seen: Array<{ msisdn: string; at: Date }> = [];
    const report = join(c.dir, 'out.csv');
    // 13:00 UTC, deadline 16:00: New York opens at 14:00 and London, Paris are open; Sydney
    // (00:00) opens at 22:00 and Los Angeles at 17:00, after the deadline.
    // The clock keeps real time until the run has opened its journal, then runs 3,600 times
    // faster: an hour takes a real second, so the requests of New York (opening at 14:00),
    // London and Paris are in well before the deadline (16:00) even on a loaded machine.
    const clock = clockFastOnceWaiting('2026-12-07T13:00:00Z', 3_600);
    const now = clock.now;
    const first = await run(c.env, now, checkedApi(now, seen), [c.csv, ...COMMON, '--stop-at', '2026-12-07T16:00:00Z', '--report', report], clock);
    assert.equal(first.err?.exitCode, ExitCode.PARTIAL, first.err?.message);
    assert.match(first.err?.message ?? '', /deadline --stop-at 2026-12-07T16:00:00\.000Z: 3 of 5 recipients accepted, 2 not sent \(deadline\)/);
    const lines = readFileSync(report, 'utf8');
    assert.match(lines, /\+61412345678,not-sent,,,not sent \(deadline\)/);
    assert.match(lines, /\+12135550102,not-sent,,,not sent \(deadline\)/);
    assert.deepEqual(seen.map((s) => s.msisdn).sort(), ['+12125550101', '+33612345678', '+447911123456']);
    // The next day: the resume is refused, nothing is sent, and the refusal offers a new deadline.
    const nextDay = fastClock('2026-12-08T05:00:00Z', 1);
    const refused = await run(c.env, nextDay, checkedApi(nextDay, seen), [c.csv, '--resume', '--report', report]);
    assert.equal(refused.err?.exitCode, ExitCode.USAGE, refused.err?.message);
    assert.match(refused.err?.message ?? '', /deadline \(--stop-at 2026-12-07T16:00:00\.000Z\) has passed/);
    const offered = /give it a new deadline: msgr send-bulk (.*)$/m.exec(refused.err?.hint ?? '')?.[1] ?? '';
    assert.match(offered, /--resume .*--stop-at 4h$/);
    assert.equal(seen.length, 3);
    // The command offered is accepted: at 05:00 UTC Sydney is open (16:00), Los Angeles is not
    // before the new deadline (09:00 UTC).
    const args = offered.split(' ').map((a) => a.replace(/^'(.*)'$/, '$1'));
    const again = await run(c.env, nextDay, checkedApi(nextDay, seen), args);
    assert.equal(again.err?.exitCode, ExitCode.PARTIAL, again.err?.message);
    assert.deepEqual(seen.map((s) => s.msisdn).sort(), ['+12125550101', '+33612345678', '+447911123456', '+61412345678']);
  });

  test('a dry run and the --json summary show the schedule; a zone column that is not a zone makes the row invalid', async () => {
    const c = files();
    const now = fastClock('2026-12-07T05:00:00Z', 1);
    const api = fakeApi();
    const dry = await run(c.env, now, api, [c.csv, ...COMMON, '--stop-at', '8h', '--dry-run', '--json']);
    assert.equal(dry.err, undefined, dry.err?.message);
    const doc = JSON.parse(dry.ctx.out()) as { schedule: unknown };
    assert.deepEqual(doc.schedule, { windows: ['09:00-20:00'], tz: 'column:tz', notBefore: null, stopAt: '2026-12-07T13:00:00.000Z' });
    writeFileSync(c.csv, `msisdn,name,tz\n+447911123456,A,Europe/London\n+447911123457,B,Mars/Olympus\n`);
    const bad = await run(c.env, now, api, [c.csv, ...COMMON, '--dry-run']);
    assert.equal(bad.err?.exitCode, ExitCode.USAGE);
    assert.match(bad.err?.message ?? '', /1 invalid row; nothing was sent:[^]*line 3: "Mars\/Olympus" in column tz is not an IANA time zone/);
    assert.deepEqual(api.requests, []);
  });

  test('--tz auto reads each number\'s region where the numbering plan names it (a US area code), else its country', async () => {
    const c = files();
    // 13:30 UTC: London 13:30 is open; New York (212) opens at 14:00 UTC, Los Angeles (213) at
    // 17:00; every zone of the United States at once would open only at 19:00 (09:00 in Honolulu).
    // Batches leave in the file's order, each once its window opens (docs/send-windows.md).
    // The clock keeps real time until the first request, then runs 36,000 times faster.
    let fast: { real: number; clock: number } | undefined;
    const start = Date.parse('2026-12-07T13:30:00Z');
    const t0 = performance.now();
    const now = (): Date => new Date(fast === undefined ? start + performance.now() - t0 : fast.clock + (performance.now() - fast.real) * 36_000);
    const sent: Array<{ msisdn: string; at: Date }> = [];
    const api = fakeApi((r, i) => {
      for (const x of r.body.recipients ?? []) sent.push({ msisdn: x.msisdn, at: now() });
      fast ??= { real: performance.now(), clock: now().getTime() };
      return accept(r, i);
    });
    writeFileSync(c.csv, `msisdn,name\n+447911123456,B\n+12125550101,A\n+12135550102,C\n`);
    const { err } = await run(c.env, now, api, [c.csv, '--from', 'Acme', '--text', 'Hi', '--window', '09:00-20:00', '--yes']);
    assert.equal(err, undefined, err?.message);
    const at = (msisdn: string): number => {
      const s = sent.find((x) => x.msisdn === msisdn);
      assert.ok(s !== undefined, `${msisdn} was not sent`);
      return s.at.getTime();
    };
    assert.ok(at('+447911123456') < Date.parse('2026-12-07T14:00:00Z'), `UK sent at ${new Date(at('+447911123456')).toISOString()}`);
    const ny = at('+12125550101');
    assert.ok(ny >= Date.parse('2026-12-07T14:00:00Z') && ny < Date.parse('2026-12-07T19:00:00Z'), `New York sent at ${new Date(ny).toISOString()}`);
    const la = at('+12135550102');
    assert.ok(la >= Date.parse('2026-12-07T17:00:00Z') && la < Date.parse('2026-12-08T04:00:00Z'), `Los Angeles sent at ${new Date(la).toISOString()}`);
  });
});

describe('send windows in send', () => {
  const ONE = ['send', '--from', 'Acme', '--to', '+447400123456', '--text', 'Hi'];
  // A window two hours from now, on UTC's clock: closed now, whenever the test runs.
  const h = (new Date().getUTCHours() + 2) % 24;
  const closed = ['--window', `${String(h).padStart(2, '0')}:00-${String(h).padStart(2, '0')}:30`, '--tz', 'UTC'];

  test('--not-before alone (no window, so no zones) stops with 8 and says when, a dry run with 0', async () => {
    const c = bulkFiles(1, 'msgr-send-window-');
    const r = await runInProcess([...ONE, '--not-before', '2h'], { env: c.env, http: null });
    assert.equal(r.code, ExitCode.WINDOW_CLOSED, r.stderr);
    assert.match(r.stderr, /^error: not sent: outside the send window: not before (\S+); it opens at \1\nhint: Send it again once the window opens\.\n$/);
    const dry = await runInProcess([...ONE, '--not-before', '2h', '--dry-run'], { env: c.env, http: null });
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stderr, /a send now would send nothing \(exit 8\)/);
  });

  test('one message outside its window: the error names the recipient, not each one, with no parenthesis inside another', async () => {
    const c = bulkFiles(1, 'msgr-send-window-');
    const auto = ['--window', `${String(h).padStart(2, '0')}:00-${String(h).padStart(2, '0')}:30`];
    const r = await runInProcess([...ONE, ...auto], { env: c.env, http: null });
    assert.equal(r.code, ExitCode.WINDOW_CLOSED, r.stderr);
    const line = r.stderr.split('\n')[0] ?? '';
    assert.match(line, /^error: not sent: outside the send window \d\d:00-\d\d:30 in the recipient's zone \(their number's region or country\); it opens at /);
    assert.doesNotMatch(line, /each recipient|\([^)]*\(/);
  });

  test('a closed --window of the command\'s own offers the command without it, which is accepted', async () => {
    const c = bulkFiles(1, 'msgr-send-window-');
    const refused = await runInProcess([...ONE, ...closed], { env: c.env, http: null });
    assert.equal(refused.code, ExitCode.WINDOW_CLOSED, refused.stderr);
    assert.match(refused.stderr, /\nhint: Send it again once the window opens, or now without --window\.\n$/);
    assert.doesNotMatch(refused.stderr, /--any-time/);
    const api = fakeApi();
    const now = await runInProcess(ONE, { env: c.env, http: api.http });
    assert.equal(now.code, 0, now.stderr);
    assert.equal(api.requests.length, 1);
  });

  test('a profile\'s window, with no flag of the command, stops a send outside it; --any-time sends it', async () => {
    const c = bulkFiles(1, 'msgr-send-window-');
    assert.equal((await runInProcess(['profile', 'add', 'shop', '--api-key-stdin', '--account', 'SHOP01', '-q'], { env: c.env, input: 'shop-key-1234\n' })).code, 0);
    const [window, , tz] = closed.slice(1);
    for (const [key, value] of [['window', window], ['tz', tz]] as const) {
      const set = await runInProcess(['profile', 'set', 'shop', key, value ?? ''], { env: c.env });
      assert.equal(set.code, 0, set.stderr);
    }
    const refused = await runInProcess([...ONE, '-p', 'shop'], { env: c.env, http: null });
    assert.equal(refused.code, ExitCode.WINDOW_CLOSED, refused.stderr);
    assert.match(refused.stderr, /outside the send window/);
    const api = fakeApi();
    const anyTime = await runInProcess([...ONE, '-p', 'shop', '--any-time'], { env: c.env, http: api.http });
    assert.equal(anyTime.code, 0, anyTime.stderr);
    assert.match(anyTime.stderr, /--any-time: profile shop's send window is set aside for this message/);
    assert.equal(api.requests.length, 1);
    // A --window of the command's own beside the profile's: leaving it out would meet the
    // profile's, so the hint offers --any-time in its place, which is accepted.
    const own = await runInProcess([...ONE, '-p', 'shop', ...closed.slice(0, 2)], { env: c.env, http: null });
    assert.equal(own.code, ExitCode.WINDOW_CLOSED, own.stderr);
    assert.match(own.stderr, /\nhint: Send it again once the window opens, or now with --any-time in place of --window/);
    const offered = await runInProcess([...ONE, '-p', 'shop', '--any-time'], { env: c.env, http: api.http });
    assert.equal(offered.code, 0, offered.stderr);
  });

  test('a --tz send cannot take offers only the forms send takes (a zone, or auto)', async () => {
    const c = bulkFiles(1, 'msgr-send-window-');
    const r = await runInProcess([...ONE, '--window', '09:00-20:00', '--tz', 'Mars/Base'], { env: c.env, http: null });
    assert.equal(r.code, ExitCode.USAGE, r.stderr);
    assert.match(r.stderr, /hint: Give an IANA zone \(--tz America\/New_York\), or auto/);
    assert.doesNotMatch(r.stderr, /column:/);
  });
});
