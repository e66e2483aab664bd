// Characters that show as nothing. Spreadsheets, web pages and chats carry zero-width ones into
// cells and headers, where they look like nothing (or like a plain space) but would be sent: a
// cell of them is empty, and a column name is found without them (README "Personalised messages").
const ZERO_WIDTH_CHARS = '\\u200b-\\u200d\\u2060\\ufeff';

/** Zero-width space, non-joiner, joiner, word joiner and BOM, every one (for replace). */
export const ZERO_WIDTH = new RegExp(`[${ZERO_WIDTH_CHARS}]`, 'g');

const BLANK = new RegExp(`^[\\s${ZERO_WIDTH_CHARS}]*$`);

/** Whether text shows nothing: spaces (any Unicode space) and zero-width characters only. */
export function isBlank(text: string): boolean {
  return BLANK.test(text);
}

const EDGES = new RegExp(`^[\\s${ZERO_WIDTH_CHARS}]+|[\\s${ZERO_WIDTH_CHARS}]+$`, 'g');

function zeroWidth(code: number): boolean {
  return (code >= 0x200b && code <= 0x200d) || code === 0x2060 || code === 0xfeff;
}

/**
 * A cell's value without what shows nothing at either end: `Ann\u200b` pasted from a web page
 * would make every message with it UCS-2 (half the characters per part) for nothing. Inside a
 * value they stay (a joiner between two emoji is part of what shows).
 */
export function trimInvisible(text: string): string {
  const t = text.trim();
  if (t === '' || (!zeroWidth(t.charCodeAt(0)) && !zeroWidth(t.charCodeAt(t.length - 1)))) return t;
  return t.replace(EDGES, '');
}
