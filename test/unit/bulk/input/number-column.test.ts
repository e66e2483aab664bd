// The number column is never a guess: chosen by its name among several, or the run stops (exit 2,
// nothing sent) and the command that goes on must name it; landlines on an SMS run are counted.
// Run in-process (test/support/in-process.ts) against a server on 127.0.0.1 that records every
// request, so "nothing was sent" is counted at the server.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, tempDir, type RunResult } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { useTestServer } from '../../../support/test-server.js';

const KEY = 'sk_test_mistakes_1234567';
const server = useTestServer();

function env(extra: Record<string, string | undefined> = {}): Record<string, string> {
  return cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: KEY, MSGR_BASE_URL: server.url, MSGR_ACCOUNT_REFERENCE: 'ACME01', ...extra });
}

function file(content: string | Buffer, name = 'in.csv'): string {
  const path = join(tempDir('msgr-mistakes-'), name);
  writeFileSync(path, content);
  return path;
}

function bulk(args: string[], extra: Record<string, string | undefined> = {}): Promise<RunResult> {
  return runInProcess(['send-bulk', ...args], { env: env(extra), timeoutMs: 30_000 });
}

interface Body {
  body?: { text?: string; templateId?: string };
  recipients?: Array<{ msisdn: string; variables?: Record<string, string> }>;
}

/** Every recipient the server received, in order of the requests. */
function recipients(): Array<{ msisdn: string; variables?: Record<string, string> }> {
  return server.requests.flatMap((r) => (r.json as Body | undefined)?.recipients ?? []);
}

describe('the number column is never a guess', () => {
  test('First name,Phone,Mobile: the numbers come from Mobile (its name says mobile), and the preflight says so; --json names it', async () => {
    const path = file('First name,Phone,Mobile\nAnn,020 7946 0000,07911 123456\nBob,0113 496 0000,07911 123457\n');
    const r = await bulk([path, '--from', 'Acme', '--text', 'Hi {{First name}}', '--default-country', 'GB', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(recipients().map((x) => x.msisdn), ['+447911123456', '+447911123457']);
    assert.match(r.stderr, /\n {2}numbers: column "Mobile", whose name says mobile, over "Phone" \(--msisdn-column chooses another\)\n/);
    assert.deepEqual((JSON.parse(r.stdout) as { numberColumn: unknown }).numberColumn, { name: 'Mobile', how: 'mobile', over: ['Phone'] });
    // msgr fills in the text: the Phone column (a landline) goes nowhere, as no other column does.
    assert.equal(recipients()[0]?.variables, undefined);
  });

  test('one column: named as it is, accents and all (Téléphone); --msisdn-column: named as given', async () => {
    const r = await bulk([file('Nom,Téléphone\nZoé,+447911123456\n'), '--from', 'Acme', '--text', 'Bonjour']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /\n {2}numbers: column "Téléphone"\n/);
    const named = await bulk([file('Nom,Tel,Phone\nZoé,+447911123456,+447911123457\n'), '--from', 'Acme', '--text', 'Bonjour', '--msisdn-column', 'Phone']);
    assert.equal(named.code, 0, named.stderr);
    assert.match(named.stderr, /\n {2}numbers: column "Phone" \(--msisdn-column\)\n/);
    assert.deepEqual(recipients().map((x) => x.msisdn), ['+447911123456', '+447911123457']);
  });

  test('Phone and Home phone, no mobile name: the run stops (exit 2, nothing sent) and lists --msisdn-column for each; either is then accepted', async () => {
    const path = file('Name,Phone,Home phone\nAnn,+447911123456,+442079460000\n');
    const r = await bulk([path, '--from', 'Acme', '--text', 'Hi', '--json']);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(server.requests.length, 0);
    assert.match(r.stderr, /in\.csv has 2 columns that could hold the numbers, "Phone" and "Home phone", and none of their names says mobile: msgr does not guess which one to message; nothing was sent/);
    assert.match(r.stderr, /hint: Name the column to send to, with one of:\n {8}--msisdn-column Phone\n {8}--msisdn-column 'Home phone'\n/);
    assert.equal((JSON.parse(r.stdout) as { error: { exitCode: number } }).error.exitCode, 2);
    for (const [column, number] of [['Phone', '+447911123456'], ['Home phone', '+442079460000']] as const) {
      server.requests.length = 0;
      const ok = await bulk([path, '--from', 'Acme', '--text', 'Hi', '--msisdn-column', column]);
      assert.equal(ok.code, 0, ok.stderr);
      assert.deepEqual(recipients().map((x) => x.msisdn), [number]);
    }
  });

  test('Mobile and Cell: two mobile names do not settle it either', async () => {
    const r = await bulk([file('Mobile,Cell\n+447911123456,+447911123457\n'), '--from', 'Acme', '--text', 'Hi']);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(server.requests.length, 0);
    assert.match(r.stderr, /2 columns that could hold the numbers, "Mobile" and "Cell", and 2 of their names say mobile/);
  });

  test('an SMS run to landlines by their numbering plan says how many and which lines; an RCS run does not', async () => {
    const path = file('Phone,Name\n+447911123456,Ann\n020 7946 0000,Bob\n+447911123457,Cy\n0113 496 0000,Dee\n');
    const r = await bulk([path, '--from', 'Acme', '--text', 'Hi', '--default-country', 'GB', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(recipients().length, 4);
    assert.match(r.stderr, /warning: 2 rows to send have landline numbers by their numbering plan \(lines 3, 5\): SMS to a landline usually fails/);
    assert.deepEqual((JSON.parse(r.stdout) as { landlines: unknown }).landlines, { count: 2, lines: [3, 5] });
    const rcs = await bulk([path, '--from', 'acme_agent', '--channel', 'RCS', '--text', 'Hi', '--default-country', 'GB']);
    assert.equal(rcs.code, 0, rcs.stderr);
    assert.doesNotMatch(rcs.stderr, /landline/);
  });
});
