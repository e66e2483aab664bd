import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fakeContext, type FakeContext } from '../../support/fake-context.js';
import { UsageError } from '../../../src/errors.js';
import { confirmSend } from '../../../src/settings/confirm.js';
import type { Settings } from '../../../src/settings/resolve.js';

const KEY = 'sk_live_confirm_9876';

function fakeCtx(tty: boolean): FakeContext {
  return fakeContext({ env: { NO_COLOR: '1' }, tty });
}

function settings(confirm: boolean): Settings {
  return {
    profile: { value: 'prod', source: 'profile', origin: 'default profile' },
    baseUrl: { value: 'https://prod.example.com', source: 'profile', origin: 'prod' },
    account: { value: 'OTHER', source: 'env', origin: 'MSGR_ACCOUNT_REFERENCE' },
    apiKey: { value: KEY, source: 'profile', origin: 'prod' },
    from: { value: 'Acme', source: 'profile', origin: 'prod' },
    channel: { value: 'SMS', source: 'default' },
    caFile: { value: undefined, source: 'unset' },
    defaultCountry: { value: undefined, source: 'unset' },
    window: { value: undefined, source: 'unset' },
    tz: { value: undefined, source: 'unset' },
    priceFile: { value: undefined, source: 'unset' },
    confirm,
    configFile: '/cfg/config.json',
  };
}

describe('confirmSend', () => {
  test('does nothing when the profile does not ask', async () => {
    const ctx = fakeCtx(false);
    await confirmSend(ctx, settings(false), { recipients: 3, yes: false });
    assert.equal(ctx.err(), '');
  });
  test('--yes skips the question, even without a terminal', async () => {
    const ctx = fakeCtx(false);
    await confirmSend(ctx, settings(true), { recipients: 3, yes: true });
    assert.equal(ctx.err(), '');
  });
  test('no terminal and no --yes: a usage error naming --yes', async () => {
    const ctx = fakeCtx(false);
    await assert.rejects(confirmSend(ctx, settings(true), { recipients: 3, yes: false }), (e: unknown) => {
      assert.ok(e instanceof UsageError);
      assert.equal(e.exitCode, 2);
      assert.match(e.message, /profile "prod" asks for confirmation/);
      assert.match(e.hint ?? '', /--yes/);
      return true;
    });
  });
  test('on a terminal: shows profile, account with its source, base URL, masked key and count; y sends', async () => {
    const ctx = fakeCtx(true);
    const done = confirmSend(ctx, settings(true), { recipients: 1200, yes: false });
    ctx.type('y\n');
    await done;
    const shown = ctx.err();
    assert.match(shown, /profile\s+prod/);
    assert.match(shown, /account\s+OTHER\s+env MSGR_ACCOUNT_REFERENCE/);
    assert.match(shown, /base URL\s+https:\/\/prod\.example\.com/);
    assert.match(shown, /\*\*\*\*9876/);
    assert.match(shown, /1,200 recipients/);
    assert.match(shown, /Send\? \[y\/N\]/);
    assert.ok(!shown.includes(KEY), 'key shown in the confirmation');
  });
  test('shows the account the request really uses when the caller passes it', async () => {
    const ctx = fakeCtx(true);
    const done = confirmSend(ctx, settings(true), { recipients: 1, yes: false, account: { value: 'FROMFILE', source: 'flag', origin: '--input' } });
    ctx.type('y\n');
    await done;
    assert.match(ctx.err(), /account\s+FROMFILE\s+flag --input/);
    assert.doesNotMatch(ctx.err(), /OTHER/);
  });
  for (const answer of ['n\n', '\n', 'yess\n', 'no\n']) {
    test(`on a terminal: ${JSON.stringify(answer)} does not send`, async () => {
      const ctx = fakeCtx(true);
      const done = confirmSend(ctx, settings(true), { recipients: 1, yes: false });
      ctx.type(answer);
      await assert.rejects(done, (e: unknown) => e instanceof UsageError && /nothing was sent/.test(e.message));
    });
  }
});
