// argv → options for listen, replay, optout and trigger, through Commander as a user types them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Command } from 'commander';
import { registerListen } from '../../../../src/commands/listen/index.js';
import { optionEnvFromContext } from '../../../../src/commands/shared/flags.js';
import type { ListenOptions } from '../../../../src/commands/listen/options.js';
import type { ReplayOptions } from '../../../../src/commands/listen/replay/options.js';
import { parseSize } from '../../../../src/commands/listen/options.js';
import { registerTrigger } from '../../../../src/commands/trigger/index.js';
import type { TriggerOptions } from '../../../../src/commands/trigger/options.js';
import { UsageError } from '../../../../src/errors.js';
import { fakeContext } from '../../../support/fake-context.js';

function program(): Command {
  return new Command('msgr').exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
}

async function listen(args: string[]): Promise<{ listen?: ListenOptions; replay?: ReplayOptions }> {
  const got: { listen?: ListenOptions; replay?: ReplayOptions } = {};
  const p = program();
  const ctx = fakeContext();
  registerListen(
    p,
    ctx,
    (o) => {
      got.listen = o;
      return Promise.resolve();
    },
    (o) => {
      got.replay = o;
      return Promise.resolve();
    },
  );
  // As main.ts's program: MSGR_LISTEN_PORT or MSGR_FORWARD_TO exported in the shell stays out.
  optionEnvFromContext(p, ctx.env);
  await p.parseAsync(['listen', ...args], { from: 'user' });
  return got;
}

describe('msgr listen options', () => {
  test('defaults, and the flags as typed', async () => {
    const d = (await listen([])).listen;
    assert.equal(d?.port, 4020);
    assert.equal(d?.host, '127.0.0.1');
    assert.equal(d?.optouts, undefined);
    assert.equal(d?.warnAfterMs, 120_000);
    const o = (await listen(['--port', '0', '--optouts', '--allow-start', '--max-body', '256k', '--dedup-window', '0', '--status-field', 'data.state', '--forward-to', 'http://127.0.0.1:3000/h'])).listen;
    assert.equal(o?.port, 0);
    assert.equal(o?.optouts, true);
    assert.equal(o?.maxBodyBytes, 256 * 1024);
    assert.equal(o?.dedupWindowMs, 0);
    assert.deepEqual(o?.fields, { status: 'data.state' });
    assert.equal(o?.forwardTo?.url.href, 'http://127.0.0.1:3000/h');
    assert.equal((await listen(['--optouts', 'stop.txt'])).listen?.optouts, 'stop.txt');
  });

  test('refusals name the flag', async () => {
    for (const [args, re] of [
      [['--allow-start'], /--allow-start needs --optouts/],
      [['--max-body', 'lots'], /--max-body/],
      [['--forward-to', 'ftp://x'], /--forward-to/],
      [['--token', 'short'], /--token: a listener token must be/],
      [['--print-url', '--port', '0'], /--print-url needs a fixed --port/],
      [['--status-field', 'a..b'], /--status-field/],
      [['--optouts', '--permanent-codes', '1'], /--permanent-codes needs --undeliverable/],
    ] as const) {
      await assert.rejects(listen([...args]), (e: unknown) => e instanceof UsageError && re.test(e.message), args.join(' '));
    }
  });

  test('replay: its own flags after `replay`; ages and times', async () => {
    const r = (await listen(['replay', '--since', '2h', '--filter', 'status=failed,expired', '--events', 'e.jsonl', '--json', '--forward-to', 'http://127.0.0.1:1/x', '--status-field', 'a.b'])).replay;
    assert.equal(r?.json, true);
    assert.equal(r?.forwardTo?.url.href, 'http://127.0.0.1:1/x');
    assert.deepEqual(r?.fields, { status: 'a.b' });
    assert.ok(r?.since !== undefined && Date.now() - r.since.getTime() >= 7_200_000 - 5_000);
    assert.deepEqual(r?.filters, [{ key: 'status', values: ['failed', 'expired'] }]);
    assert.equal(r?.events, 'e.jsonl');
    assert.equal((await listen(['replay', '--until', '2030-01-01T00:00:00Z'])).replay?.until?.toISOString(), '2030-01-01T00:00:00.000Z');
    await assert.rejects(listen(['replay', '--since', 'yesterday']), /--since: "yesterday" is neither a time nor an age/);
    await assert.rejects(listen(['replay', '--filter', 'status']), /--filter: "status" is not key=value/);
    await assert.rejects(listen(['replay', '--optouts']), /msgr listen replay does not take --optouts/);
  });

  test('sizes', () => {
    assert.equal(parseSize('1m'), 1024 * 1024);
    assert.equal(parseSize('2048'), 2048);
    assert.equal(parseSize('10'), undefined);
    assert.equal(parseSize('1g'), undefined);
  });
});

describe('msgr trigger options', () => {
  async function trigger(args: string[]): Promise<TriggerOptions | undefined> {
    let got: TriggerOptions | undefined;
    const p = program();
    const ctx = fakeContext();
    registerTrigger(p, ctx, (o) => {
      got = o;
      return Promise.resolve();
    });
    optionEnvFromContext(p, ctx.env);
    await p.parseAsync(['trigger', ...args], { from: 'user' });
    return got;
  }
  test('kinds, parts, fields', async () => {
    const o = await trigger(['failed', '--part', '2/3', '--set', 'data.n=2', '--set', 'note=hi', '--temporary']);
    assert.equal(o?.kind, 'failed');
    assert.deepEqual(o?.part, { index: 2, count: 3 });
    assert.deepEqual(o?.set, [{ path: 'data.n', value: 2 }, { path: 'note', value: 'hi' }]);
    await assert.rejects(trigger(['bounced']), /"bounced" is not an event msgr trigger sends/);
    await assert.rejects(trigger(['inbound', '--part', '1/2']), /--part is for receipts/);
    await assert.rejects(trigger(['delivered', '--code', 'x']), /--code is for failed receipts only/);
  });
});
