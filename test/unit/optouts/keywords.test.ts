// The reply classifier, as docs/optouts.md ("From replies") states its rules: each reply with the
// verdict a careful reader of 47 CFR 64.1200(a)(10) would give it, in every language msgr reads.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { classifyReply, keywords, type ReplyVerdict } from '../../../src/optouts/keywords.js';

/** `stop WORD`: an opt-out per se by that word; `possible`; `start`; `none`. */
type Expected = `stop ${string}` | 'possible' | 'start' | 'none';

const TABLE: ReadonlyArray<readonly [string, Expected]> = [
  // The FCC's words, alone, in any case, with punctuation, emoji and other words around.
  ['STOP', 'stop stop'],
  ['stop', 'stop stop'],
  [' Stop. ', 'stop stop'],
  ['"STOP"', 'stop stop'],
  ['STOP please', 'stop stop'],
  ['Please stop texting me', 'stop stop'],
  ['stop stop', 'stop stop'],
  ['STOP 🙂', 'stop stop'],
  ['🙄STOP🙄', 'stop stop'],
  ['ＳＴＯＰ', 'stop stop'],
  ['ｓｔｏｐ　ｐｌｅａｓｅ', 'stop stop'],
  ['#stop', 'stop stop'],
  ['STOPALL', 'stop stopall'],
  ['Stop all', 'stop stop'],
  ['QUIT', 'stop quit'],
  ['I quit', 'stop quit'],
  ['END', 'stop end'],
  ['end.', 'stop end'],
  ['REVOKE', 'stop revoke'],
  ['I revoke my consent', 'stop revoke'],
  ['CANCEL', 'stop cancel'],
  ['Cancel!!!', 'stop cancel'],
  ['UNSUBSCRIBE', 'stop unsubscribe'],
  ['Unsubscribe me now', 'stop unsubscribe'],
  ['opt out', 'stop opt out'],
  ['Opt-Out', 'stop opt out'],
  ['OPTOUT', 'stop optout'],
  ['opt_out please', 'stop opt out'],
  ["Don't text me, stop", 'stop stop'],
  ['Who is this? Stop', 'stop stop'],
  ['stop-loss', 'stop stop'],
  // The per se words in another sense: the law makes them opt-outs all the same (documented).
  ['Stop by tomorrow?', 'stop stop'],
  ['the end of the line', 'stop end'],
  ['cancel my appointment', 'stop cancel'],
  ['Can you cancel Tuesday and book Friday?', 'stop cancel'],
  ["I'll quit smoking first", 'stop quit'],
  // A per se word negated: not asking for it, but a person should read it.
  ["don't stop", 'possible'],
  ['Please do not stop these reminders', 'possible'],
  ['never stop', 'possible'],
  ["can't stop laughing", 'possible'],
  ["Don't cancel please", 'possible'],
  // Informal requests without the words (English).
  ['remove me from your list', 'possible'],
  ['Please remove my number', 'possible'],
  ['take me off your list', 'possible'],
  ['No more messages', 'possible'],
  ['no more texts pls', 'possible'],
  ['no more', 'possible'],
  ["don't text me", 'possible'],
  ['Do not contact me again', 'possible'],
  ["I don't want these messages", 'possible'],
  ['leave me alone', 'possible'],
  ['wrong number', 'possible'],
  ['not interested', 'possible'],
  ['I never signed up for this', 'possible'],
  ['opt me out', 'possible'],
  ['I opted out already', 'possible'],
  ['no thanks', 'possible'],
  ['spam', 'possible'],
  ['🛑', 'possible'],
  // The words misspelt, shortened or inflected.
  ['unsub', 'possible'],
  ['UNSUBSCIBE', 'possible'],
  ['Stopp', 'possible'],
  ['stooop', 'possible'],
  ['sotp', 'possible'],
  ['st0p', 'possible'],
  ['unsubscr1be', 'possible'],
  ['S T O P', 'possible'],
  ['s.t.o.p', 'possible'],
  ['U N S U B S C R I B E', 'possible'],
  ['A B C', 'none'],
  ['B2B', 'none'],
  ['STOPPED', 'possible'],
  ['Stopping by later', 'possible'],
  ['cancelled', 'possible'],
  ['quitt', 'possible'],
  // Other languages: possible, for a person to read (docs/optouts.md lists the words).
  ['Baja', 'possible'],
  ['alto', 'possible'],
  ['NO MÁS', 'possible'],
  ['no me envíen más mensajes', 'possible'],
  ['cancelar', 'possible'],
  ['Arrêt', 'possible'],
  ['ARRETEZ svp', 'possible'],
  ['je veux me désabonner', 'possible'],
  ['Stopp bitte', 'possible'],
  ['abmelden', 'possible'],
  ['keine SMS mehr', 'possible'],
  ['basta', 'possible'],
  ['cancellami', 'possible'],
  ['não quero', 'possible'],
  ['sair', 'possible'],
  ['afmelden', 'possible'],
  ['geen sms meer aub', 'possible'],
  // Opting back in: a start word as the whole reply only.
  ['START', 'start'],
  ['start please', 'start'],
  ['Unstop', 'start'],
  ['Ｓｔａｒｔ', 'start'],
  ['Can I start next week?', 'none'],
  ['STOP START', 'stop stop'],
  // Ordinary replies.
  ['Thanks, see you then', 'none'],
  ['Yes', 'none'],
  ['Running 10 minutes late', 'none'],
  ['I have cancer, can we talk?', 'none'],
  ['nonstop flight', 'none'],
  ['weekend is fine', 'none'],
  ['Send me the address', 'none'],
  ['Alto Street, number 5', 'none'],
  ['', 'none'],
  ['👍', 'none'],
];

function verdictOf(v: ReplyVerdict | undefined): Expected {
  if (v === undefined) return 'none';
  return v.kind === 'stop' ? `stop ${v.word}` : v.kind;
}

describe('the reply classifier', () => {
  test(`a table of ${TABLE.length} replies and their verdicts`, () => {
    assert.ok(TABLE.length >= 60);
    const w = keywords();
    const wrong = TABLE.filter(([text, expected]) => verdictOf(classifyReply(text, w)) !== expected).map(([text, expected]) => `${JSON.stringify(text)}: expected ${expected}, got ${verdictOf(classifyReply(text, w))}`);
    assert.deepEqual(wrong, []);
  });

  test('a possible opt-out says what in the reply reads as one, and why it is not certain', () => {
    const w = keywords();
    assert.deepEqual(classifyReply('Please remove me from your list', w), { kind: 'possible', matched: 'remove me', why: 'an informal request' });
    assert.deepEqual(classifyReply("please don't stop", w), { kind: 'possible', matched: "please don't stop", why: 'a stop word negated' });
    assert.deepEqual(classifyReply('Stopp', w), { kind: 'possible', matched: 'stopp', why: 'a stop word misspelt' });
    assert.deepEqual(classifyReply('keine SMS mehr', w), { kind: 'possible', matched: 'keine sms', why: 'a request in German' });
  });

  test("a sender's own stop words add to the FCC's, which always apply; start words replace START/UNSTOP", () => {
    const w = keywords(['ARRÊT', 'Stopp', 'no more'], ['RESUME']);
    assert.deepEqual(classifyReply('arret', w), { kind: 'stop', word: 'arret' });
    assert.deepEqual(classifyReply('STOPP!', w), { kind: 'stop', word: 'stopp' });
    assert.deepEqual(classifyReply('no more', w), { kind: 'stop', word: 'no more' });
    assert.deepEqual(classifyReply('STOP', w), { kind: 'stop', word: 'stop' });
    assert.deepEqual(classifyReply('resume', w), { kind: 'start', word: 'resume' });
    assert.equal(classifyReply('START', w), undefined);
  });
});
