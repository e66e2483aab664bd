// Where a worker thread's code is: every module in src/workers/ is built as an entry of its own,
// dist/workers/<name>.js in the bundle (scripts/build.mjs) and build/src/workers/<name>.js in the
// test build. Both sit one folder up from the module that asks, so one rule serves both.
import { fileURLToPath } from 'node:url';

declare const __MSGR_WORKERS__: string | undefined;

/** The file to give `new Worker(...)` for src/workers/<name>.ts. */
export function workerPath(name: string): string {
  // The bundle may define where its workers are (it decides its own layout); otherwise they are
  // beside this module's folder.
  const base = typeof __MSGR_WORKERS__ === 'string' ? __MSGR_WORKERS__ : fileURLToPath(new URL('../workers/', import.meta.url));
  return `${base}${name}.js`;
}
