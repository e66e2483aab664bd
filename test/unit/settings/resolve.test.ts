import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fakeContext, type FakeContext } from '../../support/fake-context.js';
import { UsageError } from '../../../src/errors.js';
import { describeSource, resolveSettings, type ConnectionFlags } from '../../../src/settings/resolve.js';
import { tempDir } from '../../support/cli.js';

function fakeCtx(env: Record<string, string | undefined>, input?: string): FakeContext {
  return fakeContext({ env, ...(input !== undefined ? { input } : {}) });
}

/** A config folder holding the given store. */
function store(data: unknown): string {
  const dir = tempDir('msgr-unit-resolve-');
  writeFileSync(join(dir, 'config.json'), JSON.stringify(data), { mode: 0o600 });
  return dir;
}

const TWO = {
  default: 'prod',
  profiles: {
    prod: { apiKey: 'key-prod-1111', account: 'PROD', baseUrl: 'https://prod.example.com', from: 'ProdCo', channel: 'RCS', confirm: true },
    test: { apiKey: 'key-test-2222', account: 'TEST', baseUrl: 'http://127.0.0.1:4010', from: 'TestCo' },
  },
};

const ENV_ALL = {
  MSGR_API_KEY: 'key-env-3333',
  MSGR_ACCOUNT_REFERENCE: 'ENVACC',
  MSGR_BASE_URL: 'https://env.example.com',
};

async function resolve(env: Record<string, string | undefined>, flags: ConnectionFlags = {}, input?: string) {
  return resolveSettings(fakeCtx(env, input), flags);
}

describe('precedence: flag > env > profile > default', () => {
  test('everything from the default profile', async () => {
    const s = await resolve({ MSGR_CONFIG_DIR: store(TWO) });
    assert.deepEqual(s.profile, { value: 'prod', source: 'profile', origin: 'default profile' });
    assert.deepEqual(s.baseUrl, { value: 'https://prod.example.com', source: 'profile', origin: 'prod' });
    assert.deepEqual(s.account, { value: 'PROD', source: 'profile', origin: 'prod' });
    assert.deepEqual(s.apiKey, { value: 'key-prod-1111', source: 'profile', origin: 'prod' });
    assert.deepEqual(s.from, { value: 'ProdCo', source: 'profile', origin: 'prod' });
    assert.deepEqual(s.channel, { value: 'RCS', source: 'profile', origin: 'prod' });
    assert.equal(s.confirm, true);
  });
  test('env beats the profile, for each setting', async () => {
    const s = await resolve({ MSGR_CONFIG_DIR: store(TWO), ...ENV_ALL, MSGR_PROFILE: 'test' });
    assert.deepEqual(s.profile, { value: 'test', source: 'env', origin: 'MSGR_PROFILE' });
    assert.deepEqual(s.baseUrl, { value: 'https://env.example.com', source: 'env', origin: 'MSGR_BASE_URL' });
    assert.deepEqual(s.account, { value: 'ENVACC', source: 'env', origin: 'MSGR_ACCOUNT_REFERENCE' });
    assert.deepEqual(s.apiKey, { value: 'key-env-3333', source: 'env', origin: 'MSGR_API_KEY' });
    assert.deepEqual(s.from, { value: 'TestCo', source: 'profile', origin: 'test' });
    assert.equal(s.channel.source, 'default');
    assert.equal(s.confirm, false);
  });
  test('flags beat env, for each setting', async () => {
    const dir = store(TWO);
    const keyFile = join(dir, 'key.txt');
    writeFileSync(keyFile, 'key-file-4444\n');
    const s = await resolve(
      { MSGR_CONFIG_DIR: dir, ...ENV_ALL, MSGR_PROFILE: 'prod' },
      { profile: 'test', baseUrl: 'https://flag.example.com', account: 'FLAGACC', apiKeyFile: keyFile, from: 'FlagCo', channel: 'sms' },
    );
    assert.deepEqual(s.profile, { value: 'test', source: 'flag', origin: '--profile' });
    assert.deepEqual(s.baseUrl, { value: 'https://flag.example.com', source: 'flag', origin: '--base-url' });
    assert.deepEqual(s.account, { value: 'FLAGACC', source: 'flag', origin: '--account' });
    assert.deepEqual(s.apiKey, { value: 'key-file-4444', source: 'flag', origin: '--api-key-file' });
    assert.deepEqual(s.from, { value: 'FlagCo', source: 'flag', origin: '--from' });
    assert.deepEqual(s.channel, { value: 'sms', source: 'flag', origin: '--channel' });
  });
  test('--api-key-stdin beats MSGR_API_KEY', async () => {
    const s = await resolve({ MSGR_CONFIG_DIR: store(TWO), ...ENV_ALL }, { apiKeyStdin: true }, 'key-stdin-5555\n');
    assert.deepEqual(s.apiKey, { value: 'key-stdin-5555', source: 'flag', origin: '--api-key-stdin' });
  });
  test('built-in defaults when there is no profile: SMS, and no base URL', async () => {
    const s = await resolve({ MSGR_CONFIG_DIR: tempDir('msgr-unit-resolve-') });
    assert.deepEqual(s.channel, { value: 'SMS', source: 'default' });
    assert.equal(s.baseUrl.value, undefined);
    assert.equal(s.baseUrl.source, 'unset');
    assert.equal(s.apiKey.value, undefined);
    assert.equal(s.profile.value, undefined);
    assert.equal(s.confirm, false);
  });
  test('empty variables count as unset', async () => {
    const s = await resolve({ MSGR_CONFIG_DIR: store(TWO), MSGR_ACCOUNT_REFERENCE: '', MSGR_PROFILE: '' });
    assert.equal(s.account.value, 'PROD');
    assert.equal(s.profile.origin, 'default profile');
  });
});

describe('choosing the profile', () => {
  const NO_DEFAULT = { profiles: TWO.profiles };
  test('several profiles, none default, none chosen: refuses to guess', async () => {
    await assert.rejects(resolve({ MSGR_CONFIG_DIR: store(NO_DEFAULT) }), (e: unknown) => {
      assert.ok(e instanceof UsageError);
      assert.match(e.message, /will not guess/);
      assert.match(e.message, /prod, test/);
      assert.match(e.hint ?? '', /-p NAME/);
      return true;
    });
  });
  test('…unless flags and env give base URL, account and key: then no profile is used', async () => {
    const s = await resolve({ MSGR_CONFIG_DIR: store(NO_DEFAULT), ...ENV_ALL });
    assert.equal(s.profile.value, undefined);
    assert.equal(s.from.value, undefined);
    assert.equal(s.confirm, false);
  });
  test('…and an incomplete set still refuses', async () => {
    await assert.rejects(resolve({ MSGR_CONFIG_DIR: store(NO_DEFAULT), ...ENV_ALL, MSGR_API_KEY: undefined }), /will not guess/);
  });
  test('…and profileOptional (the sandbox) uses none instead of refusing', async () => {
    const s = await resolveSettings(fakeCtx({ MSGR_CONFIG_DIR: store(NO_DEFAULT) }), {}, { profileOptional: true });
    assert.equal(s.profile.value, undefined);
    assert.equal(s.account.value, undefined);
  });
  test('the only profile is used when none is default', async () => {
    const s = await resolve({ MSGR_CONFIG_DIR: store({ profiles: { solo: { apiKey: 'k', account: 'SOLO' } } }) });
    assert.deepEqual(s.profile, { value: 'solo', source: 'profile', origin: 'only profile' });
    assert.equal(s.account.value, 'SOLO');
  });
  test('a named profile that does not exist lists the ones that do', async () => {
    await assert.rejects(resolve({ MSGR_CONFIG_DIR: store(TWO), MSGR_PROFILE: 'stage' }), (e: unknown) => {
      assert.ok(e instanceof UsageError);
      assert.match(e.message, /"stage" \(from MSGR_PROFILE\) does not exist; profiles: prod, test/);
      return true;
    });
    await assert.rejects(resolve({ MSGR_CONFIG_DIR: store(TWO) }, { profile: 'x' }), /"x" \(from --profile\) does not exist/);
  });
  test('a default that names a missing profile is an error', async () => {
    await assert.rejects(resolve({ MSGR_CONFIG_DIR: store({ default: 'gone', profiles: TWO.profiles }) }), /default profile "gone".*does not exist/);
  });
  test('a corrupt store is an error naming the file', async () => {
    const dir = tempDir('msgr-unit-resolve-');
    writeFileSync(join(dir, 'config.json'), '{"profiles":', { mode: 0o600 });
    await assert.rejects(resolve({ MSGR_CONFIG_DIR: dir, ...ENV_ALL }), new RegExp(`${join(dir, 'config.json')} is not valid JSON`));
  });
});

test('describeSource names where a value came from', () => {
  assert.equal(describeSource({ value: 'x', source: 'flag', origin: '--account' }), 'flag --account');
  assert.equal(describeSource({ value: 'x', source: 'env', origin: 'MSGR_BASE_URL' }), 'env MSGR_BASE_URL');
  assert.equal(describeSource({ value: 'x', source: 'profile', origin: 'prod' }), 'profile prod');
  assert.equal(describeSource({ value: 'x', source: 'profile', origin: 'default profile' }), 'default profile');
  assert.equal(describeSource({ value: 'SMS', source: 'default' }), 'built-in default');
  assert.equal(describeSource({ value: undefined, source: 'unset' }), 'not set');
});
