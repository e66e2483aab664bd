// The generated manual (src/reference/): the checked-in pages are what `npm run docs` writes
// today, every command of the tree has its pages (also one added later), and the exit-code
// tables everywhere are the one in the code.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { COMMANDS } from '../../../src/commands/index.js';
import { exitCodesHelp, exitCodesTopic } from '../../../src/commands/help/topics.js';
import { EXIT_CODES } from '../../../src/exit-codes.js';
import { buildProgram } from '../../../src/main.js';
import { generate, MARKED_FILES, wholeTree } from '../../../src/reference/generate.js';
import { commandPage, exitCodesTable } from '../../../src/reference/markdown.js';
import { manPage, roffText } from '../../../src/reference/roff.js';
import { describeCommand, flatten, parseHelpText } from '../../../src/reference/tree.js';
import { ROOT } from '../../support/cli.js';
import { fakeContext } from '../../support/fake-context.js';

const FIX = 'run `npm run docs` and commit what it writes';

describe('the generated manual', () => {
  const generated = generate(ROOT);

  test('the checked-in pages, man pages and exit-code tables are what the code generates', () => {
    const stale: string[] = [];
    for (const [path, text] of generated.files) {
      const at = join(ROOT, path);
      if (!existsSync(at)) stale.push(`${path} (missing)`);
      else if (readFileSync(at, 'utf8') !== text) stale.push(path);
    }
    for (const folder of generated.folders) {
      for (const name of existsSync(join(ROOT, folder)) ? readdirSync(join(ROOT, folder)) : []) {
        if (!generated.files.has(`${folder}/${name}`)) stale.push(`${folder}/${name} (no command has this page any more)`);
      }
    }
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { man?: string[]; files: string[] };
    if (JSON.stringify(manifest.man) !== JSON.stringify(generated.man)) stale.push('package.json "man"');
    assert.deepEqual(stale, [], `out of date: ${FIX}`);
    // The man pages travel in the package.
    assert.ok(manifest.files.includes('docs'), 'package.json "files" must include docs/ (the man pages)');
  });

  test('every registered command has a page and a man page, subcommands included', () => {
    const docs = flatten(wholeTree(ROOT));
    const slugs = new Set(docs.map((d) => d.slug));
    for (const [name] of COMMANDS) {
      assert.ok(slugs.has(`msgr-${name}`), `msgr ${name} has no page`);
      assert.ok(generated.files.has(`docs/commands/msgr-${name}.md`));
      assert.ok(generated.files.has(`docs/man/msgr-${name}.1`));
    }
    for (const sub of ['msgr-profile-add', 'msgr-runs-list', 'msgr-runs-prune']) assert.ok(slugs.has(sub), sub);
    // Hidden commands (the completion scripts' __complete) and Commander's implicit help have none.
    assert.ok(![...slugs].some((s) => s.includes('__complete') || (s.endsWith('-help') && s !== 'msgr-help')), [...slugs].join(' '));
  });

  test('a command added to the tree later gets its pages with nothing else to change', () => {
    const program = buildProgram(fakeContext(), 'all');
    program
      .command('tail')
      .description('print delivery reports as they arrive')
      .optionsGroup('Listening:')
      .option('--once', 'stop after the first report')
      .addHelpText('after', '\nExamples:\n  msgr tail --once\n');
    const doc = flatten(describeCommand(program)).find((d) => d.slug === 'msgr-tail');
    assert.ok(doc !== undefined, 'msgr tail was not found in the tree');
    const page = commandPage(doc);
    assert.match(page, /^# msgr tail$/m);
    assert.match(page, /### Listening\n\n\| option \| \|\n\|---\|---\|\n\| `--once` \| stop after the first report \|/);
    assert.match(page, /## Examples\n\n```sh\nmsgr tail --once\n```/);
    assert.match(manPage(doc), /^\.SS "Listening"\n\.TP\n\\fB\\-\\-once\\fR\nstop after the first report$/m);
  });

  test('an option\'s description is the one --help prints (one source)', async () => {
    const send = flatten(wholeTree(ROOT)).find((d) => d.slug === 'msgr-send');
    const page = generated.files.get('docs/commands/msgr-send.md') ?? '';
    const help = fakeContext({ env: { NO_COLOR: '1' } });
    const program = buildProgram(help, 'all');
    await program.parseAsync(['send', '--help'], { from: 'user' }).catch(() => undefined);
    const entries = send?.groups.flatMap((g) => g.entries) ?? [];
    assert.ok(entries.length > 20, `${entries.length} options`);
    for (const e of entries) {
      assert.ok(page.includes(`\`${e.term}\``), `${e.term} is not on the page`);
      // --help wraps long descriptions: compare the words.
      const words = (s: string): string => s.replace(/\s+/g, ' ');
      assert.ok(words(help.out()).includes(words(e.description).slice(0, 40)), `${e.term}: "${e.description}" is not what --help prints`);
    }
  });

  test('the help text after the options becomes sections: prose, headings, code', () => {
    const sections = parseHelpText('\nSome prose\non two lines.\n\nExamples:\n  msgr a\n    --b\n\nInstall:\n  bash  x\n');
    assert.deepEqual(sections, [
      { heading: undefined, blocks: [{ kind: 'prose', lines: ['Some prose', 'on two lines.'] }] },
      { heading: 'Examples', blocks: [{ kind: 'code', lines: ['msgr a', '  --b'] }] },
      { heading: 'Install', blocks: [{ kind: 'code', lines: ['bash  x'] }] },
    ]);
  });

  test('the pages show the help\'s code and escapes as written: every example line, and \\{{ with its backslash', () => {
    for (const doc of flatten(wholeTree(ROOT))) {
      const man = generated.files.get(`docs/man/${doc.slug}.1`) ?? '';
      const md = generated.files.get(`docs/commands/${doc.slug}.md`) ?? '';
      // The exit codes are the table's, not the help's text.
      for (const block of doc.sections.filter((x) => x.heading !== 'Exit codes').flatMap((x) => x.blocks).filter((b) => b.kind === 'code')) {
        for (const line of block.lines) {
          assert.ok(man.includes(roffText(line)), `${doc.slug}.1 lacks: ${line}`);
          assert.ok(md.includes(line), `${doc.slug}.md lacks: ${line}`);
        }
      }
    }
    const bulk = flatten(wholeTree(ROOT)).find((d) => d.slug === 'msgr-send-bulk');
    assert.ok(bulk?.sections.some((x) => x.blocks.some((b) => b.lines.some((l) => l.includes('\\{{ is a literal {{')))));
    assert.match(generated.files.get('docs/man/msgr-send-bulk.1') ?? '', /\\e\{\{ is a literal \{\{/);
    assert.match(generated.files.get('docs/commands/msgr-send-bulk.md') ?? '', /\\\\\{\{ is a literal \{\{/);
  });

  test('roff: minus signs, backslashes, leading dots and non-ASCII are escaped', () => {
    assert.equal(roffText('--to'), '\\-\\-to');
    assert.equal(roffText('a\\{{b'), 'a\\e{{b');
    assert.equal(roffText('.dot\n\'quote'), '\\&.dot\n\\&\'quote');
    assert.equal(roffText('It’s'), 'It\\[u2019]s');
  });
});

describe('one exit-code table', () => {
  test('README.md and docs/contract.md carry the table of the code, between their markers', () => {
    const table = exitCodesTable();
    for (const file of MARKED_FILES) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      assert.ok(text.includes(table), `${file}: its exit-code table is not the code's: ${FIX}`);
    }
    // The code's own table says what the help said and the hand-written tables had left out.
    assert.match(table, /^\| 4 \| the API rejected the request \(any other 4xx, or a redirect\)/m);
  });

  test('--help, msgr help exit-codes and the tables list the same codes', () => {
    const codes = EXIT_CODES.map((r) => r.code);
    assert.deepEqual([...exitCodesHelp().matchAll(/^ {2}(\d+) /gm)].map((m) => Number(m[1])), codes);
    assert.deepEqual([...exitCodesTopic().matchAll(/^ {2}(\d+) +/gm)].map((m) => Number(m[1])), codes);
    assert.deepEqual([...exitCodesTable().matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1])), codes);
    for (const line of exitCodesHelp().split('\n')) assert.ok(line.length <= 80, `--help: ${line.length} columns: ${line}`);
  });
});
