// A reply is a stranger's text: wherever msgr prints it (optout list and possible, the listener's
// warnings, listen, replay, runs show) it is shown one way, what is not safe to print as <U+XXXX>.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { describeOptOut, describePossible, optOutStorePath, OptOutStore } from '../../../../src/optouts/store.js';
import { cleanEnv, tempDir } from '../../../support/cli.js';
import { testProcess } from '../../../support/fake-context.js';
import { runInProcess } from '../../../support/in-process.js';

const HOSTILE = 'STOP \u001b[2J\u001b]0;x\u0007 \u009b31m a\u200bb\u2060\ufeff';
const SHOWN = 'STOP <U+001B>[2J<U+001B>]0;x<U+0007> <U+009B>31m a<U+200B>b<U+2060><U+FEFF>';
const writer = { pid: testProcess.pid, isProcessAlive: testProcess.isProcessAlive, now: () => new Date('2030-01-01T09:00:00.000Z'), command: 'test' };

describe('replies are shown the one way msgr shows a stranger\'s text', () => {
  test('optout list and optout possible show escapes and zero-width characters as <U+XXXX>, never JSON-style', async () => {
    const dir = tempDir('msgr-shown-');
    const state = join(dir, 'state');
    const store = OptOutStore.open(optOutStorePath(state, 'ACME'));
    await store.add([{ number: '+447400900123', source: 'reply', evidence: { text: HOSTILE, event: 'ev_1' } }], writer);
    await store.possible([{ number: '+447400900124', source: 'reply', evidence: { text: `unsub ${HOSTILE}`, matched: 'unsub', why: 'an informal request', event: 'ev_2' } }], writer);
    const env = cleanEnv({ MSGR_CONFIG_DIR: state, NO_COLOR: '1' });
    const list = await runInProcess(['optout', 'list', '--account', 'ACME'], { env });
    assert.equal(list.code, 0, list.stderr);
    assert.ok(list.stdout.includes(`reply "${SHOWN}"`), list.stdout);
    const possible = await runInProcess(['optout', 'possible', '--account', 'ACME'], { env });
    assert.equal(possible.code, 0, possible.stderr);
    assert.ok(possible.stdout.includes(`"unsub ${SHOWN}"`), possible.stdout);
    for (const out of [list.stdout, possible.stdout]) {
      assert.doesNotMatch(out, /\\u00|\\u20|[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b\u2060\ufeff]/);
    }
  });

  test('the words the listener warns with quote a reply the same way, a quote in it escaped', () => {
    const e = { number: '+447400900123', since: '2030-01-01T09:00:00.000Z', reason: 'opt-out' as const, source: 'reply', evidence: { text: `${HOSTILE} "x"` } };
    assert.equal(describeOptOut(e), `opted out since 2030-01-01T09:00:00.000Z, reply "${SHOWN} \\"x\\""`);
    const p = { number: '+447400900124', since: '2030-01-01T09:00:00.000Z', source: 'reply', replies: 1, evidence: { text: HOSTILE } };
    assert.equal(describePossible(p), `"${SHOWN}" (reply, 2030-01-01T09:00:00.000Z)`);
  });
});
