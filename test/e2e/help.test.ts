// Help as the launcher gives it: `msgr` alone (bin/msgr.js's shortcut and the program answer the
// same) and help piped into a closed pipe. The help itself is proved in-process in
// test/unit/commands/help/.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { BIN, cleanEnv, runCli, tempDir } from '../support/cli.js';
import { fakeContext } from '../support/fake-context.js';

describe('msgr help', () => {
  test('msgr alone prints its help on stdout and exits 0, as gh does; an unknown command is still an error', async () => {
    const bare = await runCli([]);
    assert.equal(bare.code, 0, bare.stderr);
    assert.equal(bare.stderr, '');
    assert.match(bare.stdout, /^Usage: msgr \[options\] \[command\]\n/);
    assert.match(bare.stdout, /^Exit codes:$/m);
    assert.equal(bare.stdout, (await runCli(['--help'])).stdout);
    // The program itself (not bin/msgr.js's shortcut from dist/help.txt) answers the same.
    const { main } = await import('../../src/main.js');
    const ctx = fakeContext();
    assert.equal(await main(ctx), 0);
    assert.equal(ctx.out(), bare.stdout);
    assert.equal(ctx.err(), '');
    const bad = await runCli(['bogus']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /unknown command 'bogus'/);
    assert.equal(bad.stdout, '');
  });


  // `| true` closes the pipe before msgr writes: the harshest `| head`.
  test('a help piped into head exits 0 (the fast path and the full program)', () => {
    for (const args of [['--help'], ['help', 'environment'], ['send', '--help'], ['help', 'exit-codes']]) {
      for (let i = 0; i < 3; i++) {
        const r = spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" "${BIN}" ${args.join(' ')} | true`], { env: cleanEnv({ MSGR_CONFIG_DIR: tempDir() }), encoding: 'utf8' });
        assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
        assert.equal(r.stderr, '');
      }
    }
  });
});
