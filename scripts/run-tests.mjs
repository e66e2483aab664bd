// Runs node:test over the transpiled tests in build/test. Node 20 takes no globs after --test,
// so the file list is gathered here. Usage: run-tests.mjs unit|e2e|all [extra node args]
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const which = process.argv[2] ?? 'all';
const dirs = which === 'all' ? ['build/test/unit', 'build/test/e2e'] : [`build/test/${which}`];
function list(dir) {
  let names;
  try { names = readdirSync(dir); } catch { return []; }
  return names.flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? list(p) : n.endsWith('.test.js') ? [p] : [];
  });
}
const files = dirs.flatMap(list).sort();
if (files.length === 0) {
  console.error('no test files found under', dirs.join(', '));
  process.exit(1);
}
const res = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...files], { stdio: 'inherit' });
process.exit(res.status ?? 1);
