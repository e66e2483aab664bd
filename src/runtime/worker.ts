// Starts a worker thread of src/workers/<name>.ts. Every module in src/workers/ is built as an
// entry of its own (scripts/build.mjs): dist/workers/<name>.cjs, started from its file, or in the
// single executable file the same code from the binary's assets, started from source
// (bin/sea.cjs: nothing is read from beside the binary); in the test build
// build/src/workers/<name>.js, one folder up from this module.
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

declare const __MSGR_WORKER__: ((name: string, options: WorkerOptions) => Worker) | undefined;

/** A new Worker running src/workers/<name>.ts, with these options. */
export function startWorker(name: string, options: WorkerOptions): Worker {
  if (typeof __MSGR_WORKER__ === 'function') return __MSGR_WORKER__(name, options);
  return new Worker(fileURLToPath(new URL(`../workers/${name}.js`, import.meta.url)), options);
}
