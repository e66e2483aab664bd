import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import type { Context } from '../../src/context.js';
import { InterruptedError } from '../../src/errors.js';
import { canPrompt, promptHidden, promptYesNo } from '../../src/profiles/prompt.js';

type FakeStdin = PassThrough & { isTTY?: boolean; setRawMode?: (raw: boolean) => void; rawCalls: boolean[] };

function fakeCtx(tty: boolean): Context & { err: () => string; stdinStream: FakeStdin } {
  let err = '';
  const stdin = new PassThrough() as FakeStdin;
  stdin.rawCalls = [];
  if (tty) {
    stdin.isTTY = true;
    stdin.setRawMode = (raw) => void stdin.rawCalls.push(raw);
  }
  return {
    argv: [],
    env: {},
    cwd: process.cwd(),
    stdout: { write: () => true },
    stderr: { write: (s: string) => ((err += s), true), isTTY: tty },
    stdin,
    now: () => new Date(),
    interrupt: new AbortController().signal,
    version: 'test',
    onExit: () => {},
    enableGracefulInterrupt: () => {},
    err: () => err,
    stdinStream: stdin,
  };
}

describe('prompts', () => {
  test('canPrompt only on a terminal', () => {
    assert.equal(canPrompt(fakeCtx(true)), true);
    assert.equal(canPrompt(fakeCtx(false)), false);
  });
  test('hidden prompt: raw mode on and off, nothing echoed, backspace and Ctrl-U handled', async () => {
    const ctx = fakeCtx(true);
    const p = promptHidden(ctx, 'API key: ');
    ctx.stdinStream.write('wrong\u0015sk_abc');
    ctx.stdinStream.write('x\u007fd\r');
    assert.equal(await p, 'sk_abcd');
    assert.deepEqual(ctx.stdinStream.rawCalls, [true, false]);
    assert.equal(ctx.err(), 'API key: \n');
  });
  test('hidden prompt: bracketed paste markers are dropped', async () => {
    const ctx = fakeCtx(true);
    const p = promptHidden(ctx, 'k: ');
    ctx.stdinStream.write('\u001b[200~pasted_key\u001b[201~\n');
    assert.equal(await p, 'pasted_key');
  });
  test('hidden prompt: Ctrl-C aborts with exit 130 and leaves raw mode', async () => {
    const ctx = fakeCtx(true);
    const p = promptHidden(ctx, 'k: ');
    ctx.stdinStream.write('abc\u0003');
    await assert.rejects(p, InterruptedError);
    assert.deepEqual(ctx.stdinStream.rawCalls, [true, false]);
  });
  test('yes/no: only y or yes', async () => {
    for (const [typed, want] of [['y\n', true], ['YES\n', true], [' yes \n', true], ['n\n', false], ['\n', false], ['sure\n', false]] as const) {
      const ctx = fakeCtx(true);
      const p = promptYesNo(ctx, 'Go?');
      ctx.stdinStream.write(typed);
      assert.equal(await p, want, typed);
      assert.equal(ctx.err(), 'Go? [y/N] ');
    }
  });
  test('end of input answers no', async () => {
    const ctx = fakeCtx(true);
    const p = promptYesNo(ctx, 'Go?');
    ctx.stdinStream.end();
    assert.equal(await p, false);
  });
});
