// Checked edits of dependencies' sources at bundle time. Each throws when upstream wording
// changes (the versions are pinned in package.json), and each stays only while
// `npm run bench -- --only startup --tricks` measures it paying (README, "Performance").
import { readFileSync } from 'node:fs';

function edit(name, file, eager, lazy) {
  return {
    name,
    setup(b) {
      b.onLoad({ filter: file }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes(eager)) throw new Error(`build: ${name}: no \`${eager}\` in ${args.path} any more`);
        return { contents: source.replace(eager, lazy), loader: 'js' };
      });
    },
  };
}

// commander requires child_process at load for executable subcommands, which msgr has none of;
// Node then compiles net, dgram, streams and more on every run. Required when first used instead.
export const commanderEdit = edit(
  'commander-lazy-child-process',
  /[\\/]commander[\\/]lib[\\/]command\.js$/,
  "const childProcess = require('node:child_process');",
  "const childProcess = { get spawn() { return require('node:child_process').spawn; } };",
);

// undici loads at start-up what a single HTTP/1.1 request never uses: node:http2 for a protocol
// msgr does not negotiate, and node:assert for checks that only fail on a bug. Both are loaded
// when first needed instead; a failing assert(value) still throws the real AssertionError, and
// any other assert.* is the real one.
const undiciH2 = edit(
  'undici-lazy-http2',
  /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/,
  "const connectH2 = require('./client-h2.js')",
  "let connectH2Module\nconst connectH2 = (...args) => (connectH2Module ??= require('./client-h2.js'))(...args)",
);
export const undiciEdit = {
  name: 'undici-lazy-builtins',
  setup(b) {
    undiciH2.setup(b);
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
