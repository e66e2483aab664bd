// `msgr profile` end to end: the built CLI (or the single executable file) with a temporary
// MSGR_CONFIG_DIR, stdin not a TTY: a full round, a folder shared by all users, and several
// processes writing the store at once. The rest is proved in-process in test/unit/commands/profile/.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { describe, test } from 'node:test';
import { runCli } from '../support/cli.js';
import { useTestServer } from '../support/test-server.js';
import { homeWith, mode, ok, show, PROD_KEY, twoProfilesWith, type Home } from '../support/profile-home.js';


const server = useTestServer();

const home = (): Home => homeWith(runCli);
const twoProfiles = (): Promise<Home> => twoProfilesWith(runCli, server.url);



describe('add, list, show, use, remove', () => {
  test('a full round, with a private file in a private folder', async () => {
    const h = await twoProfiles();
    assert.equal(mode(h.dir), 0o700);
    assert.equal(mode(h.file), 0o600);
    const saved = JSON.parse(readFileSync(h.file, 'utf8')) as { default: string; profiles: Record<string, { apiKey: string; channel: string; confirm?: boolean }> };
    assert.equal(saved.default, 'prod', 'the first profile becomes the default');
    assert.equal(saved.profiles.prod?.apiKey, PROD_KEY);
    assert.equal(saved.profiles.prod?.channel, 'RCS');
    assert.equal(saved.profiles.prod?.confirm, true);

    const list = ok(await h.run(['profile', 'list']));
    const lines = list.stdout.trimEnd().split('\n');
    assert.match(lines[0] ?? '', /NAME\s+ACCOUNT\s+BASE URL\s+API KEY/);
    assert.match(lines[1] ?? '', /^\*\s+prod\s+PROD01\s+https:\/\/prod\.example\.com\s+\*\*\*\*7777/);
    assert.match(lines[2] ?? '', /^\s+test\s+TEST01\s+http:\/\/127\.0\.0\.1:\d+\s+\*\*\*\*2222/);

    const json = JSON.parse(ok(await h.run(['profile', 'list', '--json'])).stdout) as { default: string; profiles: Array<{ name: string; apiKey: string; default: boolean }> };
    assert.equal(json.default, 'prod');
    assert.deepEqual(
      json.profiles.map((p) => [p.name, p.apiKey, p.default]),
      [
        ['prod', '****7777', true],
        ['test', '****2222', false],
      ],
    );

    ok(await h.run(['profile', 'use', 'test']));
    assert.equal((await show(h)).profile.value, 'test');
    ok(await h.run(['profile', 'remove', 'test']));
    const after = JSON.parse(readFileSync(h.file, 'utf8')) as { default?: string; profiles: Record<string, unknown> };
    assert.equal(after.default, undefined, 'removing the default clears it');
    assert.deepEqual(Object.keys(after.profiles), ['prod']);
    assert.equal(mode(h.file), 0o600, 'still private after rewrites');
  });

});

describe('the store file', () => {
  test('MSGR_CONFIG_DIR naming a folder shared by all users (sticky, as /tmp): its mode is left alone, the file in it is made 0600, and a warning says to give msgr a folder of its own', async () => {
    const h = home();
    mkdirSync(h.dir, { recursive: true });
    chmodSync(h.dir, 0o1777);
    const add = ok(await h.run(['profile', 'add', 'a', '--api-key-stdin', '--account', 'A1', '--base-url', server.url], { input: 'key_1234\n' }));
    assert.match(add.stderr, new RegExp(`^warning: the profile folder ${h.dir} is shared by all users \\(a sticky folder, such as /tmp\\): msgr leaves its permissions alone .*MSGR_CONFIG_DIR=${h.dir}/msgr\\)\\.$`, 'm'));
    assert.equal(statSync(h.dir).mode & 0o7777, 0o1777);
    assert.equal(mode(h.file), 0o600);
    chmodSync(h.file, 0o644);
    const send = ok(await h.run(['send', '--to', '+447911123456', '--from', 'Acme', '--text', 'hi']));
    assert.match(send.stderr, /made it private: .*config\.json \(was 0644, now 0600\)/);
    assert.equal(statSync(h.dir).mode & 0o7777, 0o1777);
    assert.equal(mode(h.file), 0o600);
  });

  test('concurrent adds from several processes keep every profile', async () => {
    const h = home();
    const names = Array.from({ length: 8 }, (_, i) => `p${i}`);
    const results = await Promise.all(names.map((n) => h.run(['profile', 'add', n, '--api-key-stdin', '--account', n.toUpperCase()], { input: `key_${n}_abcd\n` })));
    results.forEach(ok);
    const saved = JSON.parse(readFileSync(h.file, 'utf8')) as { default?: string; profiles: Record<string, { apiKey: string }> };
    assert.deepEqual(Object.keys(saved.profiles).sort(), names);
    for (const n of names) assert.equal(saved.profiles[n]?.apiKey, `key_${n}_abcd`);
    assert.ok(saved.default !== undefined && names.includes(saved.default), 'exactly the first one became the default');
    assert.equal(existsSync(`${h.file}.lock`), false, 'lock released');
  });

  test('concurrent sets of different settings on one profile keep every change', async () => {
    const h = await twoProfiles();
    const changes: Array<[string, string]> = [
      ['account', 'NEWACC'],
      ['from', 'NewCo'],
      ['channel', 'SMS'],
      ['base-url', 'https://new.example.com'],
      ['confirm', 'false'],
    ];
    (await Promise.all(changes.map(([k, v]) => h.run(['profile', 'set', 'prod', k, v])))).forEach(ok);
    const p = (JSON.parse(readFileSync(h.file, 'utf8')) as { profiles: Record<string, unknown> }).profiles.prod;
    assert.deepEqual(p, { apiKey: PROD_KEY, account: 'NEWACC', from: 'NewCo', channel: 'SMS', baseUrl: 'https://new.example.com' });
  });
});

