// Where a worker thread's code is: every module in src/workers/ is built as an entry of its own,
// dist/workers/<name>.cjs in the bundle (scripts/build.mjs, which defines __MSGR_WORKER_FILE__)
// and build/src/workers/<name>.js in the test build, one folder up from this module.
import { fileURLToPath } from 'node:url';

declare const __MSGR_WORKER_FILE__: ((name: string) => string) | undefined;

/** The file to give `new Worker(...)` for src/workers/<name>.ts. */
export function workerPath(name: string): string {
  if (typeof __MSGR_WORKER_FILE__ === 'function') return __MSGR_WORKER_FILE__(name);
  return fileURLToPath(new URL(`../workers/${name}.js`, import.meta.url));
}
