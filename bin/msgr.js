#!/usr/bin/env node
// CommonJS on purpose (bin/package.json): Node starts a CommonJS entry faster than an ES module,
// and `msgr --version` / `msgr --help` are answered here before any bundle loads, at bare-Node
// cost (issue 5). dist/ is laid out by scripts/build.mjs (see the top of that file).
'use strict';
const { readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

const DIST = join(__dirname, '..', 'dist');

function fastAnswer(only) {
  try {
    if (only === '--version' || only === '-V') return `${JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version}\n`;
    if (only === '--help' || only === '-h') return readFileSync(join(DIST, 'help.txt'), 'utf8');
  } catch {
    // Not built yet, or an odd install: the full program answers instead.
  }
  return undefined;
}

/**
 * Loads dist/msgr.cjs. Node 22.1+ caches compiled code between runs by itself. Node 20 has no
 * such cache, so each bundle is compiled here with the V8 code cache the build made for this V8
 * (dist/cache/); V8 checks that it fits (version, flags, source) and otherwise compiles as usual.
 * Bundles reach each other only through relative require() calls, which come back here.
 */
function loadProgram() {
  const Module = require('node:module');
  if (typeof Module.enableCompileCache === 'function') {
    Module.enableCompileCache();
    return { program: require(join(DIST, 'msgr.cjs')), afterRun: () => {} };
  }
  const vm = require('node:vm');
  const { writeFileSync, mkdirSync } = require('node:fs');
  const loaded = new Map();
  const scripts = [];
  // A cache belongs to one build of one bundle (V8 itself only checks the source's length), one
  // V8, and one install folder (compiled code keeps the file names it was compiled with, which
  // stack traces show): the bundle's first line is `//# msgr-build <hash of its content>`.
  let where = 0x811c9dc5;
  for (let i = 0; i < DIST.length; i++) where = Math.imul(where ^ DIST.charCodeAt(i), 0x01000193) >>> 0;
  const cacheFile = (file, source) => {
    const build = /^\/\/# msgr-build ([0-9a-f]+)\n/.exec(source);
    if (build === null) return undefined;
    return join(DIST, 'cache', `${file.slice(DIST.length + 1).replace(/[\\/]/g, '_')}.${build[1]}.${where.toString(16)}.v8-${process.versions.v8}.bin`);
  };
  const load = (file) => {
    const known = loaded.get(file);
    if (known !== undefined) return known.exports;
    const source = readFileSync(file, 'utf8');
    const cache = cacheFile(file, source);
    let cachedData;
    try {
      if (cache !== undefined) cachedData = readFileSync(cache);
    } catch {
      // No cache for this build, V8 and folder: compile as usual.
    }
    const script = new vm.Script(Module.wrap(source), { filename: file, cachedData });
    scripts.push({ cache, script, fresh: cachedData === undefined || script.cachedDataRejected === true });
    const module = { exports: {}, filename: file, id: file, loaded: false };
    loaded.set(file, module);
    const real = Module.createRequire(file);
    const req = (id) => (id.startsWith('./') || id.startsWith('../') ? load(join(dirname(file), id)) : real(id));
    req.resolve = real.resolve;
    req.cache = real.cache;
    script.runInThisContext().call(module.exports, module.exports, req, module, file, dirname(file));
    module.loaded = true;
    return module.exports;
  };
  const program = load(join(DIST, 'msgr.cjs'));
  // The build's sample runs (scripts/build.mjs) keep what this run compiled, for the next ones.
  // Never able to change the outcome of the run it follows.
  const afterRun = () => {
    if (process.env.MSGR_WRITE_CODE_CACHE !== '1') return;
    try {
      mkdirSync(join(DIST, 'cache'), { recursive: true });
      for (const s of scripts) if (s.fresh && s.cache !== undefined) writeFileSync(s.cache, s.script.createCachedData());
    } catch {
      // A read-only install: no cache.
    }
  };
  return { program, afterRun };
}

const args = process.argv.slice(2);
const answer = args.length === 1 ? fastAnswer(args[0]) : undefined;
if (answer !== undefined) {
  process.stdout.write(answer);
} else {
  let loaded;
  try {
    loaded = loadProgram();
  } catch (err) {
    process.stderr.write(`msgr: cannot load dist/msgr.cjs (${String(err.message).split("\n")[0]}); run \`npm ci\` or \`npm run build\`\n`);
    process.exitCode = 1;
  }
  if (loaded !== undefined) {
    loaded.program.run().then(
      (code) => {
        process.exitCode = code;
        loaded.afterRun();
        // Leave once stdout and stderr are flushed: everything is closed by now, but undici's
        // sockets can hold the event loop ~100 ms after closing, on every send.
        process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
      },
      (err) => {
        // run() reports every error itself; this is for a failure while reporting one (say, a
        // damaged install): one line, exit 1, no stack unless asked for.
        process.stderr.write(`msgr: internal error: ${String(err?.message ?? err).split('\n')[0]}\n`);
        if (args.includes('--verbose') || args.includes('-v')) process.stderr.write(`${err?.stack ?? ''}\n`);
        process.exitCode = 1;
      },
    );
  }
}
