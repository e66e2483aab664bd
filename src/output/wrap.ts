// Lines for people fitted to the terminal (docs/design.md: "Choices"): the one function that wraps
// what msgr writes for people, and the widths it wraps at. Words are never cut, so a path or a
// URL longer than the line stays whole; a command (`msgr …` after a colon or a backtick, or a
// help example) breaks only between its shell words, each break ending in ` \`, so that a
// command copied from the terminal runs as printed.
import type { OutStream } from '../context.js';

/** The width when a terminal does not say its own. */
export const DEFAULT_COLUMNS = 80;
/** Narrower than this, lines are wrapped as if this wide: one word a line helps nobody. */
const NARROWEST = 20;

/**
 * Whether the command being run asked for --json: then its lines on stderr are for a script's log
 * as well, and are never wrapped, on a terminal either (docs/contract.md: "Streams"). Set once by
 * main.ts from the options the command parsed.
 */
let forScripts = false;
export function wrapForScripts(json: boolean): void {
  forScripts = json;
}

/**
 * The width of a stream's lines for people: its terminal's, or 80 when the terminal does not
 * say; undefined off a terminal (a pipe, a file, a log) and under --json, where lines are never
 * wrapped: scripts and `grep` read whole lines (docs/contract.md: "Streams").
 */
export function lineWidth(stream: Pick<OutStream, 'isTTY' | 'columns'>): number | undefined {
  if (stream.isTTY !== true || forScripts) return undefined;
  const c = stream.columns;
  return c !== undefined && c > 0 ? c : DEFAULT_COLUMNS;
}

/** A help page's width: the terminal's, else 80 (a page read in a pager, or a man page). */
export function pageWidth(stream: Pick<OutStream, 'isTTY' | 'columns'>): number {
  return lineWidth(stream) ?? DEFAULT_COLUMNS;
}

export interface WrapOptions {
  /**
   * How much deeper than the line's own indentation its wrapped part starts: 2 by default, so a
   * wrapped message is told from the next; 0 for a help page's paragraphs. A line that starts
   * with a list marker (`- `, `• `) wraps under its text whatever this says; by default, so does
   * an indented line of a two-column list (`  base URL  --base-url …`) under its second column.
   */
  readonly hang?: number;
  /** Each line is a shell command (a help example): every break ends in ` \`. */
  readonly command?: boolean;
  /** What wrapped parts start with instead of spaces (a preview's `  ┆ ` beside its `  │ `). */
  readonly lead?: string;
}

const ANSI = /\u001b\[[0-9;]*m/g;

/** Columns a text takes on a terminal: colour codes none, combining marks none, wide (CJK, emoji) two. */
export function displayWidth(text: string): number {
  let w = 0;
  for (const ch of text.includes('\u001b') ? text.replace(ANSI, '') : text) {
    const c = ch.codePointAt(0) as number;
    if (c < 0x300) w++;
    else if ((c <= 0x36f) || (c >= 0x200b && c <= 0x200f) || (c >= 0x20d0 && c <= 0x20ff) || (c >= 0xfe00 && c <= 0xfe0f) || c === 0xfeff) continue;
    else w += (c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf && c !== 0x303f) || (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) || (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1f64f) || (c >= 0x1f900 && c <= 0x1f9ff) || (c >= 0x20000 && c <= 0x3fffd) ? 2 : 1;
  }
  return w;
}

/** A word of a line, the spaces before it, and the command it belongs to (its number), if any. */
interface Unit {
  readonly text: string;
  readonly gap: string;
  readonly command: number;
}

/**
 * Text wrapped at `width` columns, line by line: a line that fits is left as it is; one that does
 * not breaks between words, its wrapped part indented as `hang` says. Undefined width: the text
 * as it is (not a terminal).
 */
export function wrap(text: string, width: number | undefined, o: WrapOptions = {}): string {
  if (width === undefined) return text;
  const w = Math.max(width, NARROWEST);
  if (!text.includes('\n')) return displayWidth(text) <= w ? text : wrapLine(text, w, o);
  return text.split('\n').map((line) => (displayWidth(line) <= w ? line : wrapLine(line, w, o))).join('\n');
}

function wrapLine(line: string, width: number, o: WrapOptions): string {
  const indent = /^ */.exec(line)?.[0] ?? '';
  const content = line.slice(indent.length);
  const bullet = /^(?:[-*•] )/.test(content);
  // An indented `term  value` line (two spaces or more after a short term) wraps under its value.
  const column = o.hang === undefined && indent.length >= 2 ? /^(\S+(?: \S+)?) {2,}(?=\S)/.exec(content)?.[0].length : undefined;
  const hang = bullet ? 2 : (o.hang ?? (column !== undefined && column <= 18 ? column : 2));
  const lead = o.lead ?? ' '.repeat(indent.length + hang);
  // A command's wrapped parts go two deeper than the text's, as shell scripts indent them.
  const commandLead = `${lead}  `;
  const units = unitsOf(content, o.command === true, indent.length > 0);
  const out: string[] = [];
  let cur = indent;
  let curWidth = displayWidth(indent);
  let empty = true;
  const flush = (next: string, continued: boolean): void => {
    out.push(continued ? `${cur} \\` : cur.replace(/ +$/, ''));
    cur = next;
    curWidth = displayWidth(next);
    empty = true;
  };
  // The command last broken with ` \`: what follows it on its last line would be read as its words.
  let broken = 0;
  for (let i = 0; i < units.length; i++) {
    let u = units[i] as Unit;
    // Prose after a command broken over lines starts a line of its own: the command's lines,
    // copied, run as printed.
    if (!empty && broken !== 0 && u.command !== broken && units[i - 1]?.command === broken) flush(lead, false);
    // A list without spaces (`STOP,STOPALL,…`) wider than a whole line breaks after its commas.
    if (u.command === 0 && u.text.includes(',') && displayWidth(u.text) > width - displayWidth(lead)) {
      const pieces = u.text.split(/(?<=,)(?=.)/);
      units.splice(i, 1, ...pieces.map((text, k) => ({ text, gap: k === 0 ? u.gap : '', command: 0 })));
      u = units[i] as Unit;
    }
    const uw = displayWidth(u.text);
    const next = units[i + 1];
    // Room for ` \` after a word a command goes on from.
    const reserve = u.command !== 0 && next?.command === u.command ? 2 : 0;
    const gapWidth = empty ? 0 : displayWidth(u.gap);
    const startsCommand = u.command !== 0 && units[i - 1]?.command !== u.command;
    if (!empty && startsCommand) {
      // A command that does not fit after the text starts a line of its own: whole when it
      // fits there, else broken from its start.
      if (curWidth + gapWidth + commandWidth(units, i) > width) flush(lead, false);
    }
    // An option and its value go on one line when they fit on one: the break comes before the option.
    const value = u.command !== 0 && u.text.startsWith('-') && next?.command === u.command && !next.text.startsWith('-') ? next : undefined;
    const pair = value !== undefined ? uw + displayWidth(value.gap) + displayWidth(value.text) + (units[i + 2]?.command === u.command ? 2 : 0) : 0;
    const keepPair = value !== undefined && displayWidth(commandLead) + pair <= width && curWidth + gapWidth + pair > width;
    if (!empty && (keepPair || curWidth + gapWidth + uw + reserve > width)) {
      const inCommand = u.command !== 0 && units[i - 1]?.command === u.command;
      if (inCommand) broken = u.command;
      flush(inCommand ? commandLead : lead, inCommand);
    }
    if (!empty) {
      cur += u.gap;
      curWidth += displayWidth(u.gap);
    }
    cur += u.text;
    curWidth += uw;
    empty = false;
  }
  out.push(cur);
  return out.join('\n');
}

/** The width of the command that starts at units[i], on one line. */
function commandWidth(units: readonly Unit[], i: number): number {
  const id = (units[i] as Unit).command;
  let width = displayWidth((units[i] as Unit).text);
  for (let j = i + 1; j < units.length && (units[j] as Unit).command === id; j++) width += displayWidth((units[j] as Unit).gap) + displayWidth((units[j] as Unit).text);
  return width;
}

/**
 * The line's words. A command (`msgr` as the first word of an indented line, after a word ending
 * in a colon, or after a backtick; or the whole line when `command`) is split into shell words,
 * its quotes kept whole, up to its closing backtick, a word ending in `,` or `;`, or a `(` that
 * starts a remark. After a colon, environment variables set for it (`MSGR_BASE_URL=… msgr send …`)
 * are its words too. A line that is not indented and starts with `msgr` is prose (`msgr sandbox
 * listening on …`, a help page's paragraph), as a command shown to be copied is indented.
 */
function unitsOf(content: string, command: boolean, indented: boolean): Unit[] {
  const units: Unit[] = [];
  let commands = 0;
  let at = 0;
  let previous = '';
  while (at < content.length) {
    const gapEnd = skipSpaces(content, at);
    const gap = content.slice(at, gapEnd);
    at = gapEnd;
    if (at >= content.length) break;
    const rest = content.slice(at);
    const starts = command
      ? units.length === 0
      : /^\(?`msgr /.test(rest) || (COMMAND.test(rest) && ((units.length === 0 && indented) || previous.endsWith(':') || previous === '|')) || (previous.endsWith(':') && ENV_COMMAND.test(rest));
    if (starts) {
      commands++;
      const backtick = /^\(?`/.test(rest);
      let first = true;
      while (at < content.length) {
        const g = first ? gap : content.slice(at, skipSpaces(content, at));
        at += first ? 0 : g.length;
        if (at >= content.length) break;
        if (!first && !command && content[at] === '(') {
          at -= g.length;
          break;
        }
        const end = shellWordEnd(content, at);
        const word = content.slice(at, end);
        units.push({ text: word, gap: g, command: commands });
        at = end;
        // The closing backtick may have punctuation after it: "(`msgr optout possible`)."
        const closes = backtick && (first ? /^\(?`.*`/.test(word) : word.includes('`'));
        first = false;
        previous = word;
        if (!command && (closes || /[,;]$/.test(word))) break;
      }
      continue;
    }
    const end = content.indexOf(' ', at);
    const word = content.slice(at, end === -1 ? undefined : end);
    units.push({ text: word, gap, command: 0 });
    previous = word;
    at += word.length;
  }
  return units;
}

/**
 * `msgr` and one of its commands: in prose after a colon ("Resume with: msgr send-bulk …"), that
 * is a command to copy. A command missing here is wrapped as prose (without ` \`), nothing worse.
 */
const COMMAND = /^msgr (?:send|send-bulk|runs|profile|sandbox|listen|optout|trigger|doctor|segments|api|completion|help)(?: |$)/;

/** A command that sets environment variables for msgr: `MSGR_BASE_URL=http://… MSGR_API_KEY=any-key msgr send …`. */
const ENV_COMMAND = /^(?:[A-Z][A-Z0-9_]*=\S+ +)+msgr (?:send|send-bulk|runs|profile|sandbox|listen|optout|trigger|doctor|segments|api|completion|help)(?: |$)/;

function skipSpaces(s: string, at: number): number {
  let i = at;
  while (s[i] === ' ') i++;
  return i;
}

/** Where the shell word starting at `at` ends: the first space outside quotes (any space, when a quote is never closed). */
function shellWordEnd(s: string, at: number): number {
  let quote: string | undefined;
  for (let i = at; i < s.length; i++) {
    const c = s[i];
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"') i++;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '\\') i++;
    else if (c === ' ') return i;
  }
  if (quote === undefined) return s.length;
  const space = s.indexOf(' ', at);
  return space === -1 ? s.length : space;
}

/**
 * A help page (a command's text after its options, a help topic) fitted to `width`: a paragraph
 * (lines not indented, up to a blank line, a `Heading:` or a list item `- `) is filled as one; an
 * indented line is code, a command broken with ` \`, unless it is a list item or a `#` comment,
 * which wrap as text does, or a crontab line, which cannot be continued and stays whole. Lines
 * that fit stay as they are, so a table laid out for the width is kept.
 */
export function wrapPage(text: string, width: number): string {
  const out: string[] = [];
  let paragraph: string[] = [];
  const close = (): void => {
    if (paragraph.length > 0) out.push(wrap(paragraph.join(' '), width, { hang: 0 }));
    paragraph = [];
  };
  for (const line of text.split('\n')) {
    const heading = /^[A-Z][^:]*:$/.test(line) && line.length < 40;
    if (line.trim() === '' || heading) {
      close();
      out.push(line);
    } else if (!line.startsWith(' ')) {
      if (/^[-•] /.test(line)) close();
      paragraph.push(line.trim());
    } else {
      close();
      const content = line.trimStart();
      if (/^[-•] /.test(content)) out.push(wrap(line, width, { hang: 0 }));
      else if (content.startsWith('# ')) out.push(wrap(line, width, { lead: `${line.slice(0, line.length - content.length)}# ` }));
      else if (CRONTAB.test(content)) out.push(line);
      else out.push(wrap(line, width, { hang: 0, command: true }));
    }
  }
  close();
  return out.join('\n');
}

/** A crontab line: its five schedule fields (`0 9 * * 1-5`) or `@daily`, then the command. */
const CRONTAB = /^(?:@[a-z]+|(?:[-*/,\d]+ +){5})\S/;
