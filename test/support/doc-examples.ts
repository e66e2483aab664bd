// The shell examples of README.md and docs/, found with the marker the line before each says
// what to do with it (test/e2e/doc-examples.test.ts runs them):
//
//   <!-- example: run -->              run it; it must exit 0
//   <!-- example: run, exit 2 -->      run it; it must exit 2
//   <!-- example: run, nothing set up -->  run it on a machine with no profile (also with exit N)
//   <!-- example: skip, <why> -->      never run, and the reason is required (a crontab line, a
//                                      server that runs until Ctrl-C, a test of its own)
//
// A `sh` block runs as one script (`sh -e`). A `console` block is a transcript: each `$ ` line
// is run, and the lines under it, when there are any, are what it prints (stdout and stderr, as
// a terminal shows them), compared exactly.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface Example {
  readonly file: string;
  /** The fence's line, 1-based. */
  readonly line: number;
  readonly lang: string;
  readonly body: string;
  readonly mark: { readonly run: true; readonly exit: number; readonly fresh: boolean } | { readonly run: false; readonly why: string } | undefined;
}

/** Languages of blocks a reader would paste into a shell. */
export const SHELL_LANGS = new Set(['sh', 'bash', 'shell', 'console', 'cron']);

const MARK = /^<!-- example: (.*?) -->$/;

/** Every fenced block of a Markdown text, with the marker the line before it holds. */
export function examplesIn(file: string, text: string): Example[] {
  const lines = text.split('\n');
  const out: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)/.exec(lines[i] ?? '');
    if (open === null) continue;
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end] ?? '')) end++;
    const marker = MARK.exec(lines[i - 1] ?? '')?.[1];
    out.push({ file, line: i + 1, lang: open[1] ?? '', body: lines.slice(i + 1, end).join('\n'), mark: marker === undefined ? undefined : parseMark(file, i, marker) });
    i = end;
  }
  // A marker that is not right above a fence is a mistake: it would mark nothing.
  lines.forEach((l, i) => {
    if (MARK.test(l) && !/^```/.test(lines[i + 1] ?? '')) throw new Error(`${file}:${i + 1}: an example marker must be on the line right before a fenced block`);
  });
  return out;
}

function parseMark(file: string, index: number, text: string): Example['mark'] {
  const run = /^run(?:, exit (\d+))?(, nothing set up)?$/.exec(text);
  if (run !== null) return { run: true, exit: Number(run[1] ?? 0), fresh: run[2] !== undefined };
  const skip = /^skip, (\S.*)$/.exec(text);
  if (skip !== null) return { run: false, why: skip[1] ?? '' };
  throw new Error(`${file}:${index}: "<!-- example: ${text} -->" is neither "run[, exit N][, nothing set up]" nor "skip, <why>"`);
}

/** README.md and every page under docs/ but the generated ones (their examples are --help's). */
export function docFiles(root: string, generated: readonly string[]): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((n) => {
      const p = join(dir, n);
      if (statSync(p).isDirectory()) return generated.includes(relative(root, p)) ? [] : walk(p);
      return n.endsWith('.md') ? [relative(root, p)] : [];
    });
  return ['README.md', ...walk(join(root, 'docs'))];
}

export function readExamples(root: string, generated: readonly string[]): Example[] {
  return docFiles(root, generated).flatMap((f) => examplesIn(f, readFileSync(join(root, f), 'utf8')));
}

/** A console transcript: each command and the output printed under it (none: not compared). */
export function transcript(body: string): Array<{ command: string; output: string[] }> {
  const steps: Array<{ command: string; output: string[] }> = [];
  for (const line of body.split('\n')) {
    if (line.startsWith('$ ')) steps.push({ command: line.slice(2), output: [] });
    else steps.at(-1)?.output.push(line);
  }
  return steps;
}
