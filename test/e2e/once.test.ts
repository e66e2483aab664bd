// Campaign keys (`--once KEY`), end to end against the scriptable server on 127.0.0.1, where two
// processes meet at one key's lock: the same cron line fired twice at once, and two webhook
// deliveries at once. What needs no second process is proved in-process
// (test/unit/commands/send-bulk/once-the-cron-line.test.ts, test/unit/commands/send/once-one-message.test.ts).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { env as bulkEnv, mobileNumbers, writeNumbersCsv } from '../support/bulk-inputs.js';
import { BIN, ROOT, tempDir, type RunResult } from '../support/cli.js';
import { hold, type ReceivedRequest, type ScriptedResponse, useTestServer } from '../support/test-server.js';

const MSG = ['--from', 'Acme', '--text', 'Your appointment is tomorrow'];

const env = (baseUrl: string, config: string, extra: Record<string, string> = {}): Record<string, string> => bulkEnv(baseUrl, extra, config);

/** Starts msgr without waiting for it. */
function start(args: string[], e: Record<string, string>): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: e, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

function recipients(r: ReceivedRequest): string[] {
  return ((r.json as { recipients?: Array<{ msisdn: string }> } | undefined)?.recipients ?? []).map((x) => x.msisdn);
}

const ACCEPT: ScriptedResponse = { status: 202, body: { status: 'accepted', messages: [{ id: 'm-1' }] } };

// The two blocks have servers and state folders of their own: they run side by side, each one's
// spawns and waits beside the other's.
describe('campaign keys', { concurrency: true }, () => {
  describe('send-bulk --once: the cron line', { concurrency: false }, () => {
    const server = useTestServer({ reset: (s) => (s.answer = () => ACCEPT) });

    test('the same line fired twice at once: one sends, the other says it is running now and sends nothing (exit 0)', async () => {
      const dir = tempDir();
      const config = join(dir, 'state');
      const list = mobileNumbers(4, 600);
      const file = writeNumbersCsv(join(dir, 'today.csv'), list);
      // The sender's requests are held until the other line has ended: it must have found the run
      // being sent, however late it started. 10 s: only two senders (a failure) wait that long.
      const answer = hold();
      server.answer = () => ({ ...ACCEPT, until: answer.until, delayMs: 10_000 });
      const line = ['send-bulk', file, '--once', 'reminders-twice', ...MSG, '--again', '--yes'];
      const runs: [Promise<RunResult>, Promise<RunResult>] = [start(line, env(server.url, config)), start(line, env(server.url, config))];
      void Promise.race(runs).then(answer.release);
      const [a, b] = await Promise.all(runs);
      assert.deepEqual([a.code, b.code], [0, 0], `${a.stderr}\n${b.stderr}`);
      const running = [a, b].filter((r) => /^running now: the run under --once reminders-twice is being sent by (msgr pid \d+ on \S+, since \S+|another msgr, starting now); this command sent nothing/m.test(r.stderr));
      assert.equal(running.length, 1, `${a.stderr}\n${b.stderr}`);
      assert.deepEqual(server.requests.flatMap(recipients).sort(), [...list].sort());
    });
  });

  describe('send --once: one message, once', { concurrency: false }, () => {
    const server = useTestServer({ reset: (s) => (s.answer = () => ACCEPT) });
    const send = ['send', '--to', '+447911123456', '--from', 'Acme', '--text', 'Order 1234 has shipped'];

    test('two webhook deliveries at once: one request reaches the API, both end 0', async () => {
      const config = join(tempDir(), 'state');
      server.answer = () => ({ ...ACCEPT, delayMs: 1500 });
      const args = [...send, '--once', 'order-twice'];
      const [a, b] = await Promise.all([start(args, env(server.url, config)), start(args, env(server.url, config))]);
      assert.deepEqual([a.code, b.code], [0, 0], `${a.stderr}\n${b.stderr}`);
      assert.equal(server.requests.length, 1);
      assert.equal([a, b].filter((r) => /already done/.test(r.stderr)).length, 1);
    });
  });
});
