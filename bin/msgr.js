#!/usr/bin/env node
// The `msgr` command. CommonJS (bin/package.json), which Node starts faster than an ES module.
// `--version`, `--help` and `msgr` alone are answered here without loading the program; anything else runs
// dist/msgr.cjs (built by scripts/build.mjs; docs/performance.md; README, "Design notes").
'use strict';
const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

const DIST = join(__dirname, '..', 'dist');
const args = process.argv.slice(2);
const only = args.length === 1 ? args[0] : '';
let answer;
try {
  if (only === '--version' || only === '-V') answer = `${JSON.parse(readFileSync(join(DIST, '..', 'package.json'), 'utf8')).version}\n`;
  else if (only === '--help' || only === '-h' || args.length === 0) answer = readFileSync(join(DIST, 'help.txt'), 'utf8');
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
  // run() reports every error itself; a failure while reporting one (a damaged install) is one
  // line, exit 1, no stack unless asked for. Leave once stdout and stderr are flushed: undici's
  // closed sockets can hold the event loop ~100 ms after every send.
  program?.run().then((code) => {
    process.exitCode = code;
    process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
  }, (err) => {
    const stack = args.includes('--verbose') || args.includes('-v') ? `${err?.stack}\n` : '';
    process.stderr.write(`msgr: internal error: ${String(err?.message ?? err).split('\n')[0]}\n${stack}`);
    process.exitCode = 1;
  });
}
