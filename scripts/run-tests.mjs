// Runs node:test over the transpiled tests in build/test. Node 20 takes no globs after --test,
// so the file list is gathered here. Usage: run-tests.mjs unit|e2e|all|exe
// `exe`: the e2e tests of send, send-bulk, profile, sandbox and completion (every file named so,
// new ones too) and standalone.test.js, against the single executable file: MSGR_TEST_EXE, else
// dist/exe/msgr-<platform>-<arch> as `npm run build:exe` makes it (test/support/cli.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { exeName } from './build/exe.mjs';

const which = process.argv[2] ?? 'all';
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
const files = dirs.flatMap(list).sort();
if (files.length === 0) {
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
  console.error(`run-tests: ${files.length} e2e files against ${env.MSGR_TEST_EXE}`);
}
const res = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...files], { stdio: 'inherit', env });
process.exit(res.status ?? 1);
