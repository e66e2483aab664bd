// Builds the CLI bundle (dist/) and, with --tests, a plain transpile of src/ and test/ into
// build/ for the test runner. The bundle uses code splitting so each command's dependencies
// load only when that command runs (engineering-notes: start-up).
import { execFileSync } from 'node:child_process';
import { build } from 'esbuild';
import { readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
  plugins: [jsonMetadata],
});

// The top-level help, rendered once by the real program (80 columns, no colour) so that
// bin/msgr.js can print it without loading the bundle.
const help = execFileSync(process.execPath, ['--input-type=module', '-e', "const { buildProgram } = await import('./dist/main.js'); const out = []; const p = buildProgram({ stdout: { write: (s) => out.push(s) }, stderr: { write: () => true }, env: {}, argv: [] }); p.outputHelp(); process.stdout.write(out.join(''));"], { encoding: 'utf8' });
if (!help.includes('Exit codes:')) throw new Error('build: the rendered help lacks the exit codes');
writeFileSync('dist/help.txt', help);

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
