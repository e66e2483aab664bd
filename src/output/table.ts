// Tables for people on stdout (`msgr runs list`, `msgr profile list`): aligned columns, or, on a
// terminal too narrow for them, a record per row, fitted by the one wrapping function (wrap.ts).
import { displayWidth, wrap } from './wrap.js';

/** Rows of cells in columns two spaces apart, each padded to its widest cell but the last. */
export function alignColumns(rows: ReadonlyArray<readonly string[]>): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, displayWidth(c))));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat((widths[i] ?? 0) - displayWidth(c)))).join('  ').trimEnd());
}

/**
 * A table with its heading row first: aligned columns when they fit `width` (undefined: not a
 * terminal, where scripts read whole rows: always); else each row as a record, its first `title`
 * cells on a line, then each other cell that has a value (not empty, not `-`) after its column's
 * name, or alone under a column without one.
 */
export function formatTable(rows: ReadonlyArray<readonly string[]>, width: number | undefined, title = 1): string {
  const lines = alignColumns(rows);
  if (width === undefined || lines.every((l) => displayWidth(l) <= width)) return lines.join('\n');
  const [heading = [], ...body] = rows;
  const names = heading.map((h) => h.toLowerCase());
  const nameWidth = Math.max(...names.slice(title).map((n) => n.length));
  return body
    .map((r) => {
      const head = wrap(r.slice(0, title).filter((c) => c !== '').join('  '), width);
      const cells = r.slice(title).flatMap((c, i) => {
        if (c === '' || c === '-') return [];
        const name = names[title + i] ?? '';
        return [name === '' ? wrap(`  ${c}`, width) : wrap(`  ${name.padEnd(nameWidth)}  ${c}`, width, { hang: nameWidth + 2 })];
      });
      return [head, ...cells].join('\n');
    })
    .join('\n');
}

/**
 * Settings and where each came from (`name  value  source`, `msgr profile show`, a profile's
 * confirmation): aligned columns when every line fits `width` (undefined: not a terminal,
 * always); else each source on a line of its own under its value, so that no source is split
 * between lines, its second half read as a value.
 */
export function formatSources(rows: ReadonlyArray<readonly [name: string, value: string, source: string]>, width: number | undefined, indent = ''): string[] {
  const lines = alignColumns(rows).map((l) => `${indent}${l}`);
  if (width === undefined || lines.every((l) => displayWidth(l) <= width)) return lines;
  const nameWidth = Math.max(...rows.map(([name]) => displayWidth(name)));
  const hang = nameWidth + 2;
  return rows.flatMap(([name, value, source]) => {
    const head = wrap(`${indent}${name}${' '.repeat(nameWidth - displayWidth(name))}  ${value}`.trimEnd(), width, { hang });
    return source === '' ? [head] : [head, wrap(`${indent}${' '.repeat(hang)}${source}`, width, { hang: 0 })];
  });
}
