// --gsm-safe: the punctuation and spaces word processors and phones put in a text (curly quotes,
// long dashes, an ellipsis, a no-break space), each replaced with the GSM-7 character that looks
// the same, so a message that is GSM-7 but for them is sent as GSM-7: 160 characters a part
// instead of 70. A fixed list, the one docs/cost-and-canary.md shows: letters (é, ç), emoji and
// every other character are left as they are, so the flag never changes a word. `msgr segments`
// suggests these and a few more (message/segments.ts).

/** Each look-alike and the GSM-7 text that replaces it; docs/cost-and-canary.md lists them. */
export const GSM_SAFE: Readonly<Record<string, string>> = {
  // apostrophes and single quotes
  '\u2018': "'", '\u2019': "'", '\u201a': "'", '\u201b': "'", '\u2032': "'", '\u2039': "'", '\u203a': "'",
  // double quotes
  '\u201c': '"', '\u201d': '"', '\u201e': '"', '\u201f': '"', '\u2033': '"', '\u00ab': '"', '\u00bb': '"',
  // hyphens, dashes and the minus sign
  '\u2010': '-', '\u2011': '-', '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u2015': '-', '\u2212': '-',
  // the ellipsis as one character
  '\u2026': '...',
  // no-break, en, em, thin and narrow no-break spaces
  '\u00a0': ' ', '\u2002': ' ', '\u2003': ' ', '\u2009': ' ', '\u202f': ' ',
};

const PATTERN = new RegExp(`[${Object.keys(GSM_SAFE).join('')}]`, 'gu');

export interface GsmSafeText {
  readonly text: string;
  /** Characters replaced. */
  readonly replaced: number;
}

/** The text with every look-alike of GSM_SAFE replaced; the same string when it has none. */
export function gsmSafe(text: string): GsmSafeText {
  let replaced = 0;
  const out = text.replace(PATTERN, (ch) => {
    replaced++;
    return GSM_SAFE[ch] ?? ch;
  });
  return { text: replaced === 0 ? text : out, replaced };
}

/** Whether a character is one --gsm-safe replaces. */
export function isGsmSafeLookalike(ch: string): boolean {
  return Object.hasOwn(GSM_SAFE, ch);
}
