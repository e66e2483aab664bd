import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fakeContext, type FakeContext } from '../../support/fake-context.js';
import { UsageError } from '../../../src/errors.js';
import { checkBaseUrl } from '../../../src/profiles/base-url.js';
import { storePaths } from '../../../src/profiles/paths.js';
import { checkProfileName, loadStore, parseStore, updateStore } from '../../../src/profiles/profile-file.js';
import { tempDir } from '../../support/cli.js';

function fakeCtx(env: Record<string, string | undefined>, opts: { tty?: boolean; input?: string } = {}): FakeContext {
  return fakeContext({ env, ...opts });
}

const tmp = (): string => tempDir('msgr-unit-profiles-');

describe('storePaths', () => {
  test('MSGR_CONFIG_DIR wins, relative to cwd', () => {
    assert.equal(storePaths({ MSGR_CONFIG_DIR: '/x/y' }, '/cwd').file, '/x/y/config.json');
    assert.equal(storePaths({ MSGR_CONFIG_DIR: 'rel' }, '/cwd').dir, '/cwd/rel');
    assert.equal(storePaths({ MSGR_CONFIG_DIR: '/x' }, '/cwd').lock, '/x/config.json.lock');
  });
  test('OS folders without the -nodejs suffix', () => {
    assert.equal(storePaths({}, '/', 'linux', '/home/ann').dir, '/home/ann/.config/msgr');
    assert.equal(storePaths({ XDG_CONFIG_HOME: '/xdg' }, '/', 'linux', '/home/ann').dir, '/xdg/msgr');
    assert.equal(storePaths({}, '/', 'darwin', '/Users/ann').dir, '/Users/ann/Library/Preferences/msgr');
    assert.equal(storePaths({ APPDATA: '/appdata' }, '/', 'win32', '/h').dir, join('/appdata', 'msgr', 'Config'));
  });
});

describe('parseStore', () => {
  const file = '/cfg/config.json';
  test('a valid store', () => {
    const data = parseStore(JSON.stringify({ default: 'a', profiles: { a: { apiKey: 'k', channel: 'RCS', confirm: true } } }), file);
    assert.equal(data.default, 'a');
    assert.equal(data.profiles.a?.channel, 'RCS');
  });
  test('invalid JSON names the file, the line and the column', () => {
    const err = catchError(() => parseStore('{\n  "profiles": {\n    "a": {,\n', file));
    assert.ok(err instanceof UsageError);
    assert.match(err.message, /\/cfg\/config\.json is not valid JSON/);
    assert.match(err.message, /line 3/);
    assert.match(err.hint ?? '', /never resets/);
  });
  test('an empty file is an error, not an empty store', () => {
    assert.match(catchError(() => parseStore('  \n', file)).message, /config\.json is empty/);
  });
  test('wrong shapes name the field', () => {
    assert.match(catchError(() => parseStore('{"profiles":{"prod":{"apiKey":42}}}', file)).message, /profiles\.prod\.apiKey/);
    assert.match(catchError(() => parseStore('{"profiles":{"prod":{"channel":"fax"}}}', file)).message, /profiles\.prod\.channel/);
    assert.match(catchError(() => parseStore('{"profiles":{"prod":{"acount":"x"}}}', file)).message, /unknown field acount/);
    assert.match(catchError(() => parseStore('[1,2]', file)).message, /not a valid profile store/);
  });
  test('a parse error never quotes the file (it holds keys)', () => {
    const secret = 'sk_live_SECRETSECRET';
    const err = catchError(() => parseStore(`{"profiles":{"a":{"apiKey": ${secret}}}}`, file));
    assert.ok(!err.message.includes(secret), err.message);
    assert.ok(!err.message.includes('sk_live'), err.message);
    assert.match(err.message, /line 1 column 29/);
    const short = catchError(() => parseStore('{"profiles":{"a":{"apiKey":"k"}}}}', file));
    assert.match(short.message, /line 1 column 34/);
  });
});

describe('names and base URLs', () => {
  test('profile names are plain', () => {
    checkProfileName('prod-eu_1.2');
    for (const bad of ['', '-p', 'a b', '__proto__', 'a/b', 'x'.repeat(65)]) assert.throws(() => checkProfileName(bad), UsageError, bad);
  });
  test('https, or http on loopback only', () => {
    assert.equal(checkBaseUrl('https://api.example.com/'), 'https://api.example.com');
    assert.equal(checkBaseUrl('http://127.0.0.1:4010'), 'http://127.0.0.1:4010');
    assert.equal(checkBaseUrl('http://localhost:1'), 'http://localhost:1');
    assert.equal(checkBaseUrl('http://[::1]:1'), 'http://[::1]:1');
    assert.throws(() => checkBaseUrl('http://api.example.com'), /plain http/);
    assert.throws(() => checkBaseUrl('ftp://x'), /https/);
    assert.throws(() => checkBaseUrl('nope'), /not a URL/);
    assert.throws(() => checkBaseUrl('https://u:p@x.example'), /credentials/);
    assert.throws(() => checkBaseUrl('https://x.example/?a=1'), /query or fragment/);
  });
});

describe('loadStore and updateStore', () => {
  test('reading a missing store creates nothing', () => {
    const dir = join(tmp(), 'cfg');
    const ctx = fakeCtx({ MSGR_CONFIG_DIR: dir });
    assert.deepEqual(loadStore(ctx).data, { profiles: {} });
    assert.equal(existsSync(dir), false);
  });
  test('writing creates a 0600 file in a 0700 folder', async () => {
    const dir = join(tmp(), 'a', 'cfg');
    const ctx = fakeCtx({ MSGR_CONFIG_DIR: dir });
    await updateStore(ctx, (s) => {
      s.profiles.p = { apiKey: 'k1234567' };
    });
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(join(dir, 'config.json')).mode & 0o777, 0o600);
    assert.equal(loadStore(ctx).data.profiles.p?.apiKey, 'k1234567');
    assert.equal(existsSync(join(dir, 'config.json.lock')), false, 'lock released');
  });
  test('a change that throws writes nothing and releases the lock', async () => {
    const dir = join(tmp(), 'cfg');
    const ctx = fakeCtx({ MSGR_CONFIG_DIR: dir });
    await updateStore(ctx, (s) => {
      s.profiles.p = { apiKey: 'k' };
    });
    const before = readFileSync(join(dir, 'config.json'), 'utf8');
    await assert.rejects(
      updateStore(ctx, (s) => {
        s.profiles.q = { apiKey: 'k' };
        throw new UsageError('no');
      }),
      /no/,
    );
    assert.equal(readFileSync(join(dir, 'config.json'), 'utf8'), before);
    assert.equal(existsSync(join(dir, 'config.json.lock')), false);
  });
  test('a corrupt file is never overwritten by a change', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'config.json'), '{"profiles": {', { mode: 0o600 });
    const ctx = fakeCtx({ MSGR_CONFIG_DIR: dir });
    await assert.rejects(
      updateStore(ctx, (s) => {
        s.profiles.x = { apiKey: 'k' };
      }),
      (e: unknown) => e instanceof UsageError && e.message.includes(join(dir, 'config.json')),
    );
    assert.equal(readFileSync(join(dir, 'config.json'), 'utf8'), '{"profiles": {');
  });
  test('loose modes are tightened, with one warning', () => {
    const dir = tmp();
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'config.json'), '{"profiles":{}}');
    chmodSync(join(dir, 'config.json'), 0o644);
    const warnings: string[] = [];
    loadStore(fakeCtx({ MSGR_CONFIG_DIR: dir }), (l) => warnings.push(l));
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(join(dir, 'config.json')).mode & 0o777, 0o600);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /was 0644, now 0600/);
    assert.match(warnings[0] ?? '', /was 0755, now 0700/);
  });
});

function catchError(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof UsageError, `expected UsageError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected an error');
}
