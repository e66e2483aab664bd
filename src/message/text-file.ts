// The one reader of a message text file (`--text-file` in send and send-bulk; `-` reads stdin):
// the same encodings as the CSV reader (docs/campaign-input.md: "Input"). A UTF-8 byte-order mark is dropped
// (sent, it would be an invisible character that forces UCS-2), UTF-16 is read by its mark,
// text that is not valid UTF-8 is refused rather than sent with U+FFFD in it, and the line
// breaks at its end are dropped, with any blank lines there (docs/sending.md: "Text from a file").
// An editor adds one, a blank line is easily left: each would be sent as a character nobody sees,
// and could push a message into a second part.
import { resolve } from 'node:path';
import type { Context } from '../context.js';
import { fileHint, fileProblem, UsageError } from '../errors.js';

export type FileEncoding = 'utf8' | 'latin1' | 'utf16le' | 'utf16be';

const ENCODING_NAMES: Record<string, FileEncoding> = {
  utf8: 'utf8',
  'utf-8': 'utf8',
  latin1: 'latin1',
  'latin-1': 'latin1',
  'iso-8859-1': 'latin1',
  iso88591: 'latin1',
  'windows-1252': 'latin1',
  cp1252: 'latin1',
  utf16le: 'utf16le',
  'utf-16le': 'utf16le',
  utf16be: 'utf16be',
  'utf-16be': 'utf16be',
};

export function parseEncoding(input: string): FileEncoding | undefined {
  return ENCODING_NAMES[input.trim().toLowerCase()];
}

/** The encoding a byte-order mark at the start says, and its length; undefined without one. */
export function detectBom(buf: Uint8Array): { encoding: FileEncoding; bytes: number } | undefined {
  if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) return { encoding: 'utf8', bytes: 3 };
  if (buf[0] === 0xff && buf[1] === 0xfe) return { encoding: 'utf16le', bytes: 2 };
  if (buf[0] === 0xfe && buf[1] === 0xff) return { encoding: 'utf16be', bytes: 2 };
  return undefined;
}

/** What to do about a file that is not UTF-8: the same words for a CSV file and a text file. */
export function notUtf8Hint(flag: string, crLineEnds = false): string {
  // Excel for Mac's "CSV (Macintosh)" ends lines in CR alone and writes Mac Roman, where latin1
  // would turn é into Ž: that file is saved again, not read another way.
  if (crLineEnds) return `Its lines end in CR alone, as in Excel for Mac's "CSV (Macintosh)", whose text is Mac Roman: msgr does not read that (${flag} latin1 would change its accented letters). In Excel, save it as "CSV UTF-8 (Comma delimited)" and use that file.`;
  return `The file is probably Latin-1 or Windows-1252: give ${flag} latin1, or save it as UTF-8.`;
}

// Windows-1252 at 0x80-0x9F (where Latin-1 has control characters): what Windows editors write
// for € ‚ „ … ‘ ’ “ ” – — ™. Node 20's TextDecoder decodes these as Latin-1.
/** Windows-1252's characters for the bytes 0x80-0x9F (the five it leaves undefined: as Latin-1 reads them). */
export const CP1252 = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';

const C1 = /[\u0080-\u009f]/g;

/**
 * Text decoded as Latin-1 (Buffer's 'latin1') read as Windows-1252: `latin1` in --encoding and
 * --text-encoding means what spreadsheets and editors on Windows write.
 */
export function windows1252(latin1: string): string {
  return latin1.replace(C1, (c) => CP1252[c.charCodeAt(0) - 0x80] as string);
}

function decodeLatin1(buf: Buffer): string {
  return windows1252(buf.toString('latin1'));
}

export interface TextFileOptions {
  /** The flag that names the file (in messages). */
  readonly flag: string;
  /** The encoding of a file without a byte-order mark (default UTF-8), and its flag. */
  readonly encoding?: FileEncoding | undefined;
  readonly encodingFlag: string;
}

/** Decodes a text file's bytes; throws a UsageError naming the flag, the file and the line. */
export function decodeText(bytes: Buffer, label: string, o: TextFileOptions): string {
  const bom = detectBom(bytes);
  const encoding = bom?.encoding ?? o.encoding ?? 'utf8';
  const body = bytes.subarray(bom?.bytes ?? 0);
  let text: string;
  if (encoding === 'utf8') {
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
    } catch {
      const line = firstBadUtf8Line(body);
      throw new UsageError(`${o.flag}: ${label} is not valid UTF-8 text (line ${line}); nothing was sent`, { hint: notUtf8Hint(o.encodingFlag) });
    }
  } else if (encoding === 'latin1') {
    text = decodeLatin1(body);
  } else {
    if (body.length % 2 !== 0) throw new UsageError(`${o.flag}: ${label} is not ${encoding === 'utf16le' ? 'UTF-16LE' : 'UTF-16BE'} text (an odd number of bytes); nothing was sent`);
    text = new TextDecoder(encoding === 'utf16le' ? 'utf-16le' : 'utf-16be', { ignoreBOM: true }).decode(body);
  }
  // NULs in "UTF-8" are UTF-16 without its byte-order mark: sent, they would be garbage.
  const nul = text.indexOf('\0');
  if (nul !== -1) {
    throw new UsageError(`${o.flag}: ${label} has NUL characters (line ${text.slice(0, nul).split('\n').length}); nothing was sent`, {
      hint: `Is it UTF-16 without a byte-order mark? Give ${o.encodingFlag} utf16le (or utf16be), or save it as UTF-8.`,
    });
  }
  return phoneText(text).replace(TRAILING_BREAKS, '');
}

/** The line breaks at a text's end, and the blank lines (spaces or tabs alone) among them. */
const TRAILING_BREAKS = /(?:\n[ \t]*)+$/;

/**
 * Line ends as a phone shows them: a Windows editor's CR LF (or a cell's, in a CSV whose line
 * ends were converted) would cost a character per line, and a lone CR (an old Mac's line end,
 * kept inside a quoted cell) is a line break to the reader but not to every phone. docs/personalised.md:
 * "Personalised messages".
 */
export function phoneLineEnds(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

/** Beyond Latin-1: where a text can have decomposed letters (or other characters NFC changes). */
const BEYOND_LATIN1 = /[^\u0000-\u00ff]/;

/**
 * A message's text as it is sent: phone line ends, and letters composed (Unicode NFC). macOS and
 * some web forms write "é" as "e" and a combining accent, which shows the same but has no GSM-7
 * form, so one such letter made a message UCS-2: up to three times the parts. NFC is the same
 * text by Unicode's definition (docs/sending.md: "How a text travels as SMS"); it is seldom longer, but can be: the
 * few letters Unicode keeps decomposed (Devanagari "\u0958", Hebrew "\ufb1d") become two
 * characters, so parts are counted on what this returns, never on the text as given.
 */
export function phoneText(text: string): string {
  const t = phoneLineEnds(text);
  return BEYOND_LATIN1.test(t) ? t.normalize('NFC') : t;
}

function firstBadUtf8Line(body: Buffer): number {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let line = 1;
  let start = 0;
  for (let nl = body.indexOf(0x0a); ; nl = body.indexOf(0x0a, start)) {
    const end = nl === -1 ? body.length : nl;
    try {
      decoder.decode(body.subarray(start, end));
    } catch {
      return line;
    }
    if (nl === -1) return line;
    line++;
    start = nl + 1;
  }
}

/** Reads the text file a flag names (`-`: stdin), decoded as decodeText() says. */
export async function readTextFile(ctx: Pick<Context, 'cwd' | 'stdin'>, path: string, o: TextFileOptions): Promise<string> {
  let bytes: Buffer;
  if (path === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
    bytes = Buffer.concat(chunks);
  } else {
    try {
      // Loaded here, not at the top: a send without --text-file never needs node:fs/promises.
      const { readFile } = await import('node:fs/promises');
      bytes = await readFile(resolve(ctx.cwd, path));
    } catch (err) {
      throw new UsageError(`${o.flag}: cannot read ${path} (${fileProblem(err)})`, { hint: fileHint(err) });
    }
  }
  return decodeText(bytes, path === '-' ? 'stdin' : path, o);
}
