// `msgr profile` and the settings it keeps: a temporary MSGR_CONFIG_DIR, stdin not a TTY.
// In-process (test/support/in-process.ts): msgr through main() with a Context of the test's; the
// e2e file keeps a full round through the built CLI, a shared folder's modes and concurrent processes.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { tempDir, type RunResult } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { useTestServer } from '../../../support/test-server.js';
import { homeWith, mode, ok, show, PROD_KEY, TEST_KEY, twoProfilesWith, type Home } from '../../../support/profile-home.js';

const ENV_KEY = 'sk_env_ENVsecretVALUE_5555';
const FILE_KEY = 'sk_file_FILEsecretVALUE_8888';
const KEYS = [PROD_KEY, TEST_KEY, ENV_KEY, FILE_KEY];

const server = useTestServer();

const home = (): Home => homeWith(runInProcess);
const twoProfiles = (): Promise<Home> => twoProfilesWith(runInProcess, server.url);

function usage(r: RunResult): RunResult {
  assert.equal(r.code, 2, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

function assertNoKeys(r: RunResult, what: string): void {
  for (const key of KEYS) {
    assert.ok(!r.stdout.includes(key), `${what}: key on stdout`);
    assert.ok(!r.stderr.includes(key), `${what}: key on stderr`);
    // Not even most of it: only the last 4 characters may ever be shown.
    assert.ok(!r.stdout.includes(key.slice(0, -4)) && !r.stderr.includes(key.slice(0, -4)), `${what}: key prefix shown`);
  }
}

describe('add, list, show, use, remove', () => {
  test('set and unset change one setting and keep the key', async () => {
    const h = await twoProfiles();
    ok(await h.run(['profile', 'set', 'test', 'base-url', 'https://eu.example.com/']));
    ok(await h.run(['profile', 'set', 'test', 'channel', 'RCS']));
    ok(await h.run(['profile', 'set', 'test', 'confirm', 'true']));
    ok(await h.run(['profile', 'unset', 'test', 'from']));
    const p = (JSON.parse(readFileSync(h.file, 'utf8')) as { profiles: Record<string, Record<string, unknown>> }).profiles.test;
    assert.deepEqual(p, { apiKey: TEST_KEY, account: 'TEST01', baseUrl: 'https://eu.example.com', channel: 'RCS', confirm: true });
    ok(await h.run(['profile', 'set', 'test', 'api-key', '--api-key-stdin'], { input: 'sk_new_key_0001\n' }));
    assert.match(readFileSync(h.file, 'utf8'), /sk_new_key_0001/);
    const r = usage(await h.run(['profile', 'set', 'test', 'api-key', 'sk_inline_SECRET_0002']));
    assert.ok(!r.stderr.includes('sk_inline_SECRET_0002'), 'a key given as an argument is not repeated');
    usage(await h.run(['profile', 'set', 'test', 'channel', 'fax']));
    usage(await h.run(['profile', 'set', 'test', 'colour', 'red']));
    usage(await h.run(['profile', 'set', 'nope', 'from', 'X']));
  });

  test('an empty store: list says so on stderr and prints nothing on stdout', async () => {
    const h = home();
    const r = ok(await h.run(['profile', 'list']));
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /no profiles yet/);
    assert.equal(existsSync(h.dir), false, 'reading creates nothing');
  });

  test('base URLs must be https, or http on loopback', async () => {
    const h = home();
    const r = usage(await h.run(['profile', 'add', 'x', '--api-key-stdin', '--base-url', 'http://api.example.com'], { input: 'k\n' }));
    assert.match(r.stderr, /--base-url: refusing .*plain http/);
    assert.equal(existsSync(h.file), false);
  });
});

describe('no prompt without a terminal', () => {
  test('add without a key source fails at once with a hint naming the flags', async () => {
    const h = home();
    const started = Date.now();
    const r = usage(await h.run(['profile', 'add', 'prod', '--account', 'A']));
    assert.ok(Date.now() - started < 10_000, 'did not wait for input');
    assert.match(r.stderr, /no API key for profile "prod"/);
    assert.match(r.stderr, /--api-key-stdin/);
    assert.match(r.stderr, /--api-key-file/);
    assert.equal(existsSync(h.file), false);
  });
  test('re-adding a name needs --force', async () => {
    const h = await twoProfiles();
    const r = usage(await h.run(['profile', 'add', 'prod', '--api-key-stdin'], { input: 'other_key_1234\n' }));
    assert.match(r.stderr, /profile "prod" already exists/);
    assert.match(r.stderr, /--force/);
    assert.match(readFileSync(h.file, 'utf8'), new RegExp(PROD_KEY));
    ok(await h.run(['profile', 'add', 'prod', '--api-key-stdin', '--force', '--account', 'NEW'], { input: 'other_key_1234\n' }));
    const p = (JSON.parse(readFileSync(h.file, 'utf8')) as { profiles: Record<string, unknown> }).profiles.prod;
    assert.deepEqual(p, { account: 'NEW', apiKey: 'other_key_1234' });
  });
  test('--api-key-file works and the key never reaches argv', async () => {
    const h = home();
    const keyFile = join(tempDir(), 'key');
    writeFileSync(keyFile, `${FILE_KEY}\n`);
    const r = ok(await h.run(['profile', 'add', 'f', '--api-key-file', keyFile]));
    assert.match(r.stderr, /\*\*\*\*8888/);
    assertNoKeys(r, 'add --api-key-file');
  });
});

describe('precedence: flag > env > profile > default', () => {
  test('each setting from each source, as profile show reports it', async () => {
    const h = await twoProfiles();
    const keyFile = join(tempDir(), 'key');
    writeFileSync(keyFile, `${FILE_KEY}\n`);

    const fromProfile = await show(h);
    assert.deepEqual(fromProfile.profile, { value: 'prod', source: 'profile', origin: 'default profile' });
    assert.deepEqual(fromProfile.baseUrl, { value: 'https://prod.example.com', source: 'profile', origin: 'prod' });
    assert.deepEqual(fromProfile.account, { value: 'PROD01', source: 'profile', origin: 'prod' });
    assert.deepEqual(fromProfile.apiKey, { value: '****7777', source: 'profile', origin: 'prod' });
    assert.deepEqual(fromProfile.from, { value: 'ProdCo', source: 'profile', origin: 'prod' });
    assert.deepEqual(fromProfile.channel, { value: 'RCS', source: 'profile', origin: 'prod' });
    assert.equal(fromProfile.confirm.value, true);
    assert.equal(fromProfile.configFile, h.file);

    const env = { MSGR_PROFILE: 'test', MSGR_BASE_URL: 'https://env.example.com', MSGR_ACCOUNT_REFERENCE: 'ENV01', MSGR_API_KEY: ENV_KEY };
    const fromEnv = await show(h, [], env);
    assert.deepEqual(fromEnv.profile, { value: 'test', source: 'env', origin: 'MSGR_PROFILE' });
    assert.deepEqual(fromEnv.baseUrl, { value: 'https://env.example.com', source: 'env', origin: 'MSGR_BASE_URL' });
    assert.deepEqual(fromEnv.account, { value: 'ENV01', source: 'env', origin: 'MSGR_ACCOUNT_REFERENCE' });
    assert.deepEqual(fromEnv.apiKey, { value: '****5555', source: 'env', origin: 'MSGR_API_KEY' });
    assert.deepEqual(fromEnv.from, { value: 'TestCo', source: 'profile', origin: 'test' });
    assert.deepEqual(fromEnv.channel, { value: 'SMS', source: 'default' });
    assert.equal(fromEnv.confirm.value, false);

    const flags = ['-p', 'prod', '--base-url', 'https://flag.example.com', '--account', 'FLAG01', '--api-key-file', keyFile, '--from', 'FlagCo', '--channel', 'SMS'];
    const fromFlags = await show(h, flags, env);
    assert.deepEqual(fromFlags.profile, { value: 'prod', source: 'flag', origin: '--profile' });
    assert.deepEqual(fromFlags.baseUrl, { value: 'https://flag.example.com', source: 'flag', origin: '--base-url' });
    assert.deepEqual(fromFlags.account, { value: 'FLAG01', source: 'flag', origin: '--account' });
    assert.deepEqual(fromFlags.apiKey, { value: '****8888', source: 'flag', origin: '--api-key-file' });
    assert.deepEqual(fromFlags.from, { value: 'FlagCo', source: 'flag', origin: '--from' });
    assert.deepEqual(fromFlags.channel, { value: 'SMS', source: 'flag', origin: '--channel' });

    const stdinKey = await show(h, ['--api-key-stdin'], env, `${FILE_KEY}\n`);
    assert.deepEqual(stdinKey.apiKey, { value: '****8888', source: 'flag', origin: '--api-key-stdin' });

    const named = await show(h, ['test']);
    assert.equal(named.profile.value, 'test');
    assert.equal(named.account.value, 'TEST01');
  });

  test('human show names each source', async () => {
    const h = await twoProfiles();
    const r = ok(await h.run(['profile', 'show'], { env: { MSGR_ACCOUNT_REFERENCE: 'ENV01' } }));
    assert.match(r.stdout, /^profile\s+prod\s+default profile$/m);
    assert.match(r.stdout, /^account\s+ENV01\s+env MSGR_ACCOUNT_REFERENCE$/m);
    assert.match(r.stdout, /^base URL\s+https:\/\/prod\.example\.com\s+profile prod$/m);
    assert.match(r.stdout, /^API key\s+\*\*\*\*7777\s+profile prod$/m);
    assert.match(r.stdout, /^confirm\s+yes\s+profile prod$/m);
  });

  test('show lists a country a send would refuse, with a warning that says what to write', async () => {
    const h = await twoProfiles();
    const r = ok(await h.run(['profile', 'show'], { env: { MSGR_DEFAULT_COUNTRY: 'UK' } }));
    assert.match(r.stdout, /^country\s+UK\s+env MSGR_DEFAULT_COUNTRY$/m);
    assert.match(r.stderr, /^warning: env MSGR_DEFAULT_COUNTRY: "UK" is not a country code; did you mean GB\?/m);
    const good = ok(await h.run(['profile', 'show'], { env: { MSGR_DEFAULT_COUNTRY: 'GB' } }));
    assert.doesNotMatch(good.stderr, /country/);
  });

  test('send uses the same resolution: profile base URL and key, env account, flag from', async () => {
    const h = await twoProfiles();
    const r = await h.run(['send', '-p', 'test', '--to', '+447911123456', '--text', 'hi', '--from', 'FlagCo'], { env: { MSGR_ACCOUNT_REFERENCE: 'ENV01' } });
    ok(r);
    assert.equal(server.requests.length, 1);
    const req = server.requests[0]!;
    assert.equal(req.headers['x-api-key'], TEST_KEY);
    assert.deepEqual(
      { account: (req.json as { accountReference: string }).accountReference, from: (req.json as { from: string }).from, channel: (req.json as { channel: string }).channel },
      { account: 'ENV01', from: 'FlagCo', channel: 'SMS' },
    );
    assertNoKeys(r, 'send');
  });

  test('send --dry-run takes account, from and channel from the profile', async () => {
    const h = await twoProfiles();
    const r = ok(await h.run(['send', '--dry-run', '-p', 'prod', '--to', '+447911123456', '--text', 'hi']));
    const body = JSON.parse(r.stdout) as { accountReference: string; from: string; channel: string };
    assert.deepEqual([body.accountReference, body.from, body.channel], ['PROD01', 'ProdCo', 'RCS']);
  });
});

describe('choosing the profile', () => {
  async function noDefault(): Promise<Home> {
    const h = await twoProfiles();
    const data = JSON.parse(readFileSync(h.file, 'utf8')) as Record<string, unknown>;
    delete data.default;
    writeFileSync(h.file, JSON.stringify(data), { mode: 0o600 });
    return h;
  }
  test('several profiles, none default, none chosen: show and send refuse to guess', async () => {
    const h = await noDefault();
    for (const args of [['profile', 'show'], ['send', '--dry-run', '--to', '+447911123456', '--text', 'hi']]) {
      const r = usage(await h.run(args));
      assert.match(r.stderr, /2 profiles \(prod, test\) and none is the default: msgr will not guess/);
      assert.match(r.stderr, /-p NAME or MSGR_PROFILE=NAME/);
      assert.equal(r.stdout, '');
    }
    ok(await h.run(['send', '--dry-run', '-p', 'test', '--to', '+447911123456', '--text', 'hi']));
    ok(await h.run(['profile', 'show'], { env: { MSGR_PROFILE: 'test' } }));
  });
  test('a profile that does not exist lists the ones that do', async () => {
    const h = await twoProfiles();
    for (const run of [h.run(['profile', 'show', '-p', 'stage']), h.run(['send', '--dry-run', '--to', '+447911123456', '--text', 'hi'], { env: { MSGR_PROFILE: 'stage' } }), h.run(['profile', 'use', 'stage']), h.run(['profile', 'remove', 'stage'])]) {
      const r = usage(await run);
      assert.match(r.stderr, /profile "stage".* does not exist; profiles: prod, test/);
    }
  });
});

describe('the production guard', () => {
  test('a guarded profile needs --yes without a terminal; nothing is sent', async () => {
    const h = await twoProfiles();
    ok(await h.run(['profile', 'set', 'test', 'confirm', 'yes']));
    const refused = usage(await h.run(['send', '-p', 'test', '--to', '+447911123456', '--text', 'hi']));
    assert.match(refused.stderr, /profile "test" asks for confirmation/);
    assert.match(refused.stderr, /--yes/);
    assert.equal(server.requests.length, 0);
    ok(await h.run(['send', '-p', 'test', '--to', '+447911123456', '--text', 'hi', '--yes']));
    assert.equal(server.requests.length, 1);
  });
});

describe('the store file', () => {
  test('existing loose modes are tightened, with one warning, once', async () => {
    const h = await twoProfiles();
    chmodSync(h.dir, 0o755);
    chmodSync(h.file, 0o644);
    const first = ok(await h.run(['profile', 'list']));
    assert.equal((first.stderr.match(/warning:/g) ?? []).length, 1, first.stderr);
    assert.match(first.stderr, /made it private/);
    assert.equal(mode(h.dir), 0o700);
    assert.equal(mode(h.file), 0o600);
    const second = ok(await h.run(['profile', 'list']));
    assert.doesNotMatch(second.stderr, /warning/);
  });

  test('the folder a new store goes into is made 0700 even if it exists', async () => {
    const h = home();
    mkdirSync(h.dir, { recursive: true, mode: 0o755 });
    chmodSync(h.dir, 0o755);
    ok(await h.run(['profile', 'add', 'a', '--api-key-stdin'], { input: 'key_1234\n' }));
    assert.equal(mode(h.dir), 0o700);
    assert.equal(mode(h.file), 0o600);
  });

  for (const [what, content, problem] of [
    ['invalid JSON', '{\n  "profiles": {\n    "prod": { "apiKey": sk_live_oops }\n', /not valid JSON: unexpected text at line 3/],
    ['a key that is not a string', '{"profiles":{"prod":{"apiKey":12345}}}', /profiles\.prod\.apiKey/],
    ['an empty file', '', /is empty/],
  ] as const) {
    test(`${what}: every command fails naming the file, and the file is left alone`, async () => {
      const h = home();
      mkdirSync(h.dir, { recursive: true, mode: 0o700 });
      writeFileSync(h.file, content, { mode: 0o600 });
      const runs = [
        ['profile', 'list'],
        ['profile', 'show'],
        ['profile', 'use', 'prod'],
        ['profile', 'set', 'prod', 'from', 'X'],
        ['send', '--dry-run', '--to', '+447911123456', '--text', 'hi', '--account', 'A', '--from', 'B'],
      ];
      for (const args of runs) {
        const r = usage(await h.run(args));
        assert.ok(r.stderr.includes(h.file), `${args.join(' ')}: file not named\n${r.stderr}`);
        assert.match(r.stderr, problem);
        assert.match(r.stderr, /never resets it/);
        assert.doesNotMatch(r.stderr, /sk_live_oops/);
      }
      const add = usage(await h.run(['profile', 'add', 'other', '--api-key-stdin'], { input: 'key_9999\n' }));
      assert.ok(add.stderr.includes(h.file));
      assert.equal(readFileSync(h.file, 'utf8'), content, 'the broken file was changed');
    });
  }

});

describe('the API key appears in no output', () => {
  test('every profile command, --json, --verbose, dry runs, sends and errors', async () => {
    const h = await twoProfiles();
    const keyFile = join(tempDir(), 'key');
    writeFileSync(keyFile, `${FILE_KEY}\n`);
    const env = { MSGR_API_KEY: ENV_KEY };
    const runs: Array<[string, Promise<RunResult>]> = [
      ['list', h.run(['profile', 'list'])],
      ['list --json', h.run(['profile', 'list', '--json'])],
      ['show', h.run(['profile', 'show'])],
      ['show --json -v', h.run(['profile', 'show', '--json', '--verbose'])],
      ['show env key', h.run(['profile', 'show', 'test'], { env })],
      ['show key file', h.run(['profile', 'show', '--api-key-file', keyFile, '--json'])],
      ['show stdin key', h.run(['profile', 'show', '--api-key-stdin'], { input: `${FILE_KEY}\n` })],
      ['show unknown -v', h.run(['profile', 'show', '-p', 'nope', '--verbose'])],
      ['set', h.run(['profile', 'set', 'test', 'from', 'Other', '--verbose'])],
      ['set api-key', h.run(['profile', 'set', 'test', 'api-key', '--api-key-stdin'], { input: `${TEST_KEY}\n` })],
      ['add existing -v', h.run(['profile', 'add', 'prod', '--api-key-stdin', '--verbose'], { input: `${PROD_KEY}\n` })],
      ['send --dry-run -v', h.run(['send', '--dry-run', '--verbose', '-p', 'prod', '--to', '+447911123456', '--text', 'hi'])],
      ['send -v', h.run(['send', '--verbose', '-p', 'test', '--to', '+447911123456', '--text', 'hi', '--json'])],
      ['send refused -v', h.run(['send', '--verbose', '-p', 'prod', '--to', '+447911123456', '--text', 'hi'])],
      ['send bad url -v', h.run(['send', '--verbose', '-p', 'test', '--base-url', 'http://api.example.com', '--to', '+447911123456', '--text', 'hi'])],
    ];
    for (const [what, run] of runs) assertNoKeys(await run, what);
    // And the masked forms are what people see instead.
    assert.match((await h.run(['profile', 'show'])).stdout, /\*\*\*\*7777/);
  });
});
