// Runs node:test over the transpiled tests in build/test. Node 20 takes no globs after --test,
// so the file list is gathered here. Usage: run-tests.mjs unit|e2e|all|exe [extra node args]
// `exe`: the e2e tests of send, send-bulk, profile, sandbox and completion (every file named so,
// new ones too) and standalone.test.js, against the single executable file: MSGR_TEST_EXE, else
// dist/exe/msgr-<platform>-<arch> as `npm run build:exe` makes it (test/support/cli.ts).
// Node's spec reporter prints each test and, at the end, the failing ones again with their
// errors; the last line is ours: the totals and the time (scripts/test-totals.mjs collects them).
// The unit files share a few processes (shareProcesses() below); the e2e files have one each.
// Processes run three per core: alone, each e2e file spends about half its time waiting (on msgr
// processes, test servers and timers), so two at a time left a core idle. The whole runner on 2
// cores: 197 s at 2 files, 127 s at 4, 107 s at 6 (docs/performance.md, "npm test"). At most 8:
// on Node 20 availableParallelism() counts the host's cores, not a container's CPU quota, and a
// container limited to 2 CPUs on a 64-core host would otherwise start every file at once.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { exeName } from './build/exe.mjs';

const which = process.argv[2] ?? 'all';
/**
 * How many processes share the unit files. The unit files alone on 2 cores, Node 20: one
 * process a file 70 s wall and 132 s of CPU; 1 shared process 65 s and 55 s; 3 31 s and 47 s;
 * 4 30 s and 54 s; 6 39 s and 64 s (docs/performance.md, "npm test").
 */
const UNIT_PROCESSES = 4;
/** How long a unit file may take to load (its top-level awaits) before it fails as FILE loads. */
const LOAD_SECONDS = Number(process.env.MSGR_TEST_LOAD_SECONDS ?? 60);
const dirs = which === 'all' ? ['build/test/unit', 'build/test/e2e'] : which === 'exe' ? ['build/test/e2e'] : [`build/test/${which}`];
const EXE_SET = /^(send|profile|sandbox|completion|standalone)(-[\w-]+)?\.test\.js$/;
function list(dir) {
  let names;
  try { names = readdirSync(dir); } catch { return []; }
  return names.flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? list(p) : n.endsWith('.test.js') && (which !== 'exe' || EXE_SET.test(n)) ? [p] : [];
  });
}
const found = dirs.flatMap(list).sort();
if (found.length === 0) {
  console.error('no test files found under', dirs.join(', '));
  process.exit(1);
}
const env = { ...process.env };
if (which === 'exe') {
  env.MSGR_TEST_EXE = resolve(env.MSGR_TEST_EXE || join('dist', 'exe', exeName()));
  if (!existsSync(env.MSGR_TEST_EXE)) {
    console.error(`run-tests: no single executable file at ${env.MSGR_TEST_EXE}: build it with \`npm run build:exe\` (Node 25.5+), or name one with MSGR_TEST_EXE`);
    process.exit(1);
  }
  console.error(`run-tests: ${found.length} e2e files against ${env.MSGR_TEST_EXE}`);
}
const extra = process.argv.slice(3);
const scratch = mkdtempSync(join(tmpdir(), 'msgr-test-totals-'));
const files = shareProcesses(found, scratch);
const totalsFile = join(scratch, 'totals.json');
const reporters = extra.some((a) => a.startsWith('--test-reporter')) ? [] : ['--test-reporter=spec', '--test-reporter-destination=stdout'];
const started = performance.now();
const res = spawnSync(
  process.execPath,
  ['--test', `--test-concurrency=${Math.min(3 * availableParallelism(), 8)}`, ...reporters, `--test-reporter=${join(import.meta.dirname, 'test-totals.mjs')}`, `--test-reporter-destination=${totalsFile}`, ...extra, ...files],
  { stdio: 'inherit', env },
);
const seconds = Math.round((performance.now() - started) / 1000);
let t;
try {
  t = JSON.parse(readFileSync(totalsFile, 'utf8'));
} catch {
  t = undefined;
}
rmSync(scratch, { recursive: true, force: true });
const count = found.length;
const n = (x) => (x ?? 0).toLocaleString('en-US');
const time = seconds >= 60 ? `${Math.floor(seconds / 60)} min ${seconds % 60} s` : `${seconds} s`;
if (t === undefined || t.tests === undefined) {
  console.log(`\ntests: no totals (the test runner ended with ${res.status ?? res.signal}) after ${time}`);
} else {
  const more = [t.cancelled > 0 ? `${n(t.cancelled)} cancelled` : '', t.todo > 0 ? `${n(t.todo)} todo` : ''].filter(Boolean);
  const verdict = t.fail > 0 || t.cancelled > 0 || res.status !== 0 ? 'FAILED (the failing tests are listed above, under "failing tests")' : 'ok';
  console.log(`\ntests: ${n(t.pass)} passed, ${n(t.fail)} failed, ${n(t.skipped)} skipped${more.length > 0 ? `, ${more.join(', ')}` : ''}, in ${count} file${count === 1 ? '' : 's'}, ${time}: ${verdict}`);
}
process.exit(res.status ?? 1);

/**
 * The unit test files, several to a process. Each test file alone pays for a process and for
 * loading msgr's modules again (~0.85 s of CPU a file on 2 cores); UNIT_PROCESSES processes each
 * import their share of the files, in the order of their paths, so that files of one folder share
 * what they load (scripts/unit-share.mjs: each file a suite named after it; a file that cannot be
 * loaded fails under its name; a process that ends before its files have all run fails). The e2e
 * files keep a process each: they share servers, terminals and signals with the msgr processes
 * they start. One unit file alone, as `node --test` runs it: `node --test build/test/unit/FILE.test.js`.
 */
function shareProcesses(all, dir) {
  const unit = all.filter((f) => f.includes(`${join('build', 'test', 'unit')}/`));
  if (unit.length < 2) return all;
  const k = Math.min(UNIT_PROCESSES, unit.length);
  const shares = Array.from({ length: k }, (_, i) => unit.slice(Math.floor((i * unit.length) / k), Math.floor(((i + 1) * unit.length) / k)));
  const runner = pathToFileURL(join(import.meta.dirname, 'unit-share.mjs')).href;
  const entries = shares.map((share, i) => {
    const entry = join(dir, `unit-files-${i + 1}-of-${k}.test.mjs`);
    const named = share.map((f) => [relative('build/test', f), pathToFileURL(resolve(f)).href]);
    writeFileSync(entry, `import { runShare } from ${JSON.stringify(runner)};\nrunShare(${JSON.stringify(named)}, ${LOAD_SECONDS});\n`);
    return entry;
  });
  return [...entries, ...all.filter((f) => !unit.includes(f))];
}
