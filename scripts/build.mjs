// Builds the CLI bundle (dist/) and, with --tests, a plain transpile of src/ and test/ into
// build/ for the test runner. The bundle uses code splitting so each command's dependencies
// load only when that command runs (engineering-notes: start-up).
import { build } from 'esbuild';
import { readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

const withTests = process.argv.includes('--tests');
const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
const define = { __MSGR_VERSION__: JSON.stringify(version) };

function listTs(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listTs(p));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints: ['src/main.ts'],
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunks/[name]-[hash]',
  // Bundled CommonJS dependencies (commander, undici) call require(); ESM has none.
  banner: { js: "import { createRequire as __msgrCreateRequire } from 'node:module'; const require = __msgrCreateRequire(import.meta.url);" },
  logLevel: 'warning',
  legalComments: 'none',
  define,
});

if (withTests) {
  rmSync('build', { recursive: true, force: true });
  await build({
    entryPoints: [...listTs('src'), ...listTs('test')],
    outdir: 'build',
    outbase: '.',
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    define,
    logLevel: 'warning',
  });
}
