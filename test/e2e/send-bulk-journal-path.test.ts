// A --journal whose folder cannot be made is refused as a bad path (exit 2), at once. Node's own
// recursive mkdir never returns on such a path under /proc (at full CPU, deaf to SIGTERM), so each
// run goes through timeout(1) with SIGKILL: a hang fails the test instead of the suite.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cleanEnv, MSGR, tempDir } from '../support/cli.js';
import { startTestServer } from '../support/test-server.js';

test('send-bulk --journal in a folder that cannot be made: exit 2 naming the folder, nothing sent', async () => {
  const dir = tempDir();
  const csv = join(dir, 'in.csv');
  writeFileSync(csv, 'msisdn\n+447911123456\n');
  const server = await startTestServer();
  try {
    for (const [journal, folder] of [
      ['/proc/msgr-nope/j.jsonl', '/proc/msgr-nope'],
      ['/proc/msgr-nope/deeper/j.jsonl', '/proc/msgr-nope'],
      [join(csv, 'j.jsonl'), csv],
    ] as const) {
      const args = ['send-bulk', csv, '--journal', journal, '--from', 'Acme', '--text', 'Hi', '--account', 'ACME01', '--base-url', server.url, '--yes'];
      const r = spawnSync('timeout', ['-s', 'KILL', '15', ...MSGR, ...args], {
        env: cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: 'path-key-1234' }),
        encoding: 'utf8',
      });
      assert.notEqual(r.status, 137, `${journal}: killed after 15 s (a hang)`);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, new RegExp(`^error: cannot create the folder ${folder.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(`, 'm'));
      assert.match(r.stderr, /^hint: Give a path in a folder you can write to/m);
      assert.doesNotMatch(r.stderr, /internal error|^\s+at /m);
      assert.equal(r.stdout, '');
    }
    assert.equal(server.requests.length, 0);
    assert.equal(existsSync('/proc/msgr-nope'), false);
  } finally {
    await server.close();
  }
});
