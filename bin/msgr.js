#!/usr/bin/env node
// CommonJS on purpose (bin/package.json): Node starts a CommonJS entry faster than an ES module,
// and `msgr --version` / `msgr --help` are answered here before any bundle loads, at bare-Node
// cost (issue 5). dist/help.txt is written by scripts/build.mjs from the real program's help.
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

function fastAnswer(only) {
  try {
    if (only === '--version' || only === '-V') return `${JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version}\n`;
    if (only === '--help' || only === '-h') return readFileSync(join(__dirname, '..', 'dist', 'help.txt'), 'utf8');
  } catch {
    // Not built yet, or an odd install: the full program answers instead.
  }
  return undefined;
}

const args = process.argv.slice(2);
const answer = args.length === 1 ? fastAnswer(args[0]) : undefined;
if (answer !== undefined) {
  process.stdout.write(answer);
} else {
  // Node 22.1+ caches compiled code between runs; Node 20 has no such cache and skips this.
  require('node:module').enableCompileCache?.();
  import('../dist/main.js').then(
    async ({ run }) => {
      const code = await run();
      // Leave once stdout and stderr are flushed: everything is closed by now, but undici's
      // sockets can hold the event loop ~100 ms after closing, on every send.
      process.exitCode = code;
      process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
    },
    (err) => {
      process.stderr.write(`msgr: cannot load dist/main.js (${err.message}); run \`npm ci\` or \`npm run build\`\n`);
      process.exitCode = 1;
    },
  );
}
