import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { analyseText, describeChar, gsmLookalike, segmentText, splitGsm, splitUcs2 } from '../../../src/message/segments.js';

describe('segmentText', () => {
  test('a GSM-7 text of 161 septets: two parts, ending at 153 and 161', () => {
    const s = segmentText('a'.repeat(161));
    assert.equal(s.encoding, 'GSM-7');
    assert.equal(s.units, 161);
    assert.equal(s.perPart, 153);
    assert.deepEqual(s.parts.map((p) => [p.start, p.end, p.units]), [[1, 153], [154, 161]].map(([a, b]) => [a, b, b! - a! + 1]));
    assert.deepEqual(s.forcing, []);
    assert.equal(s.gsmAlternative, null);
  });

  test('an extension character counts 2 septets in its part and is never split', () => {
    const s = segmentText(`${'a'.repeat(152)}€${'b'.repeat(10)}`);
    assert.deepEqual(s.parts.map((p) => [p.end, p.units]), [[152, 152], [163, 12]]);
  });

  test('UCS-2: code points are counted as characters, surrogate pairs as two units', () => {
    const s = segmentText(`${'ł'.repeat(66)}😀${'ł'.repeat(10)}`);
    assert.equal(s.encoding, 'UCS-2');
    assert.equal(s.units, 78);
    assert.equal(s.characters, 77);
    assert.deepEqual(s.parts.map((p) => [p.start, p.end, p.units]), [[1, 66, 66], [67, 77, 12]]);
  });

  test('each forcing character with its code point, count and look-alike; the GSM-7 alternative', () => {
    const s = segmentText('It’s ready – it’s here\u200b');
    assert.deepEqual(s.forcing, [
      { char: '’', codePoint: 'U+2019', count: 2, lookalike: "'" },
      { char: '–', codePoint: 'U+2013', count: 1, lookalike: '-' },
      { char: '\u200b', codePoint: 'U+200B', count: 1, lookalike: '' },
    ]);
    assert.deepEqual(s.gsmAlternative, { text: "It's ready - it's here", parts: 1 });
  });

  test('invisible characters are named by code alone: a zero-width joiner, a no-break space, a control', () => {
    assert.deepEqual(['\u200d', '\u00a0', '\u001b', '\u00e7'].map(describeChar), ['(U+200D)', '(U+00A0)', '(U+001B)', 'ç (U+00E7)']);
  });

  test('no alternative when a forcing character has no look-alike', () => {
    const s = segmentText('Hi 😀 ’');
    assert.equal(s.gsmAlternative, null);
    assert.equal(s.forcing.find((f) => f.char === '😀')?.lookalike, null);
  });

  test('look-alikes are GSM-7 themselves', () => {
    for (const ch of ['’', '“', '—', '…', '\u00a0', 'ç', 'á']) {
      const l = gsmLookalike(ch);
      assert.ok(l !== null && segmentText(`x${l}`).encoding === 'GSM-7', ch);
    }
  });
});

describe('SMS encoding and parts', () => {
  test('GSM-7: 160 septets are one part, 161 are two of at most 153', () => {
    assert.deepEqual([analyseText('a'.repeat(160)).parts, analyseText('a'.repeat(160)).encoding], [1, 'GSM-7']);
    const two = analyseText('a'.repeat(161));
    assert.equal(two.parts, 2);
    assert.deepEqual(splitGsm('a'.repeat(161)).map((p) => p.length), [153, 8]);
    assert.equal(analyseText('a'.repeat(306)).parts, 2);
    assert.equal(analyseText('a'.repeat(307)).parts, 3);
  });

  test('extension characters count 2 and an escape is never split across parts', () => {
    assert.equal(analyseText('€'.repeat(80)).units, 160);
    assert.equal(analyseText('€'.repeat(80)).parts, 1);
    assert.equal(analyseText(`${'a'.repeat(159)}^`).parts, 2);
    // 152 septets, then a 2-septet character: it moves whole to part 2.
    const parts = splitGsm(`${'a'.repeat(152)}€${'b'.repeat(10)}`);
    assert.equal(parts[0], 'a'.repeat(152));
    assert.equal(parts[1], `€${'b'.repeat(10)}`);
  });

  test('UCS-2: 70 units are one part, then 67, and a surrogate pair is never split', () => {
    assert.equal(analyseText('é'.repeat(10) + 'ł'.repeat(60)).parts, 1);
    assert.equal(analyseText('ł'.repeat(71)).parts, 2);
    const parts = splitUcs2(`${'ł'.repeat(66)}😀${'ł'.repeat(10)}`);
    assert.equal(parts[0], 'ł'.repeat(66));
    assert.ok(parts[1]?.startsWith('😀'));
  });

  test('names the characters that force UCS-2, once each', () => {
    const a = analyseText('Hello ’world’ 😀 ok');
    assert.equal(a.encoding, 'UCS-2');
    assert.deepEqual(a.forcing, ['’', '😀']);
    assert.deepEqual(analyseText('Ça coûte 5€ [ok]').forcing, ['û']);
  });
});
