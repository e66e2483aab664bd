// SMS encoding and parts of a message text: `msgr segments` and send-bulk's preflight totals use
// this one implementation (docs/sending.md: "How a text travels as SMS"). GSM 03.38: a single message holds 160
// septets, each part of a concatenated one 153 (the rest is the UDH); the extension table's
// characters take an escape plus the character, 2 septets, and are never split across parts.
// UCS-2: 70 UTF-16 code units, 67 per part; a surrogate pair is never split.

import { GSM_SAFE } from '../lookalikes/gsm-safe.js';

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
    // One part needs no splitting (the common case, and the preflight asks for every row's).
    return { encoding: 'GSM-7', units: septets, parts: septets <= GSM_SINGLE ? 1 : splitGsm(text).length, forcing };
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
  // Controls, spaces and the invisible format characters (a zero-width joiner) by code alone.
  const visible = /^[\p{Cc}\p{Cf}\p{Z}\s]$/u.test(ch) ? '' : `${ch} `;
  return `${visible}(U+${hex})`;
}

export interface SegmentPart {
  /** 1-based. */
  readonly index: number;
  /** First and last character of the part, 1-based, counted in characters (code points). */
  readonly start: number;
  readonly end: number;
  /** Septets (GSM-7) or UTF-16 code units (UCS-2) the part takes. */
  readonly units: number;
  readonly text: string;
}

export interface ForcingCharacter {
  readonly char: string;
  /** `U+2019`. */
  readonly codePoint: string;
  /** Times it appears in the text. */
  readonly count: number;
  /** A GSM-7 replacement that looks the same, `''` for an invisible character best deleted, or null. */
  readonly lookalike: string | null;
}

export interface Segments {
  readonly encoding: SmsEncoding;
  /** Septets (GSM-7) or UTF-16 code units (UCS-2). */
  readonly units: number;
  /** Characters (code points). */
  readonly characters: number;
  /** Units one part holds: a single message (160 / 70) or each part of a longer one (153 / 67). */
  readonly perPart: number;
  readonly parts: readonly SegmentPart[];
  readonly forcing: readonly ForcingCharacter[];
  /**
   * When every character forcing UCS-2 has a look-alike: the text with them replaced, and the
   * parts it would take in GSM-7.
   */
  readonly gsmAlternative: { readonly text: string; readonly parts: number } | null;
}

// Characters people paste from word processors and phones, with the GSM-7 text that looks the
// same: the punctuation and spaces --gsm-safe replaces (lookalikes/gsm-safe.ts), and, suggested
// here only, a few more. Only characters outside GSM 03.38 are listed; lower-case accented letters
// that GSM-7 has only in upper case (ç → Ç) keep their case elsewhere by mapping to the bare letter.
const LOOKALIKES: Readonly<Record<string, string>> = {
  ...GSM_SAFE,
  '\u00b4': "'", '`': "'",
  '\u2022': '*', '\u00b7': '.',
  '\t': ' ',
  '\u200b': '', '\u200c': '', '\u200d': '', '\u2060': '', '\ufeff': '',
  '\u00e1': 'a', '\u00e2': 'a', '\u00e3': 'a', '\u0101': 'a', '\u00c1': 'A', '\u00c2': 'A', '\u00c0': 'A', '\u00c3': 'A',
  '\u00e7': '\u00c7', '\u00ea': 'e', '\u00eb': 'e', '\u0113': 'e', '\u00ca': 'E', '\u00c8': 'E', '\u00cb': 'E',
  '\u00ed': 'i', '\u00ee': 'i', '\u00ef': 'i', '\u00cd': 'I', '\u00ce': 'I', '\u00cf': 'I', '\u00cc': 'I',
  '\u00f3': 'o', '\u00f4': 'o', '\u00f5': 'o', '\u00d3': 'O', '\u00d4': 'O', '\u00d2': 'O', '\u00d5': 'O',
  '\u00fa': 'u', '\u00fb': 'u', '\u00da': 'U', '\u00db': 'U', '\u00d9': 'U',
  '\u00fd': 'y', '\u00ff': 'y', '\u00dd': 'Y',
};

/** The GSM-7 text that looks like `ch`, `''` when it is invisible, or null when there is none. */
export function gsmLookalike(ch: string): string | null {
  return Object.hasOwn(LOOKALIKES, ch) ? (LOOKALIKES[ch] ?? null) : null;
}

/** The full picture of one text: encoding, length, each part and where it ends, what forces UCS-2. */
export function segmentText(text: string): Segments {
  const analysis = analyseText(text);
  const gsm = analysis.encoding === 'GSM-7';
  const pieces = gsm ? splitGsm(text) : splitUcs2(text);
  const partUnits = (part: string): number => {
    if (!gsm) return part.length;
    let n = 0;
    for (const ch of part) n += gsmSeptets(ch) || 1;
    return n;
  };
  let position = 0;
  const parts = pieces
    .filter((p) => p !== '')
    .map((part, i) => {
      const characters = [...part].length;
      const start = position + 1;
      position += characters;
      return { index: i + 1, start, end: position, units: partUnits(part), text: part };
    });
  const counts = new Map<string, number>();
  for (const ch of text) if (gsmSeptets(ch) === 0) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  const forcing = analysis.forcing.map((ch) => ({ char: ch, codePoint: codePoint(ch), count: counts.get(ch) ?? 0, lookalike: gsmLookalike(ch) }));
  let gsmAlternative: Segments['gsmAlternative'] = null;
  if (forcing.length > 0 && forcing.every((f) => f.lookalike !== null)) {
    let replaced = '';
    for (const ch of text) replaced += gsmSeptets(ch) === 0 ? (gsmLookalike(ch) ?? ch) : ch;
    gsmAlternative = { text: replaced, parts: analyseText(replaced).parts };
  }
  const single = gsm ? GSM_SINGLE : UCS2_SINGLE;
  return {
    encoding: analysis.encoding,
    units: analysis.units,
    characters: position,
    perPart: parts.length > 1 ? (gsm ? GSM_PART : UCS2_PART) : single,
    parts,
    forcing,
    gsmAlternative,
  };
}

function codePoint(ch: string): string {
  return `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}
