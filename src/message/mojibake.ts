// Text mangled by a spreadsheet round trip: UTF-8 read as Windows-1252 (or Latin-1) and saved
// again, so `Zoë` became `ZoÃ«` and `’` became `â€™` (docs/campaign-input.md: "Input"). Sent as it is, it reads
// wrong and makes every such message UCS-2, at twice the parts.
//
// Only what is unambiguous is repaired, after ftfy's rules (python-ftfy: fixes.fix_encoding, the
// badness heuristic and its UTF8_DETECTOR_RE): the text must hold a sequence that looks like
// UTF-8 read as Windows-1252 (a lead Â-ô, then the continuation characters it needs); the whole
// text, written back as Windows-1252 bytes, must be valid UTF-8 (one accented letter that was
// never mangled, `São` or `Château`, makes it invalid, so real words are left alone); and what
// comes out must be ordinary text (no control, private-use, unassigned, IPA or combining
// characters, and no letter of another script beside a Latin one: `CAFÉ—` would otherwise read
// as the IPA `CAFɗ`). A text mangled twice (`ZoÃƒÂ«`) is repaired twice.
import { CP1252 } from './text-file.js';
import { quoted } from '../output/sanitize.js';

/** A lead byte of a multi-byte UTF-8 sequence as Windows-1252 shows it, then a continuation byte. */
const LOOKS_MANGLED = /[\u00c2-\u00f4][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc\u2013\u2014\u2018-\u201a\u201c-\u201e\u2020-\u2022\u2026\u2030\u2039\u203a\u20ac\u2122]/;

/** Characters back to the Windows-1252 (or Latin-1) byte they were read from. */
const BYTE_OF = new Map<number, number>();
for (let b = 0x80; b <= 0xff; b++) BYTE_OF.set(b, b);
for (let i = 0; i < CP1252.length; i++) BYTE_OF.set(CP1252.charCodeAt(i), 0x80 + i);

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Where what a repair makes may fall: letters and signs of running text, emoji (see above). */
const ORDINARY: ReadonlyArray<readonly [number, number]> = [
  [0x00a0, 0x024f], // Latin-1 Supplement, Latin Extended-A and -B
  [0x0370, 0x03ff], // Greek
  [0x0400, 0x04ff], // Cyrillic
  [0x0590, 0x05ff], // Hebrew
  [0x0600, 0x06ff], // Arabic
  [0x1e00, 0x1eff], // Latin Extended Additional (Vietnamese)
  [0x2000, 0x206f], // General Punctuation (’ “ ” – — … and the joiners emoji use)
  [0x20a0, 0x20cf], // Currency Symbols (€)
  [0x2100, 0x214f], // Letterlike Symbols (™ №)
  [0x2190, 0x21ff], // Arrows
  [0x2600, 0x27bf], // Miscellaneous Symbols, Dingbats
  [0x3000, 0x9fff], // CJK punctuation, kana, ideographs
  [0xac00, 0xd7af], // Hangul
  [0xfe0f, 0xfe0f], // emoji presentation selector
  [0x1f000, 0x1faff], // emoji
];

function ordinary(cp: number): boolean {
  if (cp < 0x80) return cp >= 0x20 || cp === 0x09 || cp === 0x0a || cp === 0x0d;
  for (const [from, to] of ORDINARY) if (cp >= from && cp <= to) return true;
  return false;
}

const LATIN = /\p{Script=Latin}/u;
const LETTER = /\p{L}/u;

/** Ordinary text (above), with no letter of another script right beside a Latin letter. */
function plausible(text: string): boolean {
  let before: 'latin' | 'other' | undefined;
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    if (!ordinary(cp) || /\p{Cn}|\p{Co}|\p{M}/u.test(ch)) return false;
    const kind = LETTER.test(ch) ? (LATIN.test(ch) ? 'latin' : 'other') : undefined;
    if (kind !== undefined && before !== undefined && kind !== before) return false;
    before = kind;
  }
  return true;
}

/** One round: the text written back as Windows-1252 and read as UTF-8, or undefined. */
function undoOnce(text: string): string | undefined {
  if (!LOOKS_MANGLED.test(text)) return undefined;
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const b = c < 0x80 ? c : BYTE_OF.get(c);
    if (b === undefined) return undefined;
    bytes[i] = b;
  }
  let out: string;
  try {
    out = utf8.decode(bytes);
  } catch {
    return undefined;
  }
  return plausible(out) ? out : undefined;
}

/**
 * The text repaired when it is unambiguously UTF-8 read as Windows-1252 and saved again (up to
 * three times over); undefined when it is not (most text: one regular expression test).
 */
export function repairMojibake(text: string): string | undefined {
  let repaired = undoOnce(text);
  if (repaired === undefined) return undefined;
  for (let i = 0; i < 2; i++) {
    const again = undoOnce(repaired);
    if (again === undefined) break;
    repaired = again;
  }
  return repaired;
}

export const MOJIBAKE_FLAG = '--fix-mojibake';

/** Why a mangled text is refused, and what it would be repaired. */
export function mojibakeReason(text: string, repaired: string): string {
  return `${quoted(shorten(text))} looks like UTF-8 text a spreadsheet read as Windows-1252 and saved again; repaired it reads ${quoted(shorten(repaired))}`;
}

export const MOJIBAKE_HINT = `Add ${MOJIBAKE_FLAG} to send such text repaired, as shown; or open the original file in the spreadsheet as UTF-8 (Excel: Data > From Text/CSV, File origin "65001: Unicode (UTF-8)") and export it again as "CSV UTF-8".`;

/** Long texts shown around their first mangled sequence. */
function shorten(text: string): string {
  if (text.length <= 60) return text;
  const at = Math.max(0, text.search(LOOKS_MANGLED) - 20);
  return `${at > 0 ? '…' : ''}${text.slice(at, at + 50)}…`;
}
