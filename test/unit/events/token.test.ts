// The kept listener token as two msgr commands make it at once: the second one, arriving while
// the first one's file is open, must find either no token (and make its own) or a whole one,
// never an empty file. "The second process" is simulated by calling keptToken() from inside the
// first one's openSync (node:fs patched through module.syncBuiltinESMExports), so the interleaving
// that made the README's listener recipe fail 2 runs in 5 happens every time here.
import assert from 'node:assert/strict';
import fs, { readdirSync, readFileSync, statSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { keptToken } from '../../../src/events/token.js';
import { tempDir } from '../../support/cli.js';

const realOpen = fs.openSync;
after(() => {
  fs.openSync = realOpen;
  syncBuiltinESMExports();
});

describe('the kept listener token', () => {
  test('a command asking for it while another one is writing it gets the same whole token', () => {
    const dir = tempDir('msgr-token-');
    const path = join(dir, 'events', 'ACME.token');
    let inner: { token: string } | undefined;
    let innerError: unknown;
    let second = false;
    fs.openSync = ((...args: Parameters<typeof realOpen>) => {
      const fd = realOpen(...args);
      if (!second && String(args[0]).startsWith(path)) {
        // The first command has a file open for writing; the second one comes now.
        second = true;
        try {
          inner = keptToken(path);
        } catch (err) {
          innerError = err;
        }
      }
      return fd;
    });
    syncBuiltinESMExports();
    let outer: { token: string; created: boolean };
    try {
      outer = keptToken(path);
    } finally {
      fs.openSync = realOpen;
      syncBuiltinESMExports();
    }
    assert.equal(innerError, undefined, `the second command failed: ${String(innerError)}`);
    assert.ok(inner !== undefined, 'the second command ran while the first one wrote');
    assert.equal(outer.token, inner.token, 'both use one token');
    assert.equal(outer.created, false, 'the first one to link it in place made it; the other one read it');
    assert.equal(readFileSync(path, 'utf8'), `${outer.token}\n`);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(join(dir, 'events')), ['ACME.token'], 'nothing written aside is left');
  });

  test('a token already kept is read, not made again', () => {
    const dir = tempDir('msgr-token-');
    const path = join(dir, 'ACME.token');
    const first = keptToken(path);
    assert.equal(first.created, true);
    const again = keptToken(path);
    assert.deepEqual(again, { token: first.token, created: false });
  });
});
