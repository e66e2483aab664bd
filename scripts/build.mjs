// Builds the CLI (dist/) and, with --tests, a plain transpile of src/ and test/ into build/ for the
// test runner. `--out DIR` builds into another dist folder (the bench's variants).
//
// dist/ is CommonJS, laid out for start-up time (docs/performance.md):
//   msgr.cjs            our code and commander. Each command's modules are initialised only when
//                       that command runs (esbuild turns `await import()` into lazy inits). With
//                       the send-first trick, what only a send's flags or the other commands load
//                       is in send-flags.cjs and commands.cjs (build/send-first.mjs).
//   vendor/<name>.cjs   each third-party package in a bundle of its own (build/vendors.mjs).
//   workers/<name>.cjs  worker threads' code (src/workers/*.ts).
//   help.txt            the top-level help, printed by bin/msgr.js without loading anything.
//   cache/v8-<ver>/     V8 code caches where they pay (build/code-cache.mjs).
//   exe/                with --exe (`npm run build:exe`, Node 25.5+): the single executable file
//                       msgr-<platform>-<arch> and its .sha256 (build/exe.mjs).
// Each start-up trick can be switched for the bench: MSGR_BUILD_TRICKS=name=on|off,...
// (build/tricks.mjs).
import { execFileSync } from 'node:child_process';
import { build } from 'esbuild';
import { existsSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { makeCodeCaches, stampBuildId } from './build/code-cache.mjs';
import { readHelpTopics } from './build/help-topics.mjs';
import { buildExe, exeNodeProblem } from './build/exe.mjs';
import { chosenTricks } from './build/tricks.mjs';
import { probeVendors, vendorExternals, vendorTable } from './build/vendors.mjs';
import { buildSendFirst } from './build/send-first.mjs';

const tricks = chosenTricks();
const withTests = process.argv.includes('--tests');
const withExe = process.argv.includes('--exe');
// Before anything is built: an older Node cannot make the binary, and says what to run instead.
if (withExe && exeNodeProblem() !== undefined) {
  console.error(exeNodeProblem());
  process.exit(1);
}
const outIndex = process.argv.indexOf('--out');
const dist = outIndex > 0 ? resolve(process.argv[outIndex + 1]) : resolve('dist');
const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
// The help topics written as docs pages (docs/help/*.md), for `msgr help <topic>`.
const define = { __MSGR_VERSION__: JSON.stringify(version), __MSGR_HELP_TOPICS__: JSON.stringify(readHelpTopics()) };
// liftoff-only is decided at run time by the Node that runs msgr (a package built on one Node
// runs on another), unless MSGR_BUILD_TRICKS names it, as the bench does to time it off and on.
const liftoffForced = /(^|,)liftoff-only=/.test(process.env.MSGR_BUILD_TRICKS ?? '');
const bundleDefine = { ...define, __MSGR_LIFTOFF_ONLY__: liftoffForced ? String(tricks['liftoff-only']) : 'undefined' };

function listTs(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listTs(p));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Rewrites the characters of `file` beyond ASCII as \uXXXX escapes (see its caller). */
function asciiOnly(file) {
  const code = readFileSync(file, 'utf8');
  const beyond = /[\u0080-\uffff]/g;
  if (!beyond.test(code)) return;
  writeFileSync(file, code.replace(beyond, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

/** Builds into a scratch folder beside `target`, then swaps it in whole, so a msgr that runs
 * during a rebuild (another terminal, a test run) finds the old files or the new, never half. */
async function swapIn(target, fill) {
  const next = `${target}.next-${process.pid}`;
  rmSync(next, { recursive: true, force: true });
  // A failed build leaves no scratch folder behind.
  process.on('exit', () => rmSync(next, { recursive: true, force: true }));
  await fill(next);
  const old = `${target}.old-${process.pid}`;
  if (existsSync(target)) renameSync(target, old);
  renameSync(next, target);
  rmSync(old, { recursive: true, force: true });
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
  // No comments or indentation (names stay, for stack traces with --verbose): dist/msgr.cjs is
  // 454 KB instead of 619 KB and plain ASCII, which Node reads into a one-byte string; with one
  // non-ASCII character in a comment it is a two-byte one. Reading it: ~0.8 ms instead of ~2.3 ms.
  minifyWhitespace: true,
  define: bundleDefine,
};
// Worker threads start through startWorker() (src/runtime/worker.ts): from dist/workers/<name>.cjs,
// or, in the single executable file, from the source the binary carries: its loader (bin/sea.cjs)
// gives the require() it hands each bundle a msgrWorker function, as no file is beside the binary.
// import.meta.url, for the one module that reads it outside the bundle, is the bundle's own URL.
const workerStart = "function __msgrWorker(name, options) { return typeof require.msgrWorker === 'function' ? require.msgrWorker(name, options) : new (require('node:worker_threads').Worker)(require('node:path').join(__dirname, 'workers', name + '.cjs'), options); }\nvar __msgrImportMeta = { get url() { return require('node:url').pathToFileURL(__filename).href; } };";
const ownDefine = { ...bundleDefine, __MSGR_WORKER__: '__msgrWorker', 'import.meta': '__msgrImportMeta' };
// Node modules our bundles name at their top but use only now and then, each required at its
// first use instead (a stand-in with a getter per export): commander requires node:child_process
// as it loads, for subcommands that are programs of their own (msgr has none), which brings
// node:net, node:dgram and their modules into every start (~7 M instructions of `send
// --dry-run`); node:module (createRequire, for node:crypto where an account is no file name)
// loads Node's ES module loader and source maps (~0.3 M). docs/performance-history.md: "What
// start-up costs".
const LAZY_BUILTINS = ['child_process', 'module'];
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    const names = new Map(LAZY_BUILTINS.map((m) => [m, Object.keys(createRequire(import.meta.url)(`node:${m}`))]));
    b.onResolve({ filter: new RegExp(`^(node:)?(${LAZY_BUILTINS.join('|')})$`) }, (args) => (args.namespace === 'lazy-builtin' ? { path: args.path, external: true } : { path: args.path.replace(/^node:/, ''), namespace: 'lazy-builtin' }));
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({
      contents: `for (const name of ${JSON.stringify(names.get(args.path))}) Object.defineProperty(exports, name, { enumerable: true, get: () => require('node:${args.path}')[name] });`,
      loader: 'js',
    }));
  },
};

await swapIn(dist, async (next) => {
  const vendors = vendorTable();
  // Without vendor bundles: one bundle with everything in it.
  let main = [];
  let workers = [];
  if (tricks['vendor-bundles']) {
    for (const v of vendors) {
      await build({
        ...common,
        ...(v.own !== undefined ? { entryPoints: [v.own] } : { stdin: { contents: v.entry, resolveDir: process.cwd(), loader: 'js', sourcefile: `vendor-${v.name}.js` } }),
        outfile: `${next}/vendor/${v.name}.cjs`,
        plugins: v.plugins ?? [],
      });
    }
    const names = probeVendors(`${next}/vendor`, vendors);
    main = [vendorExternals(vendors, './vendor/', names)];
    workers = [vendorExternals(vendors, '../vendor/', names)];
  }
  const program = { ...common, entryPoints: ['src/main.ts'], outfile: `${next}/msgr.cjs`, banner: { js: workerStart }, define: ownDefine, plugins: [lazyBuiltins, ...main] };
  const ours = tricks['send-first'] ? await buildSendFirst(build, program, next) : (await build(program), ['msgr.cjs']);
  const workerEntries = existsSync('src/workers') ? listTs('src/workers') : [];
  if (workerEntries.length > 0) {
    await build({
      ...common,
      entryPoints: workerEntries,
      outdir: `${next}/workers`,
      outExtension: { '.js': '.cjs' },
      banner: { js: workerStart.replace("'workers', ", '') },
      define: ownDefine,
      plugins: workers,
    });
  }

  // esbuild writes strings as ASCII, but not regular expression literals: one curly quote in one
  // made the whole of msgr.cjs a two-byte string, decoded from UTF-8 on every start (docs/
  // performance-history.md: "What start-up costs"). A \uXXXX escape means the same character there.
  for (const file of [...ours, ...(workerEntries.length > 0 ? readdirSync(`${next}/workers`).map((w) => `workers/${w}`) : [])]) asciiOnly(`${next}/${file}`);

  if (tricks['code-cache']) {
    // Not the workers: Node loads those itself.
    for (const file of ours) stampBuildId(`${next}/${file}`);
    if (tricks['vendor-bundles']) for (const v of vendors) stampBuildId(`${next}/vendor/${v.name}.cjs`);
  }

  // The top-level help, rendered once by the real program (80 columns, no colour) so that
  // bin/msgr.js can print it without loading the bundle.
  const help = execFileSync(process.execPath, ['-e', `const { buildProgram } = require(${JSON.stringify(resolve(next, 'msgr.cjs'))}); const out = []; const p = buildProgram({ stdout: { write: (s) => out.push(s) }, stderr: { write: () => true }, env: {}, argv: [] }, 'all'); p.outputHelp(); process.stdout.write(out.join(''));`], { encoding: 'utf8' });
  if (!help.includes('Exit codes:')) throw new Error('build: the rendered help lacks the exit codes');
  writeFileSync(`${next}/help.txt`, help);
});

// Caches name the install folder, so they are made where dist/ now is.
if (tricks['code-cache']) makeCodeCaches(join(dirname(dist), 'bin', 'msgr.js'), dist);
// After the caches: the binary carries those of this Node.
if (withExe) buildExe(dist);

if (withTests) {
  await swapIn(resolve('build'), (next) => build({
    entryPoints: [...listTs('src'), ...listTs('test')],
    outdir: next,
    outbase: '.',
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    define,
    logLevel: 'warning',
  }));
}
