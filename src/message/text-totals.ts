// What the messages of a run will cost, counted on the texts that will really be sent (docs/personalised.md:
// "Personalised messages"): how many messages, their SMS parts in total, the largest one and where
// it is, how many are UCS-2 and which characters force that most often. `send --dry-run` prints
// the same line for its one message.
import { analyseText, describeChar, type TextAnalysis } from './segments.js';
import { formatCount } from '../output/count.js';

export interface TextTotalsJson {
  readonly messages: number;
  readonly parts: number;
  readonly largest: { readonly parts: number; readonly line: number | null; readonly encoding: string; readonly units: number } | null;
  readonly ucs2: number;
  /** Characters forcing UCS-2, most messages first: `’ (U+2019)` and in how many messages. */
  readonly forcing: ReadonlyArray<{ readonly character: string; readonly messages: number }>;
}

export class TextTotals {
  messages = 0;
  parts = 0;
  ucs2 = 0;
  largest: { parts: number; line: number | undefined; encoding: string; units: number } | undefined;
  /** Character → messages it forced into UCS-2. */
  readonly forcing = new Map<string, number>();

  /** `count` messages of this text (one shared text counts once for all its recipients). */
  add(a: TextAnalysis, line: number | undefined, count = 1): void {
    if (count <= 0) return;
    this.messages += count;
    this.parts += a.parts * count;
    if (a.encoding === 'UCS-2') {
      this.ucs2 += count;
      for (const ch of a.forcing) this.forcing.set(ch, (this.forcing.get(ch) ?? 0) + count);
    }
    // The first of the largest wins, so the line named is the earliest.
    if (this.largest === undefined || a.parts > this.largest.parts) this.largest = { parts: a.parts, line, encoding: a.encoding, units: a.units };
  }

  toJSON(): TextTotalsJson {
    return {
      messages: this.messages,
      parts: this.parts,
      largest: this.largest === undefined ? null : { parts: this.largest.parts, line: this.largest.line ?? null, encoding: this.largest.encoding, units: this.largest.units },
      ucs2: this.ucs2,
      forcing: this.#topForcing(Infinity).map(([ch, n]) => ({ character: describeChar(ch), messages: n })),
    };
  }

  #topForcing(n: number): Array<[string, number]> {
    return [...this.forcing.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
  }

  /** One line for people: `parts: 1,000 messages, 1,340 SMS parts; largest 3 parts (line 17); …`. */
  describe(): string {
    const n = formatCount;
    const plural = (v: number, word: string): string => `${n(v)} ${word}${v === 1 ? '' : 's'}`;
    const head = `parts: ${plural(this.messages, 'message')}, ${plural(this.parts, 'SMS part')}`;
    const l = this.largest;
    if (l === undefined) return head;
    if (this.messages === 1) {
      const forced = this.forcing.size > 0 ? `, forced by ${this.#topForcing(8).map(([ch]) => describeChar(ch)).join(', ')}` : '';
      return `${head} (${l.encoding}${forced}; ${plural(l.units, l.encoding === 'GSM-7' ? 'septet' : 'character')})`;
    }
    const largest = `largest ${plural(l.parts, 'part')}${l.line !== undefined ? ` (line ${l.line})` : ''}`;
    const top = this.#topForcing(3);
    const ucs2 =
      this.ucs2 === 0
        ? 'all GSM-7'
        : `${n(this.ucs2)} UCS-2, forced most often by ${top.map(([ch, c]) => `${describeChar(ch)} in ${n(c)}`).join(', ')}${this.forcing.size > top.length ? ', …' : ''}`;
    return `${head}; ${largest}; ${ucs2}`;
  }
}

/** The totals of one text sent as one message. */
export function totalsOf(text: string): TextTotals {
  const t = new TextTotals();
  t.add(analyseText(text), undefined);
  return t;
}
