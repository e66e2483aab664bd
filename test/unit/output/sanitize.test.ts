import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { maskUrl, quoted, showControls } from '../../../src/output/sanitize.js';
import { ESCAPE_FORMS, hasControl } from '../../support/escapes.js';

describe('showControls: the one function between a stranger\'s text and a terminal', () => {
  test('every escape form is made visible, none is left to act', () => {
    for (const [name, form] of ESCAPE_FORMS) {
      const shown = showControls(`before ${form} after`);
      assert.equal(hasControl(shown), false, `${name}: ${JSON.stringify(shown)}`);
      assert.match(shown, /^before .*<U\+[0-9A-F]{4}>.* after$/, name);
    }
    assert.equal(showControls('\u001b]0;evil\u0007'), '<U+001B>]0;evil<U+0007>');
    assert.equal(showControls('\u009b2J'), '<U+009B>2J');
    assert.equal(showControls('tab\tand\nnewline'), 'tab<U+0009>and\nnewline');
    assert.equal(showControls('héllo ✔ ünïcödé'), 'héllo ✔ ünïcödé');
  });

  test('invisible and format characters are made visible; a joiner inside an emoji stays', () => {
    assert.equal(showControls('STOP\u200b'), 'STOP<U+200B>');
    assert.equal(showControls('a\u200cb\u200dc\u2060d\ufeffe\u00adf\u200eg\u2028h'), 'a<U+200C>b<U+200D>c<U+2060>d<U+FEFF>e<U+00AD>f<U+200E>g<U+2028>h');
    assert.equal(showControls('\u3164\u115f\u1160\u034f'), '<U+3164><U+115F><U+1160><U+034F>');
    assert.equal(showControls('tag\u{E0041}'), 'tag<U+E0041>');
    assert.equal(showControls('\ud800x'), '<U+D800>x');
    const family = '\u{1F468}\u200d\u{1F469}\u200d\u{1F467}';
    const england = '\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}';
    assert.equal(showControls(`${family} ${england} \u{1F44D}\u{1F3FD}`), `${family} ${england} \u{1F44D}\u{1F3FD}`);
    assert.equal(showControls('\u{1F468}\u200d'), '\u{1F468}<U+200D>');
  });

  test('a joiner or non-joiner inside a word of a script that spells with it stays; between Latin letters it is shown', () => {
    const persian = 'می\u200cخواهم';
    const devanagari = 'क्\u200dष';
    assert.equal(showControls(`لغو ${persian} ${devanagari}`), `لغو ${persian} ${devanagari}`);
    assert.equal(showControls('ST\u200cOP'), 'ST<U+200C>OP');
    assert.equal(showControls('می\u200c'), 'می<U+200C>');
    assert.equal(showControls('a\u200dक'), 'a<U+200D>क');
  });

  test('quoted: a stranger\'s text in a line of msgr\'s, its quotes escaped so it cannot end early', () => {
    assert.equal(quoted('STOP" → opted out \u001b[2J\u200b\\'), '"STOP\\" → opted out <U+001B>[2J<U+200B>\\\\"');
  });

  test('idempotent: what it made visible stays as it is', () => {
    for (const [, form] of ESCAPE_FORMS) assert.equal(showControls(showControls(form)), showControls(form));
  });
});

describe('maskUrl: one rule for every URL msgr prints', () => {
  test('the password and query secrets are hidden; the rest is shown as written', () => {
    assert.equal(maskUrl('http://appuser:S3cretPass@host/hooks?apikey=SECRET&x=1'), 'http://appuser:***@host/hooks?apikey=***&x=1');
    assert.equal(maskUrl('https://host/p?token=t&access_token=a&sig=s&signature=z&key=k&page=2#frag'), 'https://host/p?token=***&access_token=***&sig=***&signature=***&key=***&page=2#frag');
    assert.equal(maskUrl('http://ops:p%40ss@proxy:3128'), 'http://ops:***@proxy:3128');
    assert.equal(maskUrl('http://:onlypass@proxy:3128'), 'http://:***@proxy:3128');
    assert.equal(maskUrl('http://justuser@host/'), 'http://justuser@host/');
    assert.equal(maskUrl('http://host/a@b?mail=x@y.example'), 'http://host/a@b?mail=x@y.example');
    assert.equal(maskUrl('https://api.example.com'), 'https://api.example.com');
    assert.equal(maskUrl(new URL('https://u:pw@h.example/a?Api-Key=1')), 'https://u:***@h.example/a?Api-Key=***');
  });

  test('a URL that does not parse (a password with an unencoded / or ?) is masked all the same', () => {
    assert.equal(maskUrl('http://user:pa/ss?w@proxy:3128'), 'http://user:***@proxy:3128');
    assert.doesNotMatch(maskUrl('https://u:se cret@host/x'), /se cret/);
  });

  test('hidePath: a webhook URL shows its host, never the path that may hold a token', () => {
    assert.equal(maskUrl('http://127.0.0.1:4020/tok-0123456789abcdef/x?y=1', { hidePath: true }), 'http://127.0.0.1:4020/…');
    assert.equal(maskUrl('http://127.0.0.1:4020/', { hidePath: true }), 'http://127.0.0.1:4020/');
    assert.equal(maskUrl('https://any:tok-0123456789abcdef@hooks.example/', { hidePath: true }), 'https://any:***@hooks.example/');
  });

  test('control characters in a URL are made visible too', () => {
    assert.equal(hasControl(maskUrl('http://host/\u001b]0;x\u0007')), false);
  });
});
