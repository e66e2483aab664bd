// Loads dist/msgr.cjs with the V8 code caches the build made (scripts/build/code-cache.mjs), for
// a Node whose own compile cache does not pay as much (bin/msgr.js uses this only when
// dist/cache/v8-<this V8>/ exists). Node's compile cache keeps only what V8 compiled before a
// module ran; these caches are taken after sample commands ran, so they also hold every function
// those commands called. Measured with `npm run bench -- --only startup --tricks` (docs/
// performance.md), 2026-11-24: against no cache on Node 20, `send --dry-run` 24 % and the HTTPS
// send 17 % faster; against Node's own compile cache, 20 % and 9 % on Node 24, 15 % and 13 % on 26.
// Each bundle is compiled with its cache (vm.Script cachedData); V8 checks that it fits (version,
// flags, source length) and otherwise compiles as usual. Bundles reach each other only through
// relative require() calls, which come back here.
'use strict';
// Node's module class as this module's own, not require('node:module'), which also loads Node's
// ES module loader and source maps: with the bundles' own (scripts/build.mjs), ~0.3 M
// instructions of every start (docs/performance-history.md: "What start-up costs").
const Module = module.constructor;
const vm = require('node:vm');
const { mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

exports.load = function load(dist, cacheDir) {
  const loaded = new Map();
  const scripts = [];
  // A cache belongs to one build of one bundle (the bundle's first line is `//# msgr-build <hash
  // of its content>`) and one install folder (compiled code keeps the file names it was compiled
  // with, which stack traces show).
  let where = 0x811c9dc5;
  for (let i = 0; i < dist.length; i++) where = Math.imul(where ^ dist.charCodeAt(i), 0x01000193) >>> 0;
  const cacheFile = (file, source) => {
    const build = /^\/\/# msgr-build ([0-9a-f]+)\n/.exec(source);
    return build === null ? undefined : join(cacheDir, `${file.slice(dist.length + 1).replace(/[\\/]/g, '_')}.${build[1]}.${where.toString(16)}.bin`);
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
      // No cache for this build and folder: compile as usual.
    }
    const script = new vm.Script(Module.wrap(source), { filename: file, cachedData });
    scripts.push({ cache, script, fresh: cachedData === undefined || script.cachedDataRejected === true });
    const module = { exports: {}, filename: file, id: file, loaded: false };
    loaded.set(file, module);
    // Node's modules (`node:fs`) are the same from any file: a require() of the bundle's own is
    // made only for anything else.
    let real;
    const own = () => (real ??= Module.createRequire(file));
    const req = (id) => (id.startsWith('./') || id.startsWith('../') ? load(join(dirname(file), id)) : id.startsWith('node:') ? require(id) : own()(id));
    Object.defineProperties(req, { resolve: { get: () => own().resolve }, cache: { get: () => own().cache } });
    script.runInThisContext().call(module.exports, module.exports, req, module, file, dirname(file));
    module.loaded = true;
    return module.exports;
  };
  // The build's sample runs keep what they compiled, for the next runs. Never able to change the
  // outcome of the run it follows.
  if (process.env.MSGR_WRITE_CODE_CACHE === '1') {
    process.once('exit', () => {
      try {
        mkdirSync(cacheDir, { recursive: true });
        for (const s of scripts) if (s.fresh && s.cache !== undefined) writeFileSync(s.cache, s.script.createCachedData());
      } catch {
        // A read-only install: no cache.
      }
    });
  }
  return load(join(dist, 'msgr.cjs'));
};
