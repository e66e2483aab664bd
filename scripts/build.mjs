// Builds the CLI (dist/) and, with --tests, a plain transpile of src/ and test/ into build/ for the
// test runner.
//
// dist/ is CommonJS, laid out for start-up time (issue 5; measured in bench/run.mjs):
//   msgr.cjs            our code and commander. Each command's modules are initialised only when
//                       that command runs (esbuild turns `await import()` into lazy inits).
//   vendor/<name>.cjs   each third-party package in a bundle of its own, loaded on first use, so
//                       `send --dry-run` never compiles undici and `send` never compiles zod.
//   workers/<name>.cjs  worker threads' code (src/workers/*.ts).
//   cache/*.bin         V8 code caches for Node 20, which has no compile cache of its own: the
//                       build runs msgr on sample commands and keeps the compiled code, and
//                       bin/msgr.js hands it back to V8 (vm.Script cachedData). V8 refuses a cache
//                       from another version or other flags, and then compiles as usual.
//   help.txt            the top-level help, printed by bin/msgr.js without loading anything.
// CommonJS rather than split ES modules: Node 20 pays ~0.7 ms per ES module it links, and code
// caches can only be handed to V8 for scripts.
import { execFileSync } from 'node:child_process';
import { build } from 'esbuild';
import { existsSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

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

// libphonenumber-js ships its metadata as a JavaScript object literal (and as plain JSON for
// require()); V8 parses the same data as a JSON string several times faster.
const jsonMetadata = {
  name: 'json-metadata',
  setup(b) {
    b.onLoad({ filter: /libphonenumber-js[\\/]metadata\.[a-z]+\.json(\.js)?$/ }, (args) => {
      const json = readFileSync(args.path.replace(/\.js$/, ''), 'utf8');
      JSON.parse(json); // fail the build, not the user, if the file is ever not JSON
      const esm = args.path.endsWith('.js');
      return { contents: `${esm ? 'export default' : 'module.exports ='} JSON.parse(${JSON.stringify(json)});`, loader: 'js' };
    });
  },
};

// The third-party bundles. `imports`: the specifiers our code uses for it. `entry`: what the bundle
// exports: a package used through named imports exports its namespace; one used through its
// default export exports that value itself as module.exports (what Node's interop, which esbuild
// follows for our "type": "module" sources, reads as the default).
const VENDORS = [
  { name: 'phone-metadata', imports: ['libphonenumber-js/max/metadata'], entry: "module.exports = require('libphonenumber-js/max/metadata');" },
  // libphonenumber-js reads the same metadata object, not a second copy.
  { name: 'phone', imports: ['libphonenumber-js/max'], entry: "export * from 'libphonenumber-js/max';", metadataExternal: true },
  { name: 'csv-parse', imports: ['csv-parse'], entry: "export * from 'csv-parse';" },
  { name: 'zod', imports: ['zod'], entry: "export * from 'zod';" },
  { name: 'chalk', imports: ['chalk'], entry: "export * from 'chalk';" },
  { name: 'ora', imports: ['ora'], entry: "module.exports = require('ora').default;" },
  { name: 'conf', imports: ['conf'], entry: "module.exports = require('conf').default;" },
  // Our own wrapper of undici's internals (it has no state of ours), bundled with undici.
  { name: 'undici', own: 'src/http/undici.ts' },
];
const OWN = new Map(VENDORS.filter((v) => v.own !== undefined).map((v) => [resolve(v.own), v.name]));
const BY_IMPORT = new Map(VENDORS.flatMap((v) => (v.imports ?? []).map((i) => [i, v.name])));

/** Resolves our code's imports of third-party packages to the vendor bundles, as externals. */
function vendorExternals(prefix) {
  return {
    name: 'vendor-externals',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        const bundle = BY_IMPORT.get(args.path);
        if (bundle !== undefined) return { path: `${prefix}${bundle}.cjs`, external: true };
        if (args.path.startsWith('.')) {
          const own = OWN.get(resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts'));
          if (own !== undefined) return { path: `${prefix}${own}.cjs`, external: true };
        } else if (!args.path.startsWith('node:') && args.path !== 'commander' && !args.importer.includes('node_modules')) {
          // A package our code imports that has no vendor bundle yet: add it to VENDORS.
          return { errors: [{ text: `${args.path}: third-party import without a vendor bundle (scripts/build.mjs VENDORS)` }] };
        }
        return undefined;
      });
    },
  };
}

const common = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // Dynamic import() of a bundle becomes a lazy require(): no ES module loader at all.
  supported: { 'dynamic-import': false },
  logLevel: 'warning',
  legalComments: 'none',
  define,
};

// Written beside dist/ and swapped in at the end, so a msgr that runs during a rebuild (another
// terminal, a test run) finds either the old bundle or the new one, never half of one.
const next = `dist.next-${process.pid}`;
rmSync(next, { recursive: true, force: true });

for (const v of VENDORS) {
  const metadataExternal = {
    name: 'metadata-external',
    setup(b) {
      b.onResolve({ filter: /metadata\.max\.json(\.js)?$/ }, () => ({ path: './phone-metadata.cjs', external: true }));
    },
  };
  await build({
    ...common,
    ...(v.own !== undefined ? { entryPoints: [v.own] } : { stdin: { contents: v.entry, resolveDir: process.cwd(), loader: 'js', sourcefile: `vendor-${v.name}.js` } }),
    outfile: `${next}/vendor/${v.name}.cjs`,
    plugins: v.metadataExternal === true ? [metadataExternal] : [jsonMetadata],
  });
}

// Worker threads find their file with workerPath() (src/runtime/worker-path.ts).
// import.meta.url, for the one module that reads it outside the bundle, is the bundle's own URL.
const workerFile = "function __msgrWorkerFile(name) { return require('node:path').join(__dirname, 'workers', name + '.cjs'); }\nvar __msgrImportMeta = { get url() { return require('node:url').pathToFileURL(__filename).href; } };";
const ownDefine = { ...define, __MSGR_WORKER_FILE__: '__msgrWorkerFile', 'import.meta': '__msgrImportMeta' };
await build({
  ...common,
  entryPoints: ['src/main.ts'],
  outfile: `${next}/msgr.cjs`,
  banner: { js: workerFile },
  define: ownDefine,
  plugins: [vendorExternals('./vendor/')],
});
const workers = existsSync('src/workers') ? listTs('src/workers') : [];
if (workers.length > 0) {
  await build({
    ...common,
    entryPoints: workers,
    outdir: `${next}/workers`,
    outExtension: { '.js': '.cjs' },
    banner: { js: workerFile.replace("'workers', ", '') },
    define: ownDefine,
    plugins: [vendorExternals('../vendor/')],
  });
}

// Each vendor bundle must export what our code reads from it (a wrong interop shape would only
// show when that code path runs).
const shapes = JSON.parse(execFileSync(process.execPath, ['-e', `
  const d = ${JSON.stringify(resolve(next))} + '/vendor/';
  const r = (n) => require(d + n + '.cjs');
  console.log(JSON.stringify({
    metadata: typeof r('phone-metadata').countries,
    phone: typeof r('phone').parsePhoneNumberFromString,
    csv: typeof r('csv-parse').Parser,
    zod: typeof r('zod').z.object,
    chalk: typeof r('chalk').Chalk,
    ora: typeof r('ora'),
    conf: typeof r('conf'),
    undici: typeof r('undici').Agent,
  }));`], { encoding: 'utf8' }));
const wrong = Object.entries({ metadata: 'object', phone: 'function', csv: 'function', zod: 'function', chalk: 'function', ora: 'function', conf: 'function', undici: 'function' })
  .filter(([k, want]) => shapes[k] !== want);
if (wrong.length > 0) throw new Error(`build: vendor bundles export the wrong shape: ${wrong.map(([k]) => `${k} is ${shapes[k]}`).join(', ')}`);

// The top-level help, rendered once by the real program (80 columns, no colour) so that
// bin/msgr.js can print it without loading the bundle.
const help = execFileSync(process.execPath, ['-e', `const { buildProgram } = require(${JSON.stringify(resolve(next, 'msgr.cjs'))}); const out = []; const p = buildProgram({ stdout: { write: (s) => out.push(s) }, stderr: { write: () => true }, env: {}, argv: [] }); p.outputHelp(); process.stdout.write(out.join(''));`], { encoding: 'utf8' });
if (!help.includes('Exit codes:')) throw new Error('build: the rendered help lacks the exit codes');
writeFileSync(`${next}/help.txt`, help);
const old = `dist.old-${process.pid}`;
if (existsSync('dist')) renameSync('dist', old);
renameSync(next, 'dist');
rmSync(old, { recursive: true, force: true });

// Code caches (Node 20; see the top). Sample runs, in a scratch config folder, with no NODE_* or
// MSGR_* settings of the builder's: a dry run (the bundle, libphonenumber, chalk), then an
// in-process sandbox send (undici, which a send loads after choosing its V8 flags).
if (typeof (await import('node:module')).default.enableCompileCache !== 'function') {
  const scratch = mkdtempSync(join(tmpdir(), 'msgr-build-'));
  const env = { PATH: process.env.PATH ?? '', HOME: scratch, MSGR_CONFIG_DIR: join(scratch, 'config'), NO_COLOR: '1', MSGR_WRITE_CODE_CACHE: '1' };
  const msg = ['--to', '+447700900123', '--from', 'Acme', '--text', 'Hello'];
  try {
    for (const args of [['send', '--dry-run', ...msg, '--account', 'BUILD'], ['send', '--sandbox', ...msg]]) {
      execFileSync(process.execPath, ['bin/msgr.js', ...args], { env, stdio: 'ignore', timeout: 30_000 });
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

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
