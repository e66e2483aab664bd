// Send windows as cron runs them, end to end: msgr spawned with a clock of the test's
// (MSGR_TEST_CLOCK, read by main.ts for these tests alone) against the scriptable server on
// 127.0.0.1. --exit-when-closed sends the rows whose window is open, ends 8 with the command that
// goes on, and that command, run later, sends the rest: each row once, each inside 09:00-20:00 on
// its own clock at the time the test's clock says (docs/send-windows.md).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, offeredCommand, runCli, tempDir } from '../support/cli.js';
import { useTestServer, type ReceivedRequest } from '../support/test-server.js';

const ROWS: Array<[string, string]> = [
  ['+12125550101', 'America/New_York'],
  ['+447911123456', 'Europe/London'],
  ['+61412345678', 'Australia/Sydney'],
  ['+33612345678', 'Europe/Paris'],
];

function recipients(r: ReceivedRequest): string[] {
  return ((r.json as { recipients?: Array<{ msisdn: string }> } | undefined)?.recipients ?? []).map((x) => x.msisdn);
}

function localHour(zone: string, iso: string): number {
  return Number(new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', hourCycle: 'h23' }).format(new Date(iso)));
}

describe('send windows from cron', () => {
  const server = useTestServer();

  test('--exit-when-closed, then the resume it offers: every row once, each inside its window', async () => {
    const dir = tempDir('msgr-windows-e2e-');
    const csv = join(dir, 'people.csv');
    writeFileSync(csv, ['msisdn,name,tz', ...ROWS.map(([n, z], i) => `${n},P${i},${z}`)].join('\n') + '\n');
    const base = { MSGR_CONFIG_DIR: join(dir, 'state'), MSGR_API_KEY: 'test-key-1234', MSGR_BASE_URL: server.url, MSGR_ACCOUNT_REFERENCE: 'ACME01' };
    const sentAt = new Map<string, string>();
    const at = async (iso: string, args: string[]) => {
      const before = server.requests.length;
      const r = await runCli(args, { env: cleanEnv({ ...base, MSGR_TEST_CLOCK: iso }), timeoutMs: 60_000 });
      for (const req of server.requests.slice(before)) for (const n of recipients(req)) {
        assert.ok(!sentAt.has(n), `${n} sent twice`);
        sentAt.set(n, iso);
      }
      return r;
    };
    // 05:00 UTC: only Sydney (16:00) is open.
    const first = await at('2026-12-07T05:00:00Z', ['send-bulk', csv, '--from', 'Acme', '--text', 'Hi {{name}}', '--window', '09:00-20:00', '--tz', 'column:tz', '--exit-when-closed', '--yes']);
    assert.equal(first.code, 8, first.stderr);
    assert.match(first.stderr, /outside the send window: 1 of 4 recipients accepted; the next batch may leave at 2026-12-07T08:00:00\.000Z/);
    assert.deepEqual([...sentAt.keys()], ['+61412345678']);
    const resume = offeredCommand(first.stderr, 'it goes on where it stopped): ');
    assert.ok(resume.includes('--resume') && resume.includes('--exit-when-closed'), resume.join(' '));
    // 08:30 UTC: Paris (09:30) opens; New York and London are still closed.
    assert.equal((await at('2026-12-07T08:30:00Z', resume)).code, 8);
    // 14:30 UTC: the rest.
    const last = await at('2026-12-07T14:30:00Z', resume);
    assert.equal(last.code, 0, last.stderr);
    assert.deepEqual([...sentAt.keys()].sort(), ROWS.map(([n]) => n).sort());
    for (const [n, zone] of ROWS) {
      const hour = localHour(zone, sentAt.get(n) ?? '');
      assert.ok(hour >= 9 && hour < 20, `${n} sent at ${hour}:xx in ${zone}`);
    }
    // A cron run after that: nothing to do, exit 0.
    assert.equal((await at('2026-12-07T14:45:00Z', resume)).code, 0);
  });
});
