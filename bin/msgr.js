#!/usr/bin/env node
// The `msgr` command. CommonJS (bin/package.json), which Node starts faster than an ES module.
// `--version`, `--help` and `msgr` alone are answered here without loading the program; anything else runs
// dist/msgr.cjs (built by scripts/build.mjs; docs/performance.md; docs/design.md: "Choices").
// The single executable file starts from bin/sea.cjs instead, which does the same from its assets.
'use strict';
const { existsSync, readFileSync } = require('node:fs');
const { join, sep } = require('node:path');

const DIST = join(__dirname, '..', 'dist');
const args = process.argv.slice(2);
// `--version --verbose` (in either order) is the version with how msgr was installed, on a pipe too.
const verbose = args.length === 2 && args.includes('--verbose');
const only = args.length === 1 ? args[0] : verbose ? args.find((a) => a !== '--verbose') : '';
let answer;
try {
  if (only === '--version' || only === '-V') {
    answer = `${JSON.parse(readFileSync(join(DIST, '..', 'package.json'), 'utf8')).version}\n`;
    // The first line is the version alone, all that scripts read; a person at a terminal also
    // learns how this msgr was installed (docs/install.md), as does --verbose.
    if (process.stdout.isTTY || verbose) {
      const root = join(__dirname, '..');
      const how = root.includes(`${sep}node_modules${sep}`) ? 'installed with npm' : 'run from a checkout (node bin/msgr.js)';
      answer += `${how}, on Node ${process.versions.node}: ${root}\n`;
    }
  } else if ((only === '--help' || only === '-h' || args.length === 0) && !narrowTerminal()) answer = readFileSync(join(DIST, 'help.txt'), 'utf8');
} catch {
  // Not built yet, or an odd install: the program answers instead.
}
if (answer !== undefined) {
  // `msgr --help | head -1` closes the pipe early: that is not an error.
  process.stdout.on('error', (err) => process.exit(err.code === 'EPIPE' ? 0 : 1));
  process.stdout.write(answer);
} else {
  let program;
  try {
    // The build's V8 code caches where it made them for this V8 (bin/code-cache.cjs), else Node's own.
    const caches = join(DIST, 'cache', `v8-${process.versions.v8}`);
    if (existsSync(caches)) program = require('./code-cache.cjs').load(DIST, caches);
    else program = (require('node:module').enableCompileCache?.(), require(join(DIST, 'msgr.cjs')));
  } catch (err) {
    process.stderr.write(`msgr: cannot load dist/msgr.cjs (${String(err.message).split('\n')[0]}); run \`npm ci\` or \`npm run build\`\n`);
    process.exitCode = 1;
  }
  program?.launch();
}

/** help.txt is laid out for 80 columns: a narrower terminal gets the help the program fits to it. */
function narrowTerminal() {
  return process.stdout.isTTY === true && process.stdout.columns > 0 && process.stdout.columns < 80;
}
