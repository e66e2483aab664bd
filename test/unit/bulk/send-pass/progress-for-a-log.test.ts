// Progress for a log (--progress-every): a plain line per interval on a stderr that is no
// terminal, nothing periodic without the flag. Run in-process (test/support/in-process.ts) against
// the scriptable server on 127.0.0.1 with a latency.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cleanEnv, tempDir } from '../../../support/cli.js';
import { numbersOnlyCsv } from '../../../support/bulk-inputs.js';
import { runInProcess } from '../../../support/in-process.js';
import { useTestServer } from '../../../support/test-server.js';

const KEY = 'unattended-key-5678';
const MSG = ['--from', 'Acme', '--text', 'Hello there'];
const server = useTestServer({
  reset: (s) => {
    s.fallback = { status: 202, body: { ok: true }, delayMs: 200 };
  },
});

function env(config: string, extra: Record<string, string | undefined> = {}): Record<string, string> {
  return cleanEnv({ MSGR_CONFIG_DIR: config, MSGR_API_KEY: KEY, MSGR_BASE_URL: server.url, MSGR_ACCOUNT_REFERENCE: 'ACME01', ...extra });
}

describe('progress for a log', () => {
  const LINE = /^progress: [\d,]+ accepted, [\d,]+ failed, \d+ in flight, [\d,]+ left, [\d,]+\/s, ETA (\d+:\d\d|unknown)$/;
  const LINES = new RegExp(LINE.source, 'gm');

  // Each run lasts over two seconds (two progress lines at 1s, the least --progress-every takes,
  // or the time for one without the flag): they share nothing but the server's answer, so they
  // run side by side.
  describe('a run of 1600 rows', { concurrency: true }, () => {
    test('--progress-every 1s on a non-terminal stderr: a plain line per second, even with -q', async () => {
      server.fallback = { status: 202, body: { ok: true }, delayMs: 300 };
      const { path } = numbersOnlyCsv(1600);
      const r = await runInProcess(['send-bulk', path, ...MSG, '--batch-size', '50', '--progress-every', '1s', '-q'], { env: env(tempDir()), timeoutMs: 60_000 });
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stderr.match(LINES) ?? [];
      assert.ok(lines.length >= 2, `progress lines: ${JSON.stringify(r.stderr)}`);
      // -q keeps everything else out.
      assert.equal(r.stderr.split('\n').filter((l) => l !== '' && !LINE.test(l)).length, 0, r.stderr);
    });

    test('without --progress-every, nothing periodic: the preflight and the summary only', async () => {
      server.fallback = { status: 202, body: { ok: true }, delayMs: 300 };
      const { path } = numbersOnlyCsv(1600);
      const r = await runInProcess(['send-bulk', path, ...MSG, '--batch-size', '50'], { env: env(tempDir()), timeoutMs: 60_000 });
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stderr, /progress:/);
      assert.ok(r.stderr.trim().split('\n').length <= 7, r.stderr);
    });
  });

  test('--progress-every refuses what is not a duration, naming the flag (exit 2)', async () => {
    const { path } = numbersOnlyCsv(3);
    const r = await runInProcess(['send-bulk', path, ...MSG, '--progress-every', '10'], { env: env(tempDir()) });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--progress-every: "10" is not a duration from 1s to 24h/);
    assert.equal(server.requests.length, 0);
  });
});
