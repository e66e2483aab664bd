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
import { createHash } from 'node:crypto';
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

// libphonenumber-js's metadata (the `max` set, ~160 KB of JSON for ~250 countries) as a module
// that parses one country's plan when it is first read: a send to one country never parses, nor
// even compiles as JavaScript, the other 249. The plans are in a data file beside the bundle
// (vendor/phone-metadata.data, ASCII, read in one call); the module holds where each one is.
// The object has the same keys and values in the same order (test/e2e/install-layout.test.ts).
function splitMetadata(json) {
  if (/[^\x20-\x7e\n]/.test(json)) throw new Error('build: libphonenumber-js metadata is no longer plain ASCII; phone-metadata.data assumes it');
  const meta = JSON.parse(json);
  let data = '';
  const index = {};
  for (const [code, plan] of Object.entries(meta.countries)) {
    const text = JSON.stringify(plan);
    index[code] = [data.length, data.length + text.length];
    data += `${text}\n`;
  }
  const fields = Object.entries(meta).map(([key, value]) => key === 'countries'
    ? `${JSON.stringify(key)}: lazyCountries(JSON.parse(${JSON.stringify(JSON.stringify(index))}))`
    : `${JSON.stringify(key)}: JSON.parse(${JSON.stringify(JSON.stringify(value))})`);
  // A Proxy over the index rather than a getter per country: defining 245 accessors costs more
  // (~0.7 ms) than everything else here. Each entry becomes its plan when first read.
  const module = `const data = require('node:fs').readFileSync(require('node:path').join(__dirname, 'phone-metadata.data'), 'utf8');
function lazyCountries(index) {
  const pending = new Set(Object.keys(index));
  const parse = (target, key) => {
    if (pending.delete(key)) {
      const [start, end] = target[key];
      target[key] = JSON.parse(data.slice(start, end));
    }
  };
  return new Proxy(index, {
    get(target, key) {
      parse(target, key);
      return target[key];
    },
    getOwnPropertyDescriptor(target, key) {
      parse(target, key);
      return Reflect.getOwnPropertyDescriptor(target, key);
    },
  });
}
module.exports = {\n${fields.join(',\n')}\n};\n`;
  return { module, data };
}
const phoneMetadata = splitMetadata(readFileSync('node_modules/libphonenumber-js/metadata.max.json', 'utf8'));
// The metadata bundle is that module; libphonenumber-js's own bundle requires it rather than
// carrying a second copy.
const metadataModule = {
  name: 'metadata-module',
  setup(b) {
    b.onLoad({ filter: /libphonenumber-js[\\/]metadata\.max\.json$/ }, () => ({ contents: phoneMetadata.module, loader: 'js' }));
  },
};
const metadataExternal = {
  name: 'metadata-external',
  setup(b) {
    b.onResolve({ filter: /metadata\.max\.json(\.js)?$/ }, () => ({ path: './phone-metadata.cjs', external: true }));
  },
};

// undici loads at start-up what a single HTTP/1.1 request never uses: node:http2 (8 ms on Node 20)
// for a protocol msgr does not negotiate, and node:assert (2.6 ms) for checks that only fail on a
// bug. Both are loaded when first needed instead; a failing assert(value) still throws the real
// AssertionError, and any other assert.* is the real one.
const undiciLazy = {
  name: 'undici-lazy-builtins',
  setup(b) {
    b.onLoad({ filter: /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const eager = "const connectH2 = require('./client-h2.js')";
      if (!source.includes(eager)) throw new Error(`build: undici changed: no \`${eager}\` in ${args.path}`);
      return { contents: source.replace(eager, "let connectH2Module\nconst connectH2 = (...args) => (connectH2Module ??= require('./client-h2.js'))(...args)"), loader: 'js' };
    });
    b.onResolve({ filter: /^node:assert$/ }, (args) => (args.importer.includes('node_modules') ? { path: 'lazy-assert', namespace: 'undici-lazy' } : undefined));
    b.onLoad({ filter: /^lazy-assert$/, namespace: 'undici-lazy' }, () => ({
      contents: `let real;
const load = () => (real ??= require('node:assert'));
function assert(value, message) {
  if (!value) load()(value, message);
}
module.exports = new Proxy(assert, { get: (target, key) => (key === 'prototype' || key === 'length' || key === 'name' ? target[key] : load()[key]) });`,
      loader: 'js',
    }));
  },
};

// The third-party bundles. `imports`: the specifiers our code uses for it. `entry`: what the bundle
// exports: a package used through named imports exports its namespace; one used through its
// default export exports that value itself as module.exports (what Node's interop, which esbuild
// follows for our "type": "module" sources, reads as the default).
const VENDORS = [
  { name: 'phone-metadata', imports: ['libphonenumber-js/max/metadata'], entry: "module.exports = require('libphonenumber-js/max/metadata');", plugins: [metadataModule] },
  // libphonenumber-js reads the same metadata object, not a second copy.
  { name: 'phone', imports: ['libphonenumber-js/max'], entry: "export * from 'libphonenumber-js/max';", plugins: [metadataExternal] },
  { name: 'csv-parse', imports: ['csv-parse'], entry: "export * from 'csv-parse';" },
  { name: 'zod', imports: ['zod'], entry: "export * from 'zod';" },
  { name: 'chalk', imports: ['chalk'], entry: "export * from 'chalk';" },
  { name: 'ora', imports: ['ora'], entry: "module.exports = require('ora').default;" },
  { name: 'conf', imports: ['conf'], entry: "module.exports = require('conf').default;" },
  // Our own wrapper of undici's internals (it has no state of ours), bundled with undici.
  { name: 'undici', own: 'src/http/undici.ts', plugins: [undiciLazy] },
];
const OWN = new Map(VENDORS.filter((v) => v.own !== undefined).map((v) => [resolve(v.own), v.name]));
const BY_IMPORT = new Map(VENDORS.flatMap((v) => (v.imports ?? []).map((i) => [i, v.name])));

/**
 * Resolves our code's imports of third-party packages to the vendor bundles. A bundle used through
 * named imports is required when our code first reads one of its exports, not when the module that
 * imports it is initialised: esbuild reads named imports as properties at each use, and the stand-in
 * module below has a getter per export (names listed from the built bundle). So `send` loads
 * libphonenumber-js only for a number the fast path cannot answer, and zod only where it is used.
 * A bundle whose module.exports is a default export (ora, conf, the metadata) is required as is.
 */
function vendorExternals(prefix, exportNames) {
  return {
    name: 'vendor-externals',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        if (args.namespace === 'vendor') return { path: args.path, external: true };
        const bundle = BY_IMPORT.get(args.path) ?? (args.path.startsWith('.') ? OWN.get(resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts')) : undefined);
        if (bundle !== undefined) return { path: `${prefix}${bundle}.cjs`, namespace: 'vendor', pluginData: { bundle } };
        if (!args.path.startsWith('.') && !args.path.startsWith('node:') && args.path !== 'commander' && !args.importer.includes('node_modules')) {
          // A package our code imports that has no vendor bundle yet: add it to VENDORS.
          return { errors: [{ text: `${args.path}: third-party import without a vendor bundle (scripts/build.mjs VENDORS)` }] };
        }
        return undefined;
      });
      b.onLoad({ filter: /.*/, namespace: 'vendor' }, (args) => {
        const names = exportNames[args.pluginData.bundle];
        const path = JSON.stringify(args.path);
        const contents = names === undefined
          ? `module.exports = require(${path});`
          : `let loaded;\nconst load = () => (loaded ??= require(${path}));\nfor (const name of ${JSON.stringify(names)}) Object.defineProperty(exports, name, { enumerable: true, get: () => load()[name] });`;
        return { contents, loader: 'js', resolveDir: process.cwd() };
      });
    },
  };
}

// commander requires child_process at load for executable subcommands, which msgr has none of;
// Node then compiles net, dgram, streams and more on every run. Required when first used instead.
const lazyChildProcess = {
  name: 'commander-lazy-child-process',
  setup(b) {
    b.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const eager = "const childProcess = require('node:child_process');";
      if (!source.includes(eager)) throw new Error(`build: commander changed: no \`${eager}\` in ${args.path}`);
      return { contents: source.replace(eager, "const childProcess = { get spawn() { return require('node:child_process').spawn; } };"), loader: 'js' };
    });
  },
};

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
// A failed build leaves no scratch folder behind (after a good one there is nothing left to remove).
process.on('exit', () => rmSync(next, { recursive: true, force: true }));

for (const v of VENDORS) {
  await build({
    ...common,
    ...(v.own !== undefined ? { entryPoints: [v.own] } : { stdin: { contents: v.entry, resolveDir: process.cwd(), loader: 'js', sourcefile: `vendor-${v.name}.js` } }),
    outfile: `${next}/vendor/${v.name}.cjs`,
    plugins: v.plugins ?? [],
  });
}

// The bundles bin/msgr.js keeps code caches for start with their build id (it names caches by
// it; an unstamped bundle is never cached). Not the metadata module: it is a few JSON.parse calls,
// which V8 compiles faster than it reads a cache. Not the workers: Node loads those itself.
function stampBuildId(file) {
  const code = readFileSync(file, 'utf8');
  writeFileSync(file, `//# msgr-build ${createHash('sha256').update(code).digest('hex').slice(0, 16)}\n${code}`);
}

writeFileSync(`${next}/vendor/phone-metadata.data`, phoneMetadata.data);

// Each vendor bundle must export what our code reads from it (a wrong interop shape would only
// show when that code path runs); the named exports of each are listed for vendorExternals().
const probe = JSON.parse(execFileSync(process.execPath, ['-e', `
  const d = ${JSON.stringify(resolve(next))} + '/vendor/';
  const r = (n) => require(d + n + '.cjs');
  const names = {};
  for (const n of ${JSON.stringify(VENDORS.map((v) => v.name))}) {
    const m = r(n);
    if (m !== null && typeof m === 'object' && m.__esModule === true) names[n] = Object.keys(m).filter((k) => k !== '__esModule');
  }
  console.log(JSON.stringify({ names, shapes: {
    metadata: typeof r('phone-metadata').countries,
    phone: typeof r('phone').parsePhoneNumberFromString,
    csv: typeof r('csv-parse').Parser,
    zod: typeof r('zod').z.object,
    chalk: typeof r('chalk').Chalk,
    ora: typeof r('ora'),
    conf: typeof r('conf'),
    undici: typeof r('undici').Agent,
  } }));`], { encoding: 'utf8' }));
const shapes = probe.shapes;
const wrong = Object.entries({ metadata: 'object', phone: 'function', csv: 'function', zod: 'function', chalk: 'function', ora: 'function', conf: 'function', undici: 'function' })
  .filter(([k, want]) => shapes[k] !== want);
if (wrong.length > 0) throw new Error(`build: vendor bundles export the wrong shape: ${wrong.map(([k]) => `${k} is ${shapes[k]}`).join(', ')}`);

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
  plugins: [vendorExternals('./vendor/', probe.names), lazyChildProcess],
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
    plugins: [vendorExternals('../vendor/', probe.names)],
  });
}

stampBuildId(`${next}/msgr.cjs`);
for (const v of VENDORS) if (v.name !== 'phone-metadata') stampBuildId(`${next}/vendor/${v.name}.cjs`);

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
  const msg = ['--to', '+447911123456,+447700900123', '--from', 'Acme', '--text', 'Hello'];
  try {
    for (const args of [['send', '--dry-run', ...msg, '--account', 'BUILD'], ['send', '--sandbox', ...msg]]) {
      try {
        execFileSync(process.execPath, ['bin/msgr.js', ...args], { env, stdio: 'ignore', timeout: 30_000 });
      } catch (err) {
        // The caches only make start-up faster; a machine where a sample run fails still gets a
        // working msgr (and the tests will say why the run failed).
        console.warn(`build: no code cache from \`msgr ${args.join(' ')}\`: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (withTests) {
  const nextBuild = `build.next-${process.pid}`;
  rmSync(nextBuild, { recursive: true, force: true });
  process.on('exit', () => rmSync(nextBuild, { recursive: true, force: true }));
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
