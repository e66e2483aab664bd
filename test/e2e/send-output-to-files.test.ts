// stdout and stderr redirected to files or /dev/null (`>> log 2>&1`, `> /dev/null` from cron):
// msgr writes them itself there, not through Node's stream (src/main.ts, fileOutput), and what
// lands in the file must be what a pipe gets, in the order it was written.
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cleanEnv, msgrCommand, runCli, tempDir } from '../support/cli.js';

const DRY_RUN = ['send', '--dry-run', '--to', '+447911123456', '--from', 'Acme', '--text', 'hi', '--account', 'ACME01'];

/** msgr with stdout and stderr on the descriptors given; its exit code. */
function runTo(args: string[], stdout: number | 'ignore', stderr: number | 'ignore'): number | null {
  const r = spawnSync(...msgrCommand(args), { env: cleanEnv({ MSGR_CONFIG_DIR: tempDir() }), stdio: ['ignore', stdout, stderr], timeout: 20_000 });
  return r.status;
}

for (const args of [DRY_RUN, ['send', '--dry-run', '--to', '+4479111234', '--from', 'Acme', '--text', 'hi', '--account', 'ACME01'], ['send', '--bogus']]) {
  test(`msgr ${args.slice(0, 3).join(' ')} … to files writes what a pipe gets, with the same exit code`, async () => {
    const piped = await runCli(args);
    const dir = tempDir();
    const out = openSync(join(dir, 'out'), 'w');
    const err = openSync(join(dir, 'err'), 'w');
    const code = runTo(args, out, err);
    closeSync(out);
    closeSync(err);
    assert.equal(code, piped.code);
    assert.equal(readFileSync(join(dir, 'out'), 'utf8'), piped.stdout);
    assert.equal(readFileSync(join(dir, 'err'), 'utf8'), piped.stderr);
    assert.ok(piped.stdout !== '' || piped.stderr !== '');
  });
}

test('stdout and stderr to one file (`>> log 2>&1`): appended, each line where it was written', async () => {
  const piped = await runCli(DRY_RUN);
  const dir = tempDir();
  const log = join(dir, 'log');
  writeFileSync(log, 'earlier\n');
  const fd = openSync(log, 'a');
  const code = runTo(DRY_RUN, fd, fd);
  closeSync(fd);
  assert.equal(code, 0);
  // The request, then what the dry run says of it (on stderr).
  assert.equal(readFileSync(log, 'utf8'), `earlier\n${piped.stdout}${piped.stderr}`);
});

test('stdout and stderr to /dev/null: the exit code is the work\'s', () => {
  const devNull = openSync('/dev/null', 'w');
  assert.equal(runTo(DRY_RUN, devNull, devNull), 0);
  assert.equal(runTo(['send', '--bogus'], devNull, devNull), 2);
  closeSync(devNull);
});

test('a file stdout cannot be written to: the output is dropped, the run goes on and ends with its own exit code', async () => {
  const piped = await runCli(DRY_RUN);
  const dir = tempDir();
  writeFileSync(join(dir, 'out'), '');
  // Opened for reading only: every write to it fails (EBADF).
  const out = openSync(join(dir, 'out'), 'r');
  const err = openSync(join(dir, 'err'), 'w');
  const code = runTo(DRY_RUN, out, err);
  closeSync(out);
  closeSync(err);
  assert.equal(code, 0);
  assert.equal(readFileSync(join(dir, 'out'), 'utf8'), '');
  assert.equal(readFileSync(join(dir, 'err'), 'utf8'), piped.stderr);
});
