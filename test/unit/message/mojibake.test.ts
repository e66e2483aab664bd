// What a spreadsheet round trip mangles (UTF-8 read as Windows-1252 and saved again) is repaired;
// real words that merely hold Ã or â are not (ftfy's rules: src/message/mojibake.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { repairMojibake } from '../../../src/message/mojibake.js';
import { windows1252 } from '../../../src/message/text-file.js';

/** How a spreadsheet mangles a text: its UTF-8 bytes read as Windows-1252. */
function mangle(text: string): string {
  return windows1252(Buffer.from(text, 'utf8').toString('latin1'));
}

describe('mojibake', () => {
  const mangled: Array<[string, string]> = [
    ['ZoÃ«', 'Zoë'],
    ['JosÃ©', 'José'],
    ['Itâ€™s on Monday', 'It’s on Monday'],
    ['MÃ¼ller', 'Müller'],
    ['FranÃ§ois', 'François'],
    ['SÃ£o Paulo', 'São Paulo'],
    ['Ã‰mile', 'Émile'],
    ['naÃ¯ve cafÃ©', 'naïve café'],
    ['Â£5 off', '£5 off'],
    ['â‚¬10', '€10'],
    ['â€œQuotedâ€\u009d', '“Quoted”'],
    ['ZoÃƒÂ«', 'Zoë'],
    ['Ð˜Ð²Ð°Ð½', 'Иван'],
    ['Å½luÅ¥ouÄ\u008dkÃ½ kÅ¯Åˆ', 'Žluťoučký kůň'],
    ['Ã\u0089mile', 'Émile'],
    ['Å\u0081Ã³dÅº', 'Łódź'],
    ['ðŸ˜€ see you', '😀 see you'],
    ['Ù…Ø­Ù…Ø¯', 'محمد'],
  ];
  for (const [text, want] of mangled) {
    test(`repairs ${JSON.stringify(text)} → ${want}`, () => assert.equal(repairMojibake(text), want));
  }
  test('what Windows-1252 makes of UTF-8 is undone, for names in many languages', () => {
    for (const name of ['Zoë', 'José', 'Bjørn', 'Łukasz', 'Ærø', 'Dvořák', 'Şükrü', 'Nguyễn', 'Ελένη', 'Ødegård', 'Ñandú', 'façade', '€5 – “hi” …', 'Grüße, 😀']) {
      const m = mangle(name);
      assert.notEqual(m, name);
      assert.equal(repairMojibake(m), name, `${name} as ${m}`);
    }
  });
  const real = [
    'São Paulo',
    'Château',
    'âge',
    'pâté',
    'Crème brûlée',
    'Zoë',
    'Ã',
    'Ãbc',
    'Ã la carte',
    'SÃO PAULO',
    'Žluťoučký kůň',
    'Łukasz',
    'Straße',
    'Fuß–Weg',
    'CAFÉ—BAR',
    'Ça va',
    'naïve',
    'Dvořák',
    'Ôte-toi',
    'Âne',
    'Ærø',
    'It’s on Monday',
    'Hello',
    '',
    // Mangled, but with a letter never mangled beside it: not one consistent round trip.
    'Zoë and JosÃ©',
  ];
  for (const text of real) {
    test(`leaves ${JSON.stringify(text)} alone`, () => assert.equal(repairMojibake(text), undefined));
  }
});
