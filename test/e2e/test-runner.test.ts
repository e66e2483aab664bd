// `npm test` ends with one line a person reads: the totals and the time (scripts/run-tests.mjs),
// run here on a few test files of its own.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, cleanEnv, tempDir } from '../support/cli.js';

function runTests(files: Record<string, string>, extraEnv: Record<string, string> = {}): { status: number | null; lines: string[] } {
  const dir = tempDir('msgr-run-tests-');
  mkdirSync(join(dir, 'build', 'test', 'unit'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, 'build', 'test', 'unit', name), `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\n${body}\n`);
  // Not a child of this test run: the runner inside would report to this one instead.
  const env = cleanEnv({ NODE_TEST_CONTEXT: undefined, ...extraEnv });
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'run-tests.mjs'), 'unit'], { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, lines: r.stdout.trimEnd().split('\n') };
}

test('the last line of a test run: passed, failed, skipped, the files and the time', () => {
  const ok = runTests({
    'a.test.js': "test('one', () => {});\ntest('two', () => {});\ntest('later', { skip: 'not here' }, () => {});",
    'b.test.js': "test('three', () => assert.equal(1, 1));",
  });
  assert.equal(ok.status, 0, ok.lines.join('\n'));
  assert.match(ok.lines.at(-1) ?? '', /^tests: 3 passed, 0 failed, 1 skipped, in 2 files, \d+ s: ok$/);
  // The spec reporter, not TAP: one line per test.
  assert.ok(ok.lines.some((l) => /^ {2}✔ one \(/.test(l)), ok.lines.join('\n'));
  assert.ok(!ok.lines.some((l) => /^(TAP version|ok \d+ - )/.test(l)));

  const bad = runTests({ 'c.test.js': "test('fine', () => {});\ntest('broken', () => assert.equal(1, 2));" });
  assert.equal(bad.status, 1);
  assert.match(bad.lines.at(-1) ?? '', /^tests: 1 passed, 1 failed, 0 skipped, in 1 file, \d+ s: FAILED \(the failing tests are listed above, under "failing tests"\)$/);
  assert.ok(bad.lines.some((l) => /failing tests:/.test(l)), 'Node lists the failing tests again at the end');
});

test('the unit files share processes: each file is a suite named after it; one that throws as it loads fails under its name, and the files after it in its process still run', () => {
  // Eight files in four processes, two to each: a's hook is a's alone; d shares with c, f with e.
  const r = runTests({
    'a.test.js': "import { beforeEach } from 'node:test';\nbeforeEach(() => { globalThis.hooked = (globalThis.hooked ?? 0) + 1; });\ntest('one', () => {});",
    'b.test.js': "test('a\\'s hook ran for a\\'s test only', () => assert.equal(globalThis.hooked, 1));",
    'c.test.js': "test('three', () => {});",
    'd.test.js': "throw new Error('d cannot load');",
    'e.test.js': "test('four', () => {});",
    'f.test.js': "test('five', () => {});",
    'g.test.js': "test('six', () => {});",
    'h.test.js': "test('after d', () => {});",
  });
  assert.equal(r.status, 1, r.lines.join('\n'));
  assert.match(r.lines.at(-1) ?? '', /^tests: 7 passed, 1 failed, 0 skipped, in 8 files, \d+ s: FAILED/);
  assert.ok(r.lines.some((l) => /^✔ unit\/a\.test\.js \(/.test(l)), r.lines.join('\n'));
  assert.ok(r.lines.some((l) => /^✖ unit\/d\.test\.js \(/.test(l)), r.lines.join('\n'));
  // Where Node lists the failing tests again, each alone, the test's name says the file.
  assert.ok(r.lines.some((l) => /^✖ unit\/d\.test\.js loads \(/.test(l)), r.lines.join('\n'));
  assert.ok(r.lines.some((l) => /^ +Error: d cannot load$/.test(l)), r.lines.join('\n'));
  assert.ok(r.lines.some((l) => /^ {2}✔ after d \(/.test(l)), r.lines.join('\n'));
});

test('a unit test that ends its process (process.exit(0)) fails the run, naming its file, though the process exits 0', () => {
  const r = runTests({
    'a.test.js': "test('one', () => {});",
    'b.test.js': "test('ends it', () => { process.exit(0); });",
  });
  assert.equal(r.status, 1, r.lines.join('\n'));
  assert.match(r.lines.at(-1) ?? '', /FAILED/);
  assert.ok(r.lines.some((l) => l.includes('the unit test process ended before its files had all run, during unit/b.test.js')), r.lines.join('\n'));
});

test('a unit file whose top-level await never settles fails under its name on every Node, not holding the run (Node 24 and 26 keep a pending suite\'s process alive)', () => {
  const r = runTests({
    'a.test.js': "test('one', () => {});",
    'b.test.js': 'await new Promise(() => {});',
  }, { MSGR_TEST_LOAD_SECONDS: '2' });
  assert.equal(r.status, 1, r.lines.join('\n'));
  assert.match(r.lines.at(-1) ?? '', /FAILED/);
  assert.ok(r.lines.some((l) => /✖ unit\/b\.test\.js/.test(l)), r.lines.join('\n'));
});
