// One process's share of the unit test files (scripts/run-tests.mjs writes an entry per share that
// calls this): each file imported in turn, its tests and top-level hooks a suite named after it.
import { writeSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';

/**
 * `files`: [name as reported, file URL] in the order of their paths. A file that cannot be
 * loaded, or is still loading after `loadSeconds`, fails as `NAME loads` and the rest still run.
 */
export function runShare(files, loadSeconds) {
  let running;
  for (const [name, url] of files) {
    describe(name, async () => {
      before(() => {
        running = name;
      });
      let timer;
      try {
        // Node 24 and 26 keep a process with a suite pending alive: a file whose top-level await
        // never settles would hold the whole run, where Node 20 and a process of its own end it.
        const late = new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`${name} did not finish loading in ${loadSeconds} s (a top-level await that never settles?)`)), loadSeconds * 1000).unref();
        });
        await Promise.race([import(url), late]);
      } catch (err) {
        test(`${name} loads`, () => {
          throw err;
        });
      } finally {
        clearTimeout(timer);
      }
    });
  }
  // A test that ends the process (process.exit) would leave the files after it unrun, and the
  // process's exit code would say nothing of it.
  let ended = false;
  after(() => {
    ended = true;
  });
  process.on('exit', () => {
    if (ended) return;
    process.exitCode = 1;
    writeSync(2, `the unit test process ended before its files had all run, during ${running ?? 'their loading'}: a test ended it (process.exit?)\n`);
  });
}
