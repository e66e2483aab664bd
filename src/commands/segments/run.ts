// `msgr segments`: text → segments (src/message/segments.ts, the same count send-bulk's preflight
// prints) → stdout.
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { segmentText, type Segments } from '../../message/segments.js';
import { phoneText } from '../../message/text-file.js';
import { showControls } from '../../output/sanitize.js';
import type { SegmentsOptions } from './options.js';

export async function runSegments(ctx: Context, opts: SegmentsOptions): Promise<void> {
  const message = await readText(ctx, opts);
  if (message === '') {
    throw new UsageError('no text to count', { hint: "Give it as an argument (msgr segments 'Hello'), with --text-file PATH, or pipe it in." });
  }
  // Counted as it would be sent: line ends and composed letters (message/text-file.ts, phoneText).
  const segments = segmentText(phoneText(message));
  ctx.stdout.write(opts.json ? `${JSON.stringify(toJson(segments), null, 2)}\n` : formatSegments(segments, ctx.stdout.isTTY === true));
}

/** The text exactly as send reads it: the one text-file reader (encodings, BOM, final newline). */
async function readText(ctx: Context, opts: SegmentsOptions): Promise<string> {
  if (opts.text !== undefined) return opts.text;
  if (opts.textFile === undefined && ctx.stdin.isTTY === true) {
    throw new UsageError('no text to count', { hint: "Give it as an argument (msgr segments 'Hello'), with --text-file PATH, or pipe it in." });
  }
  const { readTextFile } = await import('../../message/text-file.js');
  return readTextFile(ctx, opts.textFile ?? '-', { flag: opts.textFile !== undefined ? '--text-file' : 'stdin', encoding: opts.textEncoding, encodingFlag: '--text-encoding' });
}

function toJson(s: Segments): unknown {
  return {
    encoding: s.encoding,
    units: s.units,
    unit: s.encoding === 'GSM-7' ? 'septets' : 'UTF-16 code units',
    characters: s.characters,
    perPart: s.perPart,
    parts: s.parts.length,
    partEnds: s.parts.map((p) => ({ part: p.index, start: p.start, end: p.end, units: p.units, text: p.text })),
    forcing: s.forcing,
    gsmAlternative: s.gsmAlternative,
  };
}

/** A short quote of where a part ends, so people can see the cut in their own text. */
function tail(text: string, visible: boolean): string {
  const chars = [...text];
  const end = chars.slice(-12).join('');
  const shown = JSON.stringify(chars.length > 12 ? `…${end}` : end);
  return visible ? showControls(shown) : shown;
}

export function formatSegments(s: Segments, tty: boolean): string {
  const unit = s.encoding === 'GSM-7' ? 'septets' : 'UTF-16 units';
  const length = s.units === 1 ? unit.replace(/s$/, '') : unit;
  const lines = [
    `encoding    ${s.encoding}${s.forcing.length > 0 ? ` (forced by ${s.forcing.length} character${s.forcing.length === 1 ? '' : 's'}, below)` : ''}`,
    `length      ${s.units} ${length} (${s.characters} character${s.characters === 1 ? '' : 's'})`,
    `parts       ${s.parts.length} (${s.perPart} ${unit} per ${s.parts.length > 1 ? 'part of a long message' : 'single message'})`,
  ];
  if (s.parts.length > 1) {
    const width = String(s.characters).length;
    for (const p of s.parts) {
      lines.push(`  part ${p.index}  characters ${String(p.start).padStart(width)}-${String(p.end).padEnd(width)}  ${String(p.units).padStart(3)} ${unit}, ends ${tail(p.text, tty)}`);
    }
  }
  if (s.forcing.length > 0) {
    lines.push('forcing UCS-2:');
    for (const f of s.forcing) {
      const shown = /^[\p{L}\p{N}\p{P}\p{S}]$/u.test(f.char) ? f.char : ' ';
      const instead = f.lookalike === null ? 'no GSM-7 look-alike' : f.lookalike === '' ? 'invisible: delete it' : `use ${JSON.stringify(f.lookalike)}`;
      lines.push(`  ${shown}  ${f.codePoint.padEnd(7)}  ${f.count}×  ${instead}`);
    }
    if (s.gsmAlternative !== null) {
      lines.push(`with the look-alikes it would be GSM-7 in ${s.gsmAlternative.parts} part${s.gsmAlternative.parts === 1 ? '' : 's'}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
