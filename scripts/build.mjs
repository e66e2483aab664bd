// Builds the CLI bundle (dist/) and, with --tests, a plain transpile of src/ and test/ into
// build/ for the test runner. The bundle uses code splitting so each command's dependencies
// load only when that command runs (engineering-notes: start-up).
import { execFileSync } from 'node:child_process';
import { build } from 'esbuild';
import { existsSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

// libphonenumber-js ships its 157 KB metadata as a JavaScript object literal; V8 parses the same
// data as a JSON string several times faster, and every send pays for it at start-up.
const jsonMetadata = {
  name: 'json-metadata',
  setup(b) {
    b.onLoad({ filter: /libphonenumber-js[\\/]metadata\.[a-z]+\.json\.js$/ }, (args) => {
      const json = readFileSync(args.path.replace(/\.js$/, ''), 'utf8');
      JSON.parse(json); // fail the build, not the user, if the file is ever not JSON
      return { contents: `export default JSON.parse(${JSON.stringify(json)});`, loader: 'js' };
    });
  },
};

// Written beside dist/ and swapped in at the end, so a msgr that runs during a rebuild (another
// terminal, a test run) finds either the old bundle or the new one, never half of one.
const next = `dist.next-${process.pid}`;
rmSync(next, { recursive: true, force: true });
// Worker threads' code (src/workers/*.ts) is built as entries of their own: dist/workers/<name>.js.
const workers = existsSync('src/workers') ? listTs('src/workers') : [];
await build({
  entryPoints: ['src/main.ts', ...workers],
  outdir: next,
  outbase: 'src',
  entryNames: '[dir]/[name]',
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
  plugins: [jsonMetadata],
});

// The top-level help, rendered once by the real program (80 columns, no colour) so that
// bin/msgr.js can print it without loading the bundle.
const help = execFileSync(process.execPath, ['--input-type=module', '-e', `const { buildProgram } = await import('./${next}/main.js'); const out = []; const p = buildProgram({ stdout: { write: (s) => out.push(s) }, stderr: { write: () => true }, env: {}, argv: [] }); p.outputHelp(); process.stdout.write(out.join(''));`], { encoding: 'utf8' });
if (!help.includes('Exit codes:')) throw new Error('build: the rendered help lacks the exit codes');
writeFileSync(`${next}/help.txt`, help);
const old = `dist.old-${process.pid}`;
if (existsSync('dist')) renameSync('dist', old);
renameSync(next, 'dist');
rmSync(old, { recursive: true, force: true });

if (withTests) {
  const nextBuild = `build.next-${process.pid}`;
  rmSync(nextBuild, { recursive: true, force: true });
  await build({
    entryPoints: [...listTs('src'), ...listTs('test')],
    outdir: nextBuild,
    outbase: '.',
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    define,
    logLevel: 'warning',
  });
  const oldBuild = `build.old-${process.pid}`;
  if (existsSync('build')) renameSync('build', oldBuild);
  renameSync(nextBuild, 'build');
  rmSync(oldBuild, { recursive: true, force: true });
}
