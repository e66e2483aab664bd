// The start of the single executable file (`npm run build:exe`, scripts/build/exe.mjs, which makes
// this the binary's main script): what bin/msgr.js does, from the binary's own assets instead of
// files beside it. Each file of dist/ is an asset of the same name: `--version` and `--help` are
// answered without loading the program; anything else runs msgr.cjs, each vendor bundle is loaded
// the first time it is required, and each worker thread runs its bundle from source. Nothing is
// read from beside the binary, nothing is fetched (docs/install.md: "Without Node"; docs/performance-history.md, "The
// single executable file").
'use strict';

/**
 * Loads the bundles among the assets, as Node loads dist/: each gets a require() for which `./`
 * and `../` name another asset (the bundles reach each other only so) and anything else is
 * Node's own (built-in modules only, in a single executable file). A bundle is compiled with the
 * V8 code cache the build made for it (`v8-cache/<its build id>`, from dist/cache/, made by the
 * same Node: scripts/build/code-cache.mjs) when there is one; Node's `useCodeCache` covers only
 * this script. Self-contained: a worker thread runs it again from its source text.
 */
function assetLoader(nodeRequire) {
  const { getAsset } = nodeRequire('node:sea');
  const { Script } = nodeRequire('node:vm');
  const { isBuiltin, wrap } = nodeRequire('node:module');
  const { posix } = nodeRequire('node:path');
  const loaded = new Map();
  const startWorker = (name, options) => {
    const { Worker } = nodeRequire('node:worker_threads');
    return new Worker(`(${assetLoader.toString()})(require)(${JSON.stringify(`workers/${name}.cjs`)});`, { ...options, eval: true });
  };
  const load = (key) => {
    const known = loaded.get(key);
    if (known !== undefined) return known.exports;
    const source = getAsset(key, 'utf8');
    const build = /^\/\/# msgr-build ([0-9a-f]+)\n/.exec(source);
    let cachedData;
    try {
      if (build !== null) cachedData = new Uint8Array(getAsset(`v8-cache/${build[1]}`));
    } catch {
      // No cache for this bundle (a build without them): compiled as usual.
    }
    // A path inside the binary: stack traces name the bundle, and a bundle that looked for a file
    // beside itself would find none (nothing beside the binary is read).
    const filename = `${process.execPath}/${key}`;
    const script = new Script(wrap(source), { filename, cachedData });
    const module = { exports: {}, id: key, filename, loaded: false };
    loaded.set(key, module);
    const req = (id) => {
      if (id.startsWith('./') || id.startsWith('../')) return load(posix.join(posix.dirname(key), id));
      // Never a file from the disk (a worker's own require() would look in the working folder).
      if (!isBuiltin(id)) throw new Error(`${key}: ${id} is not inside this executable file`);
      return nodeRequire(id);
    };
    // How the bundles start a worker thread here (scripts/build.mjs, src/runtime/worker.ts).
    req.msgrWorker = startWorker;
    script.runInThisContext().call(module.exports, module.exports, req, module, filename, posix.dirname(filename));
    module.loaded = true;
    return module.exports;
  };
  return load;
}

const { getAsset } = require('node:sea');
const args = process.argv.slice(2);
// `--version --verbose` (in either order) is the version with how msgr was installed, on a pipe too.
const verbose = args.length === 2 && args.includes('--verbose');
const only = args.length === 1 ? args[0] : verbose ? args.find((a) => a !== '--verbose') : '';
let answer;
if (only === '--version' || only === '-V') {
  answer = `${JSON.parse(getAsset('package.json', 'utf8')).version}\n`;
  // The first line is the version alone, all that scripts read; a person at a terminal also
  // learns how this msgr was installed (docs/install.md), as does --verbose.
  if (process.stdout.isTTY || verbose) answer += `single executable file for ${process.platform}-${process.arch}, Node ${process.versions.node} inside: ${process.execPath}\n`;
} else if ((only === '--help' || only === '-h') && !narrowTerminal()) answer = getAsset('help.txt', 'utf8');
if (answer !== undefined) {
  // `msgr --help | head -1` closes the pipe early: that is not an error.
  process.stdout.on('error', (err) => process.exit(err.code === 'EPIPE' ? 0 : 1));
  process.stdout.write(answer);
} else {
  let program;
  try {
    program = assetLoader(require)('msgr.cjs');
  } catch (err) {
    // A binary whose assets do not load was not made by `npm run build:exe` as it is now.
    process.stderr.write(`msgr: cannot load the program inside ${process.execPath} (${String(err.message).split('\n')[0]}); build it again with \`npm run build:exe\`\n`);
    process.exitCode = 1;
  }
  program?.launch();
}

/** help.txt is laid out for 80 columns: a narrower terminal gets the help the program fits to it. */
function narrowTerminal() {
  return process.stdout.isTTY === true && process.stdout.columns > 0 && process.stdout.columns < 80;
}
