// In doubt meets consent, end to end (docs/reruns.md: "In doubt meets consent"): a cron run
// killed with kill -9 while its requests are out leaves batches in doubt; a STOP for one of their
// numbers reaches msgr listen; the resend leaves that number out, under the batch's key, and
// violations finds nobody. Receipts that msgr listen saved for a batch in doubt settle it:
// runs show counts it accepted, and a resume records it so and sends it nothing.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, msgrCommand, ROOT, runCli, tempDir, type RunResult } from '../support/cli.js';
import { LISTENING, startMsgr, waitFor, type Daemon } from '../support/daemon.js';
import { type ReceivedRequest, useTestServer } from '../support/test-server.js';

const KEY = 'test-key-consent-1234';
const TOKEN = 'e2e-consent-listen-token-0123';
const MSG = ['--from', 'Acme', '--text', 'Hello there'];

function env(baseUrl: string, config: string): Record<string, string> {
  return cleanEnv({ MSGR_CONFIG_DIR: config, MSGR_API_KEY: KEY, MSGR_BASE_URL: baseUrl, MSGR_ACCOUNT_REFERENCE: 'ACME01', MSGR_LISTEN_TOKEN: TOKEN });
}

const numbers = (n: number): string[] => Array.from({ length: n }, (_, i) => `+4479112${String(700 + i).padStart(5, '0')}`);

function recipients(r: ReceivedRequest | undefined): string[] {
  return ((r?.json as { recipients?: Array<{ msisdn: string }> } | undefined)?.recipients ?? []).map((x) => x.msisdn);
}

function bulk(args: string[], e: Record<string, string>): Promise<RunResult> {
  return runCli(['send-bulk', ...args], { env: e, timeoutMs: 60_000 });
}

describe('in doubt meets consent', () => {
  const server = useTestServer({ reset: (s) => (s.answer = undefined) });

  /** today.csv of 6 rows, its run killed in doubt: the folder, the environment, the numbers, the requests that left. */
  async function killedRun(): Promise<{ dir: string; e: Record<string, string>; list: string[]; file: string; first: ReceivedRequest[] }> {
    const dir = tempDir();
    const e = env(server.url, join(dir, 'state'));
    const list = numbers(6);
    const file = join(dir, 'today.csv');
    writeFileSync(file, `msisdn\n${list.join('\n')}\n`);
    return { dir, e, list, file, first: await killedInDoubt(e, file) };
  }

  /** A run of 6 rows in 3 batches, killed (-9) while all three requests wait for their answers. */
  async function killedInDoubt(e: Record<string, string>, file: string): Promise<ReceivedRequest[]> {
    server.fallback = { status: 202, body: {}, delayMs: 30_000 };
    const child = spawn(...msgrCommand(['send-bulk', file, ...MSG, '--batch-size', '2', '--concurrency', '3', '--yes', '-q']), { cwd: ROOT, env: e, stdio: 'ignore' });
    const closed = new Promise((r) => child.on('close', r));
    await waitFor('three requests out', () => server.requests.length === 3, 30_000);
    child.kill('SIGKILL');
    await closed;
    server.fallback = { status: 202, body: {} };
    return [...server.requests];
  }

  async function listener(e: Record<string, string>): Promise<Daemon> {
    return startMsgr(['listen', '--port', '0', '--optouts'], e, LISTENING);
  }

  async function trigger(e: Record<string, string>, url: string, args: string[]): Promise<void> {
    const r = await runCli(['trigger', ...args, '--url', url], { env: e });
    assert.equal(r.code, 0, r.stderr);
  }

  test('kill -9 with batches in doubt, a STOP for one of their numbers, then the resend: it leaves that number out, under the same key, and names it; no violation', async () => {
    const { e, list, file, first } = await killedRun();
    const shown = await runCli(['runs', 'show', file], { env: e });
    assert.match(shown.stdout, /in doubt\s+6\n/);

    const listen = await listener(e);
    try {
      // The patient of the second row replies STOP while the run is paused.
      await trigger(e, listen.ready, ['inbound', '--number', list[1] ?? '', '--text', 'STOP']);
      const key0 = first.find((r) => recipients(r).includes(list[0] ?? ''))?.headers['idempotency-key'];
      const at = server.requests.length;
      const resend = await bulk([file, '--resume', '--resend-in-doubt', '--yes', '-q'], e);
      assert.equal(resend.code, 0, resend.stderr);
      // Under -q too: who was left out of the resend, and why.
      assert.match(resend.stderr, new RegExp(`^warning: 1 number in the batches in doubt opted out \\(or went on the --exclude list\\) since run \\S+ started, and is left out of their resend \\(the first request may have reached it\\): \\${list[1] ?? ''}\\n$`));
      const again = server.requests.slice(at);
      assert.equal(again.length, 3);
      const batch0 = again.find((r) => recipients(r).includes(list[0] ?? ''));
      assert.deepEqual(recipients(batch0), [list[0]]);
      assert.equal(batch0?.headers['idempotency-key'], key0, 'the resend goes under the first request\'s key');
      assert.deepEqual(again.flatMap(recipients).sort(), list.filter((n) => n !== list[1]).sort());
      const violations = await runCli(['optout', 'violations'], { env: e });
      assert.equal(violations.code, 0, violations.stderr);
      assert.equal(violations.stdout, '');
      assert.match(violations.stderr, /no one was messaged after opting out/);
    } finally {
      await listen.stop();
    }
  });

  test('receipts settle doubt: runs show counts a batch every recipient of which has a receipt as accepted; a resume records it and sends it nothing; the exit-7 hint says what the receipts show', async () => {
    const { dir, e, file, first } = await killedRun();
    const byBatch = first.map(recipients);
    const [whole, half] = byBatch;
    assert.ok(whole !== undefined && half !== undefined);
    const listen = await listener(e);
    try {
      // The provider posts receipts for the requests that got no answer: all of one batch, one of another.
      for (const n of [...whole, half[0] ?? '']) await trigger(e, listen.ready, ['delivered', '--number', n]);
    } finally {
      await listen.stop();
    }
    const show = await runCli(['runs', 'show', file], { env: e });
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /accepted\s+2 \(2 of them left in doubt, but the receipts show every one: a resume records them as accepted, and sends them nothing\)\n/);
    assert.match(show.stdout, /in doubt\s+4\n/);
    assert.match(show.stdout, new RegExp(`was in doubt: batch \\d \\(2 recipients .*\\${whole[0] ?? ''}, \\${whole[1] ?? ''}: settled, every recipient has a receipt \\(accepted\\)`));
    assert.match(show.stdout, new RegExp(`\\nin doubt: batch \\d \\(2 recipients .*\\${half[0] ?? ''}, \\${half[1] ?? ''}; receipts for 1 of 2`));
    const json = JSON.parse((await runCli(['runs', 'show', file, '--json'], { env: e })).stdout) as { accepted: number; inDoubt: number; settledByReceipts: number };
    assert.deepEqual([json.accepted, json.inDoubt, json.settledByReceipts], [2, 4, 2]);

    // A resume without --resend-in-doubt: the settled batch is recorded, nothing is sent, the others stay in doubt.
    const at = server.requests.length;
    const resume = await bulk([file, '--resume', '--yes'], e);
    assert.equal(resume.code, 7, resume.stderr);
    assert.equal(server.requests.length, at, 'nothing was sent');
    assert.match(resume.stderr, /the receipts show every recipient of 1 batch left in doubt \(2 rows\): recorded as accepted, not sent again/);
    assert.match(resume.stderr, /\n {6}Check first whether the 4 recipients in doubt got the message \(the receipts show 1 of them, not every recipient of their batch; `msgr runs show \S+` lists them\); send them again under their original Idempotency-Keys \(safe at an API that honours them\): msgr send-bulk \S+today\.csv --resume --resend-in-doubt --yes\n/);
    const journal = readFileSync(join(dir, 'state', 'runs', (await import('node:fs')).readdirSync(join(dir, 'state', 'runs'))[0] ?? '', 'journal.jsonl'), 'utf8');
    assert.match(journal, /"outcome":"accepted","ids":\[[^\]]*\],"settledBy":"receipts"/);
  });
});
