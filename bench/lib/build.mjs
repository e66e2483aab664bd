// The build: dist/ is rebuilt when it is older than its sources or has no code caches for the
// Node that runs the bench (--build / --no-build force or skip it).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { NODE, ROOT, opt } from './config.mjs';
import { note } from './results.mjs';

function newestMtime(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const name of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, name)));
  return newest;
}

export function ensureBuilt() {
  const main = join(ROOT, 'dist', 'msgr.cjs');
  const built = existsSync(main) ? statSync(main).mtimeMs : 0;
  const sources = Math.max(newestMtime(join(ROOT, 'src')), newestMtime(join(ROOT, 'scripts')), newestMtime(join(ROOT, 'bin')), statSync(join(ROOT, 'package.json')).mtimeMs);
  // The build makes V8 code caches for the Node that runs it only (docs/performance.md): a
  // dist/ built by another Node is measured without them, so it counts as stale here.
  const caches = existsSync(join(ROOT, 'dist', 'cache')) ? readdirSync(join(ROOT, 'dist', 'cache')) : [];
  const stale = built < sources || !caches.includes(`v8-${process.versions.v8}`);
  if (opt['no-build'] === true) {
    if (built === 0) throw new Error('dist/msgr.cjs is missing and --no-build was given: run npm run build');
    if (stale) note('dist/ is older than src/ (--no-build): measuring the existing bundle');
    return;
  }
  if (!stale && opt.build !== true) {
    console.error('bench: dist/ is up to date');
    return;
  }
  // With this Node, not npm's (PATH's), which may be another version.
  console.error(`bench: node scripts/build.mjs (Node ${process.versions.node})`);
  const r = spawnSync(NODE, ['scripts/build.mjs'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) {
    if (built === 0) throw new Error('the build failed and there is no dist/ to measure');
    note('the build failed (work in progress elsewhere in the tree?): measuring the previous dist/');
  }
}
