// The help topics written as docs pages (docs/help/<topic>.md) are `msgr help <topic>`, word for
// word, code as written, and fit the terminal: 80 columns on a pipe, the terminal's own on one
// (scripts/build/help-topics.mjs builds them in; src/output/wrap.ts fits them). In-process: the
// topics are text the build defines into the program, so no process is the point.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, test } from 'node:test';
import { main } from '../../../../src/main.js';
import { wrapPage } from '../../../../src/output/wrap.js';
import { ROOT } from '../../../support/cli.js';
import { fakeContext } from '../../../support/fake-context.js';
import { runInProcess } from '../../../support/in-process.js';

const DIR = join(ROOT, 'docs', 'help');
const pages = readdirSync(DIR).filter((n) => n.endsWith('.md')).map((n) => n.slice(0, -3));
const { renderTopic } = (await import(pathToFileURL(join(ROOT, 'scripts', 'build', 'help-topics.mjs')).href)) as { renderTopic: (markdown: string) => string };

describe('help topics from the docs pages', () => {
  test('csv, placeholders and cron have their pages', () => {
    for (const name of ['csv', 'placeholders', 'cron']) assert.ok(pages.includes(name), `docs/help/${name}.md`);
  });

  for (const name of pages) {
    test(`msgr help ${name} is docs/help/${name}.md, within 80 columns`, async () => {
      const r = await runInProcess(['help', name]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, wrapPage(renderTopic(readFileSync(join(DIR, `${name}.md`), 'utf8')), 80), 'the build has not built this page in: npm run build');
      const title = /^# (.+)$/m.exec(readFileSync(join(DIR, `${name}.md`), 'utf8'))?.[1] ?? '';
      assert.ok(r.stdout.startsWith(`${title.replace(/`/g, '')}\n`), r.stdout.split('\n')[0]);
      for (const line of r.stdout.split('\n')) assert.ok(line.length <= 80, `${line.length} columns: ${line}`);
      assert.doesNotMatch(r.stdout, /```|^#+ /m, 'Markdown left in the terminal text');
    });
  }

  for (const name of pages) {
    test(`msgr help ${name} shows its page's code as written, and its words in order, at 80 and 60 columns`, async () => {
      const markdown = readFileSync(join(DIR, `${name}.md`), 'utf8').replace(/<!--[\s\S]*?-->/g, '');
      for (const columns of [80, 60]) {
        const ctx = fakeContext({ tty: true, columns });
        (ctx as { argv: readonly string[] }).argv = ['help', name];
        assert.equal(await main(ctx), 0, ctx.err());
        const shown = ctx.out();
        // What a reader copies: the lines joined where they were wrapped (a command's ` \` too).
        const joined = shown.replace(/ \\\n */g, ' ').replace(/\s+/g, ' ');
        // Code spans and code blocks as the page has them: escapes, backslashes and all.
        const blocks = [...markdown.matchAll(/```\w*\n([\s\S]*?)```/g)].map((b) => (b[1] ?? '').replace(/ \\\n\s*/g, ' ').replace(/\s+/g, ' ').trim());
        const code = [...markdown.replace(/```\w*\n[\s\S]*?```/g, ' ').matchAll(/`([^`]+)`/g)].map((m) => (m[1] ?? '').replace(/\s+/g, ' '));
        assert.ok(code.length > 0);
        for (const c of [...blocks, ...code]) assert.ok(joined.includes(c), `msgr help ${name} at ${columns} columns does not show \`${c}\` as written`);
        // Prose: the page's words, less Markdown's marks, in the same order.
        const prose = markdown
          .replace(/```\w*\n[\s\S]*?```/g, ' ')
          .replace(/`[^`]+`/g, ' ')
          .replace(/^#+ /gm, '')
          .replace(/\[([^\]]+)\]\([^)]+\)/g, '$1')
          .replace(/\*\*/g, '')
          .replace(/\\([\\`*_{}[\]()#+\-.!<>|])/g, '$1');
        let at = 0;
        for (const word of prose.split(/\s+/).filter((w) => /\w/.test(w))) {
          const found = joined.indexOf(word.replace(/:$/, ''), at);
          assert.ok(found >= 0, `msgr help ${name} at ${columns} columns: "${word}" missing or out of order`);
          at = found;
        }
        for (const line of shown.split('\n')) assert.ok(line.length <= columns || /\/\S{8,}/.test(line), `${columns} columns, ${line.length} wide: ${line}`);
      }
    });
  }

  test('msgr help lists every topic with its summary; an unknown one names them', async () => {
    const r = await runInProcess(['help']);
    assert.equal(r.code, 0, r.stderr);
    for (const name of [...pages, 'exit-codes', 'environment', 'config']) assert.match(r.stdout, new RegExp(`^ {2}msgr help ${name} +\\S`, 'm'), name);
    assert.match(r.stdout, /^ {2}msgr help csv +CSV files: the number column/m);
    assert.match(r.stdout, /^ {2}msgr help placeholders +placeholders: a message of its own for every row$/m);
    for (const line of r.stdout.split('\n')) assert.ok(line.length <= 80, `${line.length} columns: ${line}`);
    const bad = await runInProcess(['help', 'spreadsheets']);
    assert.equal(bad.code, 2);
    for (const name of pages) assert.match(bad.stderr, new RegExp(`hint: Try one of: .*\\b${name}\\b`));
    // Not a topic, however it is spelled in JavaScript.
    assert.equal((await runInProcess(['help', 'constructor'])).code, 2);
  });
});
