// `npm test`: type-check, then lint beside the build and the tests, then the one line of totals.
// The type-check goes first and alone: when the types are wrong the tests say little. Lint is
// type-aware (typescript-eslint), about a third of the suite's CPU outside the tests, and the
// test runner leaves a core idle a quarter of the time (spawned msgr processes waiting on
// servers and timers), so lint runs in that idle time; its errors are printed after the tests,
// and a lint failure fails `npm test` as before. Figures: docs/performance.md, "npm test".
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const run = (cmd, args) => spawnSync(cmd, args, { cwd: root, stdio: 'inherit' }).status ?? 1;

console.log('> tsc --noEmit -p tsconfig.json');
if (run(bin('tsc'), ['--noEmit', '-p', 'tsconfig.json']) !== 0) process.exit(1);

const lintOut = [];
const lint = spawn(bin('eslint'), ['--max-warnings', '0', 'src', 'test', 'bench', 'scripts'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
lint.stdout.on('data', (b) => lintOut.push(b));
lint.stderr.on('data', (b) => lintOut.push(b));
const linted = new Promise((resolve) => {
  lint.on('error', (err) => resolve({ code: 1, error: err }));
  lint.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0) }));
});

// The tests run asynchronously so that lint's verdict is printed when lint ends; when it passes
// the last line is still the tests' totals.
const runAsync = (args) => new Promise((resolve) => {
  const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit' });
  child.on('close', (code) => resolve(code ?? 1));
});
linted.then((l) => { if (l.code === 0) console.log('lint: ok (eslint, beside the tests)'); });
const built = run(process.execPath, [join(root, 'scripts', 'build.mjs'), '--tests']);
const tested = built === 0 ? await runAsync([join(root, 'scripts', 'run-tests.mjs'), 'all']) : built;

const l = await linted;
if (l.code === 0) process.exit(tested);
const text = Buffer.concat(lintOut).toString('utf8').trim();
console.log(l.error !== undefined ? `\nlint: eslint did not run: ${l.error.message}` : `\nlint: FAILED\n${text}`);
process.exit(1);
