// The help topics written as docs pages (docs/help/<topic>.md) are `msgr help <topic>`, word for
// word, and fit a terminal of 80 columns (scripts/build/help-topics.mjs builds them in).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, test } from 'node:test';
import { ROOT, runCli } from '../support/cli.js';

const DIR = join(ROOT, 'docs', 'help');
const pages = readdirSync(DIR).filter((n) => n.endsWith('.md')).map((n) => n.slice(0, -3));
const { renderTopic } = (await import(pathToFileURL(join(ROOT, 'scripts', 'build', 'help-topics.mjs')).href)) as { renderTopic: (markdown: string) => string };

describe('help topics from the docs pages', () => {
  test('csv, placeholders and cron have their pages', () => {
    for (const name of ['csv', 'placeholders', 'cron']) assert.ok(pages.includes(name), `docs/help/${name}.md`);
  });

  for (const name of pages) {
    test(`msgr help ${name} is docs/help/${name}.md, within 80 columns`, async () => {
      const r = await runCli(['help', name]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, renderTopic(readFileSync(join(DIR, `${name}.md`), 'utf8')), 'the build has not built this page in: npm run build');
      const title = /^# (.+)$/m.exec(readFileSync(join(DIR, `${name}.md`), 'utf8'))?.[1] ?? '';
      assert.ok(r.stdout.startsWith(`${title.replace(/`/g, '')}\n`), r.stdout.split('\n')[0]);
      for (const line of r.stdout.split('\n')) assert.ok(line.length <= 80, `${line.length} columns: ${line}`);
      assert.doesNotMatch(r.stdout, /```|^#+ /m, 'Markdown left in the terminal text');
    });
  }

  test('msgr help lists every topic with its summary; an unknown one names them', async () => {
    const r = await runCli(['help']);
    assert.equal(r.code, 0, r.stderr);
    for (const name of [...pages, 'exit-codes', 'environment', 'config']) assert.match(r.stdout, new RegExp(`^ {2}msgr help ${name} +\\S`, 'm'), name);
    assert.match(r.stdout, /^ {2}msgr help csv +CSV files: the number column/m);
    assert.match(r.stdout, /^ {2}msgr help placeholders +placeholders: a message of its own for every row$/m);
    for (const line of r.stdout.split('\n')) assert.ok(line.length <= 80, `${line.length} columns: ${line}`);
    const bad = await runCli(['help', 'spreadsheets']);
    assert.equal(bad.code, 2);
    for (const name of pages) assert.match(bad.stderr, new RegExp(`hint: Try one of: .*\\b${name}\\b`));
    // Not a topic, however it is spelled in JavaScript.
    assert.equal((await runCli(['help', 'constructor'])).code, 2);
  });
});
