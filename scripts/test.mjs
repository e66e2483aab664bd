// `npm test`: the type-check and lint beside the build and the tests; the tests' line of totals,
// then the verdicts of the type-check and lint. The tests wait on msgr processes, servers and
// timers for much of their time, and the type-check (tsc, ~12 s of CPU) and lint (type-aware
// typescript-eslint, ~34 s) run in that time instead of before the tests: on 2 cores that took 7 s and 23 s off the wall
// time (docs/performance.md, "npm test"). Their errors are printed after the tests' report, and
// either failing fails `npm test` as before; the tests run from esbuild's output, which does not
// type-check, so a type error never stops them. The trade: a type error is reported after the
// suite (~2 min), not before it; `npm run typecheck` alone takes seconds.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);

/** A check run beside the tests: its output kept for after them. */
function beside(name, cmd, args) {
  const out = [];
  const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (b) => out.push(b));
  child.stderr.on('data', (b) => out.push(b));
  const done = new Promise((resolve) => {
    child.on('error', (err) => resolve({ code: 1, error: err }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0) }));
  });
  return done.then((r) => ({ name, ...r, text: Buffer.concat(out).toString('utf8').trim() }));
}

const checks = [
  beside('typecheck (tsc --noEmit)', bin('tsc'), ['--noEmit', '-p', 'tsconfig.json']),
  beside('lint (eslint)', bin('eslint'), ['--max-warnings', '0', 'src', 'test', 'bench', 'scripts']),
];

const runAsync = (args) => new Promise((resolve) => {
  const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit' });
  child.on('close', (code) => resolve(code ?? 1));
});
const built = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--tests'], { cwd: root, stdio: 'inherit' }).status ?? 1;
const tested = built === 0 ? await runAsync([join(root, 'scripts', 'run-tests.mjs'), 'all']) : built;

let failed = tested !== 0;
for (const c of await Promise.all(checks)) {
  if (c.code === 0) {
    console.log(`${c.name}: ok`);
    continue;
  }
  failed = true;
  console.log(c.error !== undefined ? `\n${c.name}: did not run: ${c.error.message}` : `\n${c.name}: FAILED\n${c.text}`);
}
process.exit(failed ? 1 : 0);
