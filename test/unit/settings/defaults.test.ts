// Defaults people asked for: a default country (flag > env > profile), the missing --api-key
// explained, and suggestions for a country or a number written the way people write them.
// In-process (test/support/in-process.ts): msgr through main() with a Context of the test's.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, tempDir, type RunResult } from '../../support/cli.js';
import { runInProcess } from '../../support/in-process.js';

const DRY = ['send', '--dry-run', '--from', 'Acme', '--account', 'ACME01', '--text', 'hi'];

function envFor(dir: string, extra: Record<string, string | undefined> = {}): Record<string, string> {
  return cleanEnv({ MSGR_CONFIG_DIR: dir, ...extra });
}

describe('default country', () => {
  test('flag > MSGR_DEFAULT_COUNTRY > profile, shown with its source by profile show', async () => {
    const dir = tempDir();
    const add = await runInProcess(['profile', 'add', 'p', '--api-key-stdin', '--default-country', 'fr', '-q'], { env: envFor(dir), input: 'key-1234\n' });
    assert.equal(add.code, 0, add.stderr);
    const msisdn = async (extraArgs: string[], extraEnv: Record<string, string> = {}): Promise<string> => {
      const r = await runInProcess([...DRY, '--to', '06 12 34 56 78', ...extraArgs], { env: envFor(dir, extraEnv) });
      assert.equal(r.code, 0, r.stderr);
      return (JSON.parse(r.stdout) as { recipients: Array<{ msisdn: string }> }).recipients[0]!.msisdn;
    };
    assert.equal(await msisdn([]), '+33612345678');
    const show = await runInProcess(['profile', 'show', '--json'], { env: envFor(dir, { MSGR_DEFAULT_COUNTRY: 'BE' }) });
    assert.deepEqual((JSON.parse(show.stdout) as { defaultCountry: unknown }).defaultCountry, { value: 'BE', source: 'env', origin: 'MSGR_DEFAULT_COUNTRY' });
    const plain = await runInProcess(['profile', 'show'], { env: envFor(dir) });
    assert.match(plain.stdout, /^country +FR +profile p$/m);
    // BE reads 06 12 34 56 78 differently from FR: the env wins over the profile, the flag over both.
    const byEnv = await runInProcess([...DRY, '--to', '0470123456'], { env: envFor(dir, { MSGR_DEFAULT_COUNTRY: 'BE' }) });
    assert.equal((JSON.parse(byEnv.stdout) as { recipients: Array<{ msisdn: string }> }).recipients[0]!.msisdn, '+32470123456');
    assert.equal(await msisdn(['--default-country', 'FR'], { MSGR_DEFAULT_COUNTRY: 'BE' }), '+33612345678');
  });

  test('send-bulk reads national numbers in MSGR_DEFAULT_COUNTRY, or the profile\'s country', async () => {
    const dir = tempDir();
    const csv = join(dir, 'list.csv');
    writeFileSync(csv, 'msisdn\n06 12 34 56 78\n');
    const first = async (extra: Record<string, string>): Promise<RunResult> =>
      runInProcess(['send-bulk', csv, '--from', 'Acme', '--account', 'ACME01', '--text', 'hi', '--dry-run'], { env: envFor(dir, extra) });
    const byEnv = await first({ MSGR_DEFAULT_COUNTRY: 'fr' });
    assert.equal(byEnv.code, 0, byEnv.stderr);
    assert.equal((JSON.parse(byEnv.stdout) as { recipients: Array<{ msisdn: string }> }).recipients[0]!.msisdn, '+33612345678');
    await runInProcess(['profile', 'add', 'p', '--api-key-stdin', '--default-country', 'FR', '-q'], { env: envFor(dir), input: 'key-1234\n' });
    const byProfile = await first({});
    assert.equal(byProfile.code, 0, byProfile.stderr);
    const none = await first({ MSGR_DEFAULT_COUNTRY: 'UK' });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /env MSGR_DEFAULT_COUNTRY: "UK" is not a country code; did you mean GB\?/);
  });

  test('profile set / unset default-country', async () => {
    const dir = tempDir();
    await runInProcess(['profile', 'add', 'p', '--api-key-stdin', '-q'], { env: envFor(dir), input: 'key-1234\n' });
    assert.equal((await runInProcess(['profile', 'set', 'p', 'default-country', 'gb'], { env: envFor(dir) })).code, 0);
    const list = await runInProcess(['profile', 'list', '--json'], { env: envFor(dir) });
    assert.equal((JSON.parse(list.stdout) as { profiles: Array<{ defaultCountry: string }> }).profiles[0]!.defaultCountry, 'GB');
    assert.equal((await runInProcess(['profile', 'unset', 'p', 'default-country'], { env: envFor(dir) })).code, 0);
    const after = await runInProcess(['profile', 'show', '--json'], { env: envFor(dir) });
    assert.equal((JSON.parse(after.stdout) as { defaultCountry: { source: string } }).defaultCountry.source, 'unset');
  });

  test('UK suggests GB, a calling code suggests its country, wherever the value came from', async () => {
    const dir = tempDir();
    const flag = await runInProcess([...DRY, '--to', '07911123456', '--default-country', 'UK'], { env: envFor(dir) });
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /--default-country: "UK" is not a country code; did you mean GB\?/);
    const env = await runInProcess([...DRY, '--to', '07911123456'], { env: envFor(dir, { MSGR_DEFAULT_COUNTRY: '+44' }) });
    assert.equal(env.code, 2);
    assert.match(env.stderr, /env MSGR_DEFAULT_COUNTRY: "\+44" is not a country code; did you mean GB\?/);
    const profile = await runInProcess(['profile', 'add', 'p', '--api-key-stdin', '--default-country', 'UK'], { env: envFor(dir), input: 'k\n' });
    assert.equal(profile.code, 2);
    assert.match(profile.stderr, /did you mean GB\?/);
  });

  test('a number without its + suggests adding one', async () => {
    const r = await runInProcess([...DRY, '--to', '447911123456', '--json'], { env: envFor(tempDir()) });
    assert.equal(r.code, 2);
    const doc = JSON.parse(r.stdout) as { error: { message: string; hint: string } };
    assert.match(doc.error.message, /"447911123456" has no \+: it is \+447911123456 if international/);
    assert.match(doc.error.hint, /Write international numbers with their \+, as \+447911123456/);
  });
});

describe('--api-key', () => {
  test('explains why it does not exist and what to use, exit 2, never repeating the value', async () => {
    for (const args of [['send', '--api-key', 'sk_live_secret99', '--to', '+447911123456'], ['send-bulk', 'x.csv', '--api-key=sk_live_secret99'], ['api', '/v2/messages', '--api-key'], ['profile', 'add', 'p', '--api-key', 'sk_live_secret99']]) {
      const r = await runInProcess(args, { env: envFor(tempDir()) });
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, /there is no --api-key flag: a key on the command line ends up in shell history and in `ps`/);
      assert.match(r.stderr, /hint: Use .*--api-key-stdin/);
      assert.ok(!r.stderr.includes('sk_live_secret99') && !r.stdout.includes('sk_live_secret99'));
    }
    const json = await runInProcess(['send', '--api-key', 'sk_live_secret99', '--json'], { env: envFor(tempDir()) });
    assert.equal(json.code, 2);
    assert.match((JSON.parse(json.stdout) as { error: { message: string } }).error.message, /there is no --api-key flag/);
  });
});
