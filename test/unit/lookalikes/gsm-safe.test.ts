import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GSM_SAFE, gsmSafe } from '../../../src/lookalikes/gsm-safe.js';
import { analyseText, gsmSeptets, gsmLookalike } from '../../../src/message/segments.js';

test('each look-alike becomes GSM-7 text and nothing else changes', () => {
  for (const [ch, to] of Object.entries(GSM_SAFE)) {
    assert.equal(gsmSeptets(ch), 0, `${ch} is not GSM-7 already`);
    for (const c of to) assert.equal(gsmSeptets(c), 1, `${JSON.stringify(to)} is plain GSM-7`);
  }
  const r = gsmSafe('It\u2019s \u201cready\u201d \u2013 Zo\u00eb\u2026\u00a0bye \u{1F600}');
  assert.equal(r.text, 'It\'s "ready" - Zo\u00eb...\u0020bye \u{1F600}');
  assert.equal(r.replaced, 6);
});

test('the curly apostrophe costs a part; replaced, the message is one GSM-7 part', () => {
  const text = 'Hello, your order is ready for collection at our shop. We\u2019re open until 6pm today and tomorrow; bring this message. Thanks!';
  assert.equal(analyseText(text).encoding, 'UCS-2');
  assert.equal(analyseText(text).parts, 2);
  const safe = gsmSafe(text);
  assert.deepEqual(analyseText(safe.text), { encoding: 'GSM-7', units: text.length, parts: 1, forcing: [] });
});

test('a text without look-alikes is returned as it is', () => {
  const text = 'Café Zoë: ça va? \u{1F600}';
  const r = gsmSafe(text);
  assert.equal(r.text, text);
  assert.equal(r.replaced, 0);
});

test('msgr segments suggests the same replacements, and more', () => {
  for (const [ch, to] of Object.entries(GSM_SAFE)) assert.equal(gsmLookalike(ch), to);
  assert.equal(gsmLookalike('\u00e1'), 'a');
  assert.equal(gsmSafe('\u00e1').text, '\u00e1');
});
