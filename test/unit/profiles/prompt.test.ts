import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fakeContext, type FakeContext } from '../../support/fake-context.js';
import { InterruptedError } from '../../../src/errors.js';
import { canPrompt, promptHidden, promptYesNo } from '../../../src/profiles/prompt.js';

function fakeCtx(tty: boolean): FakeContext {
  return fakeContext({ tty });
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
