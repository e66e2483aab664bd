// Commander's own errors (an unknown option, a missing value) quote the command line, which a
// script may have built from a stranger's text: they show control characters as msgr shows any
// text it did not write (docs/contract.md: "Streams"), whatever the colour settings.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runInProcess } from '../../support/in-process.js';

const ESC = '\u001b';

test('an unknown option holding an escape sequence is refused with the escape shown as <U+001B>, and the terminal gets none', async () => {
  for (const env of [{}, { FORCE_COLOR: '1' }, { NO_COLOR: '1' }]) {
    const r = await runInProcess(['send', `--x${ESC}[2J${ESC}]0;owned\u0007`], { env });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr.includes(ESC) || r.stderr.includes('\u0007'), false, JSON.stringify(r.stderr));
    assert.match(r.stderr, /^error: unknown option '--x<U\+001B>\[2J<U\+001B>\]0;owned<U\+0007>'$/m);
    assert.match(r.stderr, /^hint: See the options with: msgr send --help$/m);
  }
});

test('an unknown command with a right-to-left override shows the override, so the name reads as typed', async () => {
  const r = await runInProcess(['sen\u202Ed']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /^error: unknown command 'sen<U\+202E>d'/m);
});
