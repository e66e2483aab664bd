// --skip-sent and --restart when rows have messages of their own, end to end against real servers
// on 127.0.0.1: the rows an earlier run accepted are left out before rows are grouped into
// requests, so the preflight's counts, the requests the server receives, a dry run, the report
// and a resumed run after kill -9 all agree.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/server.js';
import { cleanEnv, killRepeatedly, runCli, tempDir, type RunResult } from '../support/cli.js';

const KEY = 'test-key-1234';

function env(baseUrl: string, configDir: string): Record<string, string> {
  return cleanEnv({ MSGR_CONFIG_DIR: configDir, MSGR_API_KEY: KEY, MSGR_BASE_URL: baseUrl, MSGR_ACCOUNT_REFERENCE: 'ACME01' });
}

function bulk(args: string[], e: Record<string, string>): Promise<RunResult> {
  return runCli(['send-bulk', ...args], { env: e, timeoutMs: 60_000 });
}

const uk = (i: number): string => `+4479111${String(i).padStart(5, '0')}`;

describe('kill -9 and --resume of a personalised run with --skip-sent', () => {
  let sbx: RunningSandbox;
  let record: string;
  before(async () => {
    record = join(tempDir('msgr-ssp-rec-'), 'record.jsonl');
    sbx = await startSandbox({ port: 0, record, apiKey: KEY, latencyMs: 25 });
  });
  after(async () => {
    await sbx.close();
  });

  test('killed at random points and resumed: every number left gets its own text exactly once; those already sent get nothing more', async () => {
    const dir = tempDir('msgr-ssp-kill-');
    const config = join(dir, 'state');
    const name = (i: number): string => `P${i % 23}`;
    const base = Array.from({ length: 120 }, (_, i) => `${uk(i)},${name(i)}`);
    const baseFile = join(dir, 'c.csv');
    writeFileSync(baseFile, `msisdn,name\n${base.join('\n')}\n`);
    const text = ['--from', 'Acme', '--text', 'Dear {{name}}'];
    const first = await bulk([baseFile, ...text, '--batch-size', '5', '--json'], env(sbx.url, config));
    assert.equal(first.code, 0, first.stderr);
    const runId = (JSON.parse(first.stdout) as { runId: string }).runId;

    // The follow-up: the first run's rows spread among 240 new ones.
    const rows: string[] = [];
    for (let i = 0; i < 360; i++) rows.push(i % 3 === 1 ? (base[(i - 1) / 3] as string) : `${uk(1000 + i)},${name(i)}`);
    const file = join(dir, 'follow.csv');
    writeFileSync(file, `msisdn,name\n${rows.join('\n')}\n`);
    const journal = join(config, 'follow.jsonl');
    const args = [file, ...text, '--batch-size', '3', '--concurrency', '3', '--skip-sent', runId, '--journal', journal];
    const resume = [file, '--resume', '--resend-in-doubt', '--journal', journal];
    const kills = await killRepeatedly({ args, resume, journal, env: env(sbx.url, config) });
    assert.ok(kills >= 1);
    const final = await bulk(existsSync(journal) ? resume : args, env(sbx.url, config));
    assert.equal(final.code, 0, final.stderr);
    // A resume of a run that finished before its kill says so and sends nothing.
    assert.match(final.stderr, /skipped before sending: 120 already sent|^nothing to do: run \S+ finished at /m);
    assert.equal((JSON.parse(readFileSync(journal, 'utf8').split('\n')[0] ?? '') as { totals: { alreadySent: number } }).totals.alreadySent, 120);
    const byNumber = new Map<string, string[]>();
    for (const l of readFileSync(record, 'utf8').trim().split('\n')) {
      const q = (JSON.parse(l) as { request: { body: { text: string }; recipients: Array<{ msisdn: string }> } }).request;
      for (const r of q.recipients) byNumber.set(r.msisdn, [...(byNumber.get(r.msisdn) ?? []), q.body.text]);
    }
    assert.equal(byNumber.size, 360);
    for (const row of rows) {
      const [m, n] = row.split(',');
      assert.deepEqual(byNumber.get(m ?? ''), [`Dear ${n ?? ''}`], `${m ?? ''} got its text exactly once`);
    }
  });
});
