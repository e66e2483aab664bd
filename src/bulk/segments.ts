// SMS encoding and parts for the preflight totals (issue: "for text messages the encoding
// (GSM-7 or UCS-2, naming the characters that force UCS-2) and SMS parts"). GSM 03.38: a single
// message holds 160 septets, each part of a concatenated one 153 (the rest is the UDH); the
// extension table's characters take an escape plus the character, 2 septets, and are never split
// across parts. UCS-2: 70 UTF-16 code units, 67 per part; a surrogate pair is never split.

export type SmsEncoding = 'GSM-7' | 'UCS-2';

export interface TextAnalysis {
  readonly encoding: SmsEncoding;
  /** Septets (GSM-7) or UTF-16 code units (UCS-2). */
  readonly units: number;
  /** SMS parts one message takes. */
  readonly parts: number;
  /** The distinct characters that force UCS-2, in order of first appearance. */
  readonly forcing: readonly string[];
}

const GSM_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENSION = '\f^{}\\[]~|€';

const BASIC = new Set(GSM_BASIC);
const EXTENSION = new Set(GSM_EXTENSION);

export const GSM_SINGLE = 160;
export const GSM_PART = 153;
export const UCS2_SINGLE = 70;
export const UCS2_PART = 67;

/** Septets a character takes in GSM-7, or 0 when it is not in the GSM 03.38 alphabet. */
export function gsmSeptets(ch: string): 0 | 1 | 2 {
  if (BASIC.has(ch)) return 1;
  if (EXTENSION.has(ch)) return 2;
  return 0;
}

export function analyseText(text: string): TextAnalysis {
  const forcing: string[] = [];
  const seen = new Set<string>();
  let septets = 0;
  for (const ch of text) {
    const n = gsmSeptets(ch);
    if (n === 0) {
      if (!seen.has(ch)) {
        seen.add(ch);
        forcing.push(ch);
      }
    } else {
      septets += n;
    }
  }
  if (forcing.length === 0) {
    return { encoding: 'GSM-7', units: septets, parts: splitGsm(text).length, forcing };
  }
  return { encoding: 'UCS-2', units: text.length, parts: splitUcs2(text).length, forcing };
}

/** The parts of a GSM-7 text; an extension character (2 septets) is never split. */
export function splitGsm(text: string): string[] {
  const chars = [...text];
  let total = 0;
  for (const ch of chars) total += gsmSeptets(ch) || 1;
  if (total <= GSM_SINGLE) return [text];
  const parts: string[] = [];
  let current = '';
  let used = 0;
  for (const ch of chars) {
    const n = gsmSeptets(ch) || 1;
    if (used + n > GSM_PART) {
      parts.push(current);
      current = '';
      used = 0;
    }
    current += ch;
    used += n;
  }
  if (current !== '') parts.push(current);
  return parts;
}

/** The parts of a UCS-2 text in UTF-16 code units; a surrogate pair is never split. */
export function splitUcs2(text: string): string[] {
  if (text.length <= UCS2_SINGLE) return [text];
  const parts: string[] = [];
  let current = '';
  for (const ch of text) {
    // `for...of` walks code points, so a pair arrives whole (length 2).
    if (current.length + ch.length > UCS2_PART) {
      parts.push(current);
      current = '';
    }
    current += ch;
  }
  if (current !== '') parts.push(current);
  return parts;
}

/** `’ (U+2019)` for messages that name the characters forcing UCS-2. */
export function describeChar(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  const hex = cp.toString(16).toUpperCase().padStart(4, '0');
  const visible = cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || /\s/u.test(ch) ? '' : `${ch} `;
  return `${visible}(U+${hex})`;
}
