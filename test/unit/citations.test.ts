// Code comments cite what a reader can open: a page of docs/ (`docs/campaigns.md`), one of its
// headings (`docs/files.md: "Run identity"`, several as `"A", "B"` or `"A" and "B"`), or a README
// section (`README: "Exit codes"`). A heading is cited whole, or by its part before a colon or a
// bracket ("Input" for "Input: the CSV file"), with its backticks left out. This fails when a
// comment in src/, bin/ or scripts/ cites a page or heading that does not exist, a heading
// without quotes (`docs/x.md: Heading` cannot be checked), or a README section without its
// heading: a heading renamed in the manual is renamed in the code in the same change.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { ROOT } from '../support/cli.js';

const SCOPE = ['src', 'bin', 'scripts'];
const CODE = /\.(ts|mts|cts|js|mjs|cjs)$/;

interface Citation {
  readonly line: number;
  /** The citation and what follows it, for the message. */
  readonly text: string;
  /** `README.md` or `docs/….md`. */
  readonly page: string;
  readonly headings: readonly string[];
  /** Why it cannot be checked, when it cannot. */
  readonly malformed?: string;
}

/** Comment lines joined, so that a citation wrapped over two lines reads as one. */
function flatten(text: string): { flat: string; lineAt: (index: number) => number } {
  const starts: Array<[number, number]> = [];
  let flat = '';
  let line = 1;
  let last = 0;
  for (const m of text.matchAll(/[ \t]*\r?\n[ \t]*(?:\/\/+|\*(?!\/)|#)?[ \t]*/g)) {
    starts.push([flat.length, line]);
    flat += `${text.slice(last, m.index)} `;
    line++;
    last = m.index + m[0].length;
  }
  starts.push([flat.length, line]);
  flat += text.slice(last);
  return { flat, lineAt: (i) => [...starts].reverse().find(([at]) => at <= i)?.[1] ?? 1 };
}

const QUOTED = String.raw`"[^"\n]+"(?:(?:,\s*|;\s*|\s+and\s+)"[^"\n]+")*`;
const README_CITE = new RegExp(String.raw`\bREADME(?!\.md)(?:'s)?(?:[:,]?\s*(${QUOTED}))?`, 'g');
const DOCS_CITE = new RegExp(String.raw`\bdocs\/((?:[a-z0-9-]+\/)*[a-zA-Z0-9-]+\.md)(?:([:,])\s*(${QUOTED}|\S))?`, 'g');
const quoted = (q: string | undefined): string[] => [...(q ?? '').matchAll(/"([^"\n]+)"/g)].map((m) => m[1] ?? '');

/** Every citation of the README or a docs page in a file's text. */
export function citationsIn(text: string): Citation[] {
  const { flat, lineAt } = flatten(text);
  const out: Citation[] = [];
  for (const m of flat.matchAll(README_CITE)) {
    const malformed = m[1] === undefined ? 'a README section is cited as README: "Heading" (or cite the docs page that owns it)' : undefined;
    out.push({ line: lineAt(m.index), text: flat.slice(m.index, m.index + Math.max(m[0].length, 70)), page: 'README.md', headings: quoted(m[1]), ...(malformed !== undefined ? { malformed } : {}) });
  }
  for (const m of flat.matchAll(DOCS_CITE)) {
    const isQuoted = m[3]?.startsWith('"') === true;
    const malformed = m[2] === ':' && !isQuoted ? `a heading is cited in quotes: docs/${m[1]}: "Heading"` : undefined;
    out.push({ line: lineAt(m.index), text: flat.slice(m.index, m.index + Math.max(m[0].length, 70)), page: `docs/${m[1]}`, headings: isQuoted ? quoted(m[3]) : [], ...(malformed !== undefined ? { malformed } : {}) });
  }
  return out;
}

/** A page's headings, without their `#`s and backticks (code blocks skipped). */
export function headingsOf(markdown: string): string[] {
  const out: string[] = [];
  let fence = false;
  for (const line of markdown.split('\n')) {
    if (/^```/.test(line)) fence = !fence;
    else if (!fence && /^#{1,6} /.test(line)) out.push(line.replace(/^#+ /, '').replace(/`/g, '').trim());
  }
  return out;
}

export const names = (cite: string, heading: string): boolean => heading === cite || heading.startsWith(`${cite}:`) || heading.startsWith(`${cite} (`);

/** What is wrong with each citation of a file, given how to read a page (undefined: none). */
export function problems(text: string, page: (path: string) => string | undefined): string[] {
  const out: string[] = [];
  for (const c of citationsIn(text)) {
    const where = `line ${c.line}: ${c.text.slice(0, 80)}`;
    if (c.malformed !== undefined) {
      out.push(`${where}: ${c.malformed}`);
      continue;
    }
    const markdown = page(c.page);
    if (markdown === undefined) {
      out.push(`${where}: ${c.page} does not exist`);
      continue;
    }
    const hs = headingsOf(markdown);
    for (const h of c.headings) if (!hs.some((x) => names(h, x))) out.push(`${where}: ${c.page} has no heading "${h}"`);
  }
  return out;
}

function codeFiles(): string[] {
  const out: string[] = [];
  const walk = (p: string): void => {
    if (statSync(p).isDirectory()) for (const n of readdirSync(p)) walk(join(p, n));
    else if (CODE.test(p)) out.push(p);
  };
  for (const s of SCOPE) if (existsSync(join(ROOT, s))) walk(join(ROOT, s));
  return out;
}

const readPage = (path: string): string | undefined => (existsSync(join(ROOT, path)) ? readFileSync(join(ROOT, path), 'utf8') : undefined);

describe('citations of the manual in code comments', () => {
  test('every page and heading cited in src/, bin/ and scripts/ exists', () => {
    const files = codeFiles();
    assert.ok(files.length > 100, `only ${files.length} files in ${SCOPE.join(', ')}`);
    const found = files.flatMap((f) => problems(readFileSync(f, 'utf8'), readPage).map((p) => `${relative(ROOT, f)}: ${p}`));
    assert.deepEqual(found, [], 'cite a heading that exists, or rename the citation with the heading');
    assert.ok(files.some((f) => citationsIn(readFileSync(f, 'utf8')).some((c) => c.headings.length > 0)), 'no heading cited anywhere: the scan finds nothing');
  });

  test('the scan reads citations wrapped over comment lines, and catches each kind of broken one', () => {
    const pages: Record<string, string> = {
      'README.md': '# msgr\n## Exit codes\n',
      'docs/files.md': '# Files\n## Run identity\n## Unfinished runs: `--resume` or `--restart`\n```sh\n# not a heading\n```\n',
    };
    const page = (p: string): string | undefined => pages[p];
    const ok = '// A resume sends where it started (docs/files.md: "Run\n// identity"; docs/files.md: "Unfinished runs"\n * and README: "Exit codes").\n';
    assert.deepEqual(problems(ok, page), []);
    assert.deepEqual(citationsIn(ok).find((c) => c.page === 'docs/files.md')?.headings, ['Run identity']);
    assert.deepEqual(citationsIn(ok).find((c) => c.page === 'README.md')?.line, 3);
    const bad = [
      '// (docs/bulk.md: "Scale")', // the page is gone
      '// (docs/files.md: "Runs")', // no such heading
      '// (docs/files.md, "not a heading")', // a comment in a code block is no heading
      '// (docs/files.md: Run identity)', // unquoted
      '// (README design notes)', // a README section without its heading
      '// (README: "Design notes")', // a README heading that is gone
    ];
    for (const line of bad) assert.equal(problems(line, page).length, 1, line);
    // A page cited alone, or named in passing, is fine as long as it exists.
    assert.deepEqual(problems("const FILES = ['README.md', 'docs/files.md']; // see docs/files.md, which", page), []);
  });
});
