// The API key never lands in a bulk run's report, journal or output, even when a server echoes
// it back in its error messages. Run in-process (test/support/in-process.ts) through the real HTTP
// client against the scriptable server on 127.0.0.1 (a free port).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cleanEnv, offeredCommand, tempDir } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { useTestServer } from '../../../support/test-server.js';

const KEY = 'sk_live_bulkSECRET_4321';
const server = useTestServer();

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

test('a server echoing the key: report, journal, stdout and stderr show it masked', async () => {
  server.fallback = { status: 422, body: { title: 'Invalid', detail: `key ${KEY} may not send` } };
  const dir = tempDir();
  const csv = join(dir, 'in.csv');
  writeFileSync(csv, 'msisdn,name\n+447911123456,Ann\n+447911123457,Bob\n');
  const config = tempDir();
  const report = join(dir, 'report.jsonl');
  const r = await runInProcess(['send-bulk', csv, '--from', 'Acme', '--text', 'Hi', '--account', 'ACME01', '--base-url', server.url, '--report', report, '--json'], {
    env: cleanEnv({ MSGR_CONFIG_DIR: config, MSGR_API_KEY: KEY }),
  });
  assert.equal(r.code, 7, r.stderr);
  assert.equal(server.requests.length, 1);
  const reportText = readFileSync(report, 'utf8');
  assert.match(reportText, /key \*\*\*\*4321 may not send/);
  for (const text of [reportText, r.stdout, r.stderr, ...filesUnder(config).map((f) => readFileSync(f, 'utf8'))]) {
    assert.ok(!text.includes(KEY), 'the API key leaked');
  }
});

test('a redirect whose address echoes the key: the key is masked in the report, journal and output; the run stops at its first batch, unsent (exit 2), saying the base URL is to fix', async () => {
  server.requests.length = 0;
  server.fallback = { status: 301, headers: { location: `https://moved.example.com/v2/messages?apikey=${KEY}` } };
  const dir = tempDir();
  const csv = join(dir, 'in.csv');
  writeFileSync(csv, `msisdn\n${Array.from({ length: 30 }, (_, i) => `+4479111234${String(i).padStart(2, '0')}`).join('\n')}\n`);
  const config = tempDir();
  const report = join(dir, 'report.csv');
  const r = await runInProcess(['send-bulk', csv, '--from', 'Acme', '--text', 'Hi', '--account', 'ACME01', '--base-url', server.url, '--report', report, '--batch-size', '10', '--concurrency', '1', '--json'], {
    env: cleanEnv({ MSGR_CONFIG_DIR: config, MSGR_API_KEY: KEY }),
  });
  assert.equal(r.code, 2, r.stderr);
  assert.equal(server.requests.length, 1, 'every batch was sent into the same redirect');
  const summary = JSON.parse(r.stdout) as { notSent: number; rejected: number; stopped: string };
  assert.deepEqual([summary.notSent, summary.rejected, summary.stopped], [30, 0, 'config']);
  assert.match(r.stderr, /unexpected redirect \(https:\/\/moved\.example\.com\/v2\/messages\?apikey=\*\*\*\*4321\)/);
  assert.match(r.stderr, /hint: msgr does not follow redirects .*make it the base URL/);
  // A resume goes to the base URL the run started with, which redirects again (and another one
  // is refused): the way on is --restart with the fixed base URL, the command said in full.
  assert.doesNotMatch(r.stderr, /Resume with:/);
  assert.match(r.stderr, /Once the base URL is right, send the rows with: msgr send-bulk \S+ .*--base-url URL .*--restart \(this run had none accepted, so each row is sent once\)/);
  const offered = offeredCommand(r.stderr, 'send the rows with: ');
  const reportText = readFileSync(report, 'utf8');
  assert.match(reportText, /^2,\+447911123400,not-sent,301,,/m);
  for (const text of [reportText, r.stdout, r.stderr, ...filesUnder(config).map((f) => readFileSync(f, 'utf8'))]) {
    assert.ok(!text.includes(KEY), 'the API key leaked');
  }
  server.requests.length = 0;
  server.fallback = { status: 202, body: { id: 'msg-1', status: 'accepted' } };
  const fixed = await runInProcess(
    offered.map((a) => (a === 'URL' ? `${server.url}/eu` : a)),
    { env: cleanEnv({ MSGR_CONFIG_DIR: config, MSGR_API_KEY: KEY }) },
  );
  assert.equal(fixed.code, 0, fixed.stderr);
  assert.ok(server.requests.every((q) => q.url === '/eu/v2/messages'));
  const sent = server.requests.flatMap((q) => ((q.json as { recipients?: Array<{ msisdn: string }> }).recipients ?? []).map((x) => x.msisdn));
  assert.equal(sent.length, 30);
  assert.equal(new Set(sent).size, 30);
});
