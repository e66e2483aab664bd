// Which replies are an opt-out, a possible one, or an opt-in (docs/optouts.md: "From replies",
// where every list and rule below is written out for users).
//
// The rule: since 47 CFR 64.1200(a)(10) (FCC 24-24), a reply that uses any of the words stop,
// quit, end, revoke, opt out, cancel or unsubscribe revokes consent per se, and a reply in other
// words does too when a reasonable person would read it so. So a stop word anywhere in a reply, as
// a word, opts its sender out ("STOP please", "Please stop texting me", "Stop by tomorrow?": the
// law does not ask what else the reply says, and a wrong guess the other way is a violation per
// message). A reply that asks in other words ("remove me", "no more messages", "unsub", "stopp",
// another language's word) or negates a stop word ("don't stop") is a possible opt-out: kept with
// its evidence until a person decides, and no send reaches the number meanwhile. A start word
// opts back in only when it is the whole reply: "Can I start next week?" re-subscribes nobody.
//
// Words are compared folded: Unicode-normalised (full-width letters), lower case, accents off,
// any punctuation, emoji or space between words.

/** The FCC's per se words and the carriers' STOPALL (CTIA Messaging Principles and Best Practices). */
export const DEFAULT_STOP_WORDS: readonly string[] = ['STOP', 'STOPALL', 'QUIT', 'END', 'REVOKE', 'CANCEL', 'UNSUBSCRIBE', 'OPT OUT', 'OPTOUT'];
/** Opt back in (CTIA): only as the whole reply. */
export const DEFAULT_START_WORDS: readonly string[] = ['START', 'UNSTOP'];

/** A word list as the classifier holds it: each entry its folded words (`opt out` is two). */
export interface Keywords {
  readonly stop: ReadonlyArray<readonly string[]>;
  readonly start: ReadonlySet<string>;
}

/** The words of a text, folded, each with the clause it is in (punctuation between words ends a clause). */
interface Token {
  readonly word: string;
  readonly clause: number;
}

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;
const CLAUSE_END = /[.,;:!?¡¿。，；：！？、\n]/u;

/** A text folded as the lists are: NFKC (full-width forms), lower case, no accents, straight apostrophes. */
export function fold(text: string): string {
  return text.normalize('NFKC').toLowerCase().normalize('NFD').replace(/\p{M}/gu, '').replace(/’/g, "'");
}

function tokens(text: string): Token[] {
  const folded = fold(text);
  const out: Token[] = [];
  let clause = 0;
  let last = 0;
  for (const m of folded.matchAll(WORD)) {
    if (CLAUSE_END.test(folded.slice(last, m.index))) clause++;
    out.push({ word: m[0], clause });
    last = m.index + m[0].length;
  }
  return out;
}

/** A list entry's folded words: `opt-out` and `opt out` are `opt`, `out`. */
function wordsOf(entry: string): string[] {
  return tokens(entry).map((t) => t.word);
}

/** The classifier's lists: the FCC's words always, plus `stopWords` (a sender's own, e.g. ARRET); `startWords` replaces START/UNSTOP. */
export function keywords(stopWords: readonly string[] = [], startWords: readonly string[] = DEFAULT_START_WORDS): Keywords {
  const stop = [...DEFAULT_STOP_WORDS, ...stopWords].map(wordsOf).filter((w) => w.length > 0);
  return { stop, start: new Set(startWords.map((w) => wordsOf(w).join(''))) };
}

export type ReplyVerdict =
  /** An opt-out per se: `word` is the stop word that matched, as the list writes it (`stop`, `opt out`). */
  | { readonly kind: 'stop'; readonly word: string }
  /** A possible opt-out: `matched`, the words that read as one; `why`, why it is not certain. */
  | { readonly kind: 'possible'; readonly matched: string; readonly why: string }
  /** An opt-in: the whole reply is a start word. */
  | { readonly kind: 'start'; readonly word: string };

/** Words that negate a stop word just before it, in the same clause ("don't stop", "never stop"). */
const NEGATIONS = new Set(['not', "don't", 'dont', 'never', "doesn't", 'doesnt', "didn't", 'didnt', "can't", 'cant', 'cannot', "won't", 'wont', "shouldn't", 'shouldnt', "wouldn't", 'wouldnt', "isn't", 'isnt', "aren't", 'arent', "mustn't", 'mustnt', 'nicht', 'nie', 'niet', 'nunca', 'jamais', 'mai']);

/** Said around a request, not part of it: a reply of one of these and a keyword is the keyword alone. */
const COURTESY = new Set(['please', 'pls', 'plz', 'plse', 'thanks', 'thank', 'you', 'thx', 'ty', 'ok', 'okay', 'now', 'por', 'favor', 'porfavor', 'gracias', 'merci', 'svp', "s'il", 'vous', 'plait', 'bitte', 'danke', 'per', 'favore', 'grazie', 'obrigado', 'obrigada', 'alstublieft', 'aub', 'dank', 'u', 'je', 'wel']);

/**
 * Replies that ask to stop without the per se words, in the languages msgr reads them in:
 * English, Spanish, French, German, Italian, Portuguese and Dutch. `alone`: only when the reply is
 * that and courtesy words (the word means other things inside a sentence: Spanish "alto" is also
 * "tall"); else anywhere in the reply. Each is matched on the folded words, whole.
 */
const POSSIBLE: ReadonlyArray<{ readonly re: RegExp; readonly why: string; readonly alone?: boolean }> = [
  // English
  { re: /\bunsub\w*/, why: 'a stop word shortened' },
  { re: /\b(remove|delete|erase|take) (me|my (phone )?(number|phone|mobile|cell|details|info|information|data|contact|name))\b/, why: 'an informal request' },
  { re: /\b(take|get) (me|my number) (off|out)\b/, why: 'an informal request' },
  { re: /\boff (your|the|this|ur) (list|database|system|contacts)\b/, why: 'an informal request' },
  { re: /\bno (more|further) (messages?|msgs?|texts?|txts?|sms|texting|messaging|reminders?|notifications?|alerts?|spam|marketing|contact|of (this|these|your|that))\b/, why: 'an informal request' },
  { re: /^no more$/, why: 'an informal request', alone: true },
  { re: /\b(don't|dont|do not|never|pls don't|please don't) (ever )?(text|txt|message|msg|sms|contact|send|write|email|call|bother|spam|harass)\b/, why: 'an informal request' },
  { re: /\b(don't|dont|do not|no longer|never) (want|wish) (to (receive|get|hear|be contacted)|these|this|them|your|any|more|the (messages?|texts?))\b/, why: 'an informal request' },
  { re: /\b(leave me alone|go away|lose my number|wrong number|not interested|never signed up|didn't sign up|did not sign up|didnt sign up|opt me out|sign me out)\b/, why: 'an informal request' },
  { re: /\b(f+ off|fuck off|piss off|sod off|bugger off|get lost)\b/, why: 'an informal request' },
  { re: /\b(opted|opting|opts) out\b/, why: 'a stop word inflected' },
  { re: /^(no thanks|no thank you|enough|spam|block|blocked|remove|delete|opt me out)$/, why: 'an informal request', alone: true },
  // Spanish
  { re: /\bbaja\b/, why: 'a request in Spanish' },
  { re: /^(alto|basta|parar|pare|detener|no mas)$/, why: 'a request in Spanish', alone: true },
  { re: /\b(cancelar|desuscribir\w*|desinscribir\w*|no mas (mensajes|sms|textos))\b/, why: 'a request in Spanish' },
  { re: /\bno (me )?(envie|envies|envien|mandes|manden|escribas|escriban|contacten|contactes)\b|\bno quiero (recibir|mas|mensajes)\b/, why: 'a request in Spanish' },
  { re: /\b(eliminar|borrar|elimina|borra|eliminen|borren) (me|mi numero)\b|\b(eliminame|borrame)\b/, why: 'a request in Spanish' },
  // French
  { re: /\b(arret|arrete|arretez|arreter|desabonner|desabonnez|desabonnement|desinscrire|desinscrivez|desinscription)\b/, why: 'a request in French' },
  { re: /\b(ne plus recevoir|plus de (messages|sms|textos)|retirez moi|supprimez (moi|mon numero))\b/, why: 'a request in French' },
  // German
  { re: /\b(stopp|abmelden|abbestellen|austragen|kundigen|kuendigen|aufhoren|aufhoeren|hor auf|hoer auf|horen sie auf)\b/, why: 'a request in German' },
  { re: /\bkeine (sms|nachrichten|werbung)\b|\bnicht mehr (schreiben|senden|kontaktieren|anschreiben)\b|\b(losch|losche|loschen|loeschen) (mich|meine nummer)\b/, why: 'a request in German' },
  // Italian
  { re: /\b(cancellami|disiscrivi|disiscrivimi|disiscrizione|rimuovimi)\b|\brimuovi (il )?mio numero\b|\bnon (voglio|inviate|inviare|mandate|mandare|scrivete|scrivermi|contattatemi)\b|\bnon piu messaggi\b/, why: 'a request in Italian' },
  { re: /^(basta|cancellare|cancella)$/, why: 'a request in Italian', alone: true },
  // Portuguese
  { re: /\b(descadastrar|descadastre|descadastro)\b|\bnao quero\b|\bnao (envie|mande|enviem|mandem)\b/, why: 'a request in Portuguese' },
  { re: /^(parar|pare|sair|cancelar|remover|chega)$/, why: 'a request in Portuguese', alone: true },
  // Dutch
  { re: /\b(afmelden|uitschrijven|afmelding)\b|\bgeen (sms|berichten|berichtjes)( meer)?\b|\bniet meer (sturen|sms|smsen|berichten)\b/, why: 'a request in Dutch' },
];

/** A per se word misspelt or inflected: a possible opt-out (`stopp`, `stopped`, `cancelled`). */
function nearStopWord(word: string, stop: ReadonlyArray<readonly string[]>): string | undefined {
  for (const entry of stop) {
    if (entry.length !== 1) continue;
    const w = entry[0] as string;
    if (word === w) continue;
    // Digits for letters: st0p, unsubscr1be, cance1.
    if (/\d/.test(word) && /[a-z]/.test(word)) {
      const spelt = word.replace(/0/g, 'o').replace(/3/g, 'e').replace(/5/g, 's');
      if (spelt.replace(/1/g, 'i') === w || spelt.replace(/1/g, 'l') === w) return 'a stop word with digits for letters';
    }
    // A letter typed more than once: stopp, stooop, quitt, cancell.
    if (squeeze(word) === squeeze(w) && word.length > w.length) return 'a stop word misspelt';
    // Two letters swapped: sotp, qiut, cancle, unsubscirbe.
    if (word.length === w.length && word.length >= 4 && swapped(word, w)) return 'a stop word misspelt';
    // One letter off in a long word: unsubscibe, stopal (not in "cancel": "cancer" is one off).
    if (w.length >= 7 && Math.abs(word.length - w.length) <= 1 && oneEdit(word, w)) return 'a stop word misspelt';
    // Inflected: stops, stopped, stopping, ended, quitting, cancelled, revoked, unsubscribed.
    if (word.startsWith(w) && /^(s|es|d|ed|ped|ted|led|ing|ping|ting|ling|ation|lation)$/.test(word.slice(w.length))) return 'a stop word inflected';
    if (w.endsWith('e') && word.startsWith(w.slice(0, -1)) && /^(ing|ation)$/.test(word.slice(w.length - 1))) return 'a stop word inflected';
  }
  return undefined;
}

function squeeze(w: string): string {
  return w.replace(/(.)\1+/g, '$1');
}

function swapped(a: string, b: string): boolean {
  const diff: number[] = [];
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) diff.push(i);
  const [i, j] = diff;
  return diff.length === 2 && i !== undefined && j === i + 1 && a[i] === b[j] && a[j] === b[i];
}

/** Whether a becomes b by one letter changed, added or removed. */
function oneEdit(a: string, b: string): boolean {
  if (a.length === b.length) {
    let d = 0;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) d++;
    return d === 1;
  }
  const [s, l] = a.length < b.length ? [a, b] : [b, a];
  let i = 0;
  while (i < s.length && s[i] === l[i]) i++;
  return s.slice(i) === l.slice(i + 1);
}

/**
 * What a reply asks: an opt-out per se, a possible one, an opt-in, or nothing (undefined). Pure;
 * the verdict's words are what the store records as the evidence.
 */
export function classifyReply(text: string, words: Keywords): ReplyVerdict | undefined {
  const toks = tokens(text);
  if (toks.length === 0) return text.includes('🛑') ? { kind: 'possible', matched: '🛑', why: 'a stop sign' } : undefined;
  let negated: string | undefined;
  for (let i = 0; i < toks.length; i++) {
    for (const entry of words.stop) {
      if (!entry.every((w, k) => toks[i + k]?.word === w && toks[i + k]?.clause === toks[i]?.clause)) continue;
      const word = entry.join(' ');
      // "don't stop", "do not cancel", "never stop": the word, but not asking for it.
      const before = [toks[i - 1], toks[i - 2]].filter((t) => t !== undefined && t.clause === toks[i]?.clause).map((t) => t?.word ?? '');
      const neg = before.find((b) => NEGATIONS.has(b));
      if (neg !== undefined) {
        negated ??= `${toks.slice(Math.max(0, i - 2), i + entry.length).filter((t) => t.clause === toks[i]?.clause).map((t) => t.word).join(' ')}`;
        continue;
      }
      return { kind: 'stop', word };
    }
  }
  if (negated !== undefined) return { kind: 'possible', matched: negated, why: 'a stop word negated' };
  // A stop word spelt out letter by letter: "S T O P", "s.t.o.p".
  if (toks.length >= 3 && toks.every((t) => t.word.length === 1)) {
    const spelt = toks.map((t) => t.word).join('');
    if (words.stop.some((e) => e.join('') === spelt) || nearStopWord(spelt, words.stop) !== undefined) return { kind: 'possible', matched: toks.map((t) => t.word).join(' '), why: 'a stop word spelt out' };
  }
  const bare = toks.filter((t) => !COURTESY.has(t.word)).map((t) => t.word);
  const whole = bare.join('');
  if (bare.length > 0 && words.start.has(whole)) return { kind: 'start', word: bare.join(' ') };
  for (const t of toks) {
    const why = nearStopWord(t.word, words.stop);
    if (why !== undefined) return { kind: 'possible', matched: t.word, why };
  }
  const joined = toks.map((t) => t.word).join(' ');
  const alone = bare.join(' ');
  for (const p of POSSIBLE) {
    // A whole-reply pattern may hold courtesy words itself ("no thanks"): tried with them too.
    const m = p.alone === true ? (p.re.exec(alone) ?? p.re.exec(joined)) : p.re.exec(joined);
    if (m !== null) return { kind: 'possible', matched: m[0], why: p.why };
  }
  if (text.includes('🛑')) return { kind: 'possible', matched: '🛑', why: 'a stop sign' };
  return undefined;
}
