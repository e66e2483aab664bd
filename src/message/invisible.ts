// Characters that show as nothing. Spreadsheets, web pages and chats carry zero-width ones into
// cells and headers, where they look like nothing (or like a plain space) but would be sent: a
// cell of them is empty, and a column name is found without them (docs/personalised.md: "Personalised messages").
const ZERO_WIDTH_CHARS = '\\u200b-\\u200d\\u2060\\ufeff';

/** Zero-width space, non-joiner, joiner, word joiner and BOM, every one (for replace). */
export const ZERO_WIDTH = new RegExp(`[${ZERO_WIDTH_CHARS}]`, 'g');

const BLANK = new RegExp(`^[\\s${ZERO_WIDTH_CHARS}]*$`);

/** Whether text shows nothing: spaces (any Unicode space) and zero-width characters only. */
export function isBlank(text: string): boolean {
  return BLANK.test(text);
}

const EDGES = new RegExp(`^[\\s${ZERO_WIDTH_CHARS}]+|[\\s${ZERO_WIDTH_CHARS}]+$`, 'g');

/** One zero-width character (not global, so `test` keeps no state). */
const ONE_ZERO_WIDTH = new RegExp(`^[${ZERO_WIDTH_CHARS}]$`);

/**
 * A cell's value without what shows nothing at either end: `Ann\u200b` pasted from a web page
 * would make every message with it UCS-2 (half the characters per part) for nothing. Inside a
 * value they stay (a joiner between two emoji is part of what shows).
 */
export function trimInvisible(text: string): string {
  const t = text.trim();
  if (t === '' || (!ONE_ZERO_WIDTH.test(t.charAt(0)) && !ONE_ZERO_WIDTH.test(t.charAt(t.length - 1)))) return t;
  return t.replace(EDGES, '');
}
