// Worker threads that examine big request bodies (src/sandbox/examine.ts) off the server's
// thread, so the sandbox parses batches on every core instead of one. Started on the first big
// body; unref'd, so they never keep a process alive; a worker that fails takes the pool down and
// the server examines bodies (those the worker had too) on its own thread again.
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../runtime/worker.js';
import { examineBody, type Examined, type ExamineJob } from './examine.js';

interface Slot {
  readonly worker: Worker;
  busy: number;
}

interface Pending {
  readonly slot: Slot;
  readonly raw: Uint8Array;
  readonly job: ExamineJob;
  readonly resolve: (r: Examined) => void;
}

export interface PoolReply {
  readonly id: number;
  readonly result: Examined;
}

export class ExaminePool {
  readonly #size: number;
  #slots: Slot[] | undefined;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #broken = false;

  constructor(size: number) {
    this.#size = size;
  }

  /** False once a worker failed or the pool was closed: examine on the caller's thread. */
  get usable(): boolean {
    return !this.#broken;
  }

  /** Starts the threads now rather than on the first big body (a long-running server). */
  start(): void {
    if (this.#broken || this.#slots !== undefined) return;
    try {
      this.#slots = Array.from({ length: this.#size }, () => this.#start());
    } catch {
      // No worker file or no threads: the server's thread examines the bodies.
      this.#broken = true;
    }
  }

  run(raw: Uint8Array, job: ExamineJob): Promise<Examined> {
    this.start();
    const slots = this.#slots;
    if (this.#broken || slots === undefined) return Promise.resolve(examineBody(raw, job));
    let slot = slots[0] as Slot;
    for (const s of slots) if (s.busy < slot.busy) slot = s;
    const id = this.#nextId++;
    slot.busy++;
    return new Promise<Examined>((resolve) => {
      this.#pending.set(id, { slot, raw, job, resolve });
      slot.worker.postMessage({ id, raw, job });
    });
  }

  #start(): Slot {
    const worker = startWorker('sandbox-examine', { stdout: false, stderr: false });
    worker.unref();
    const slot: Slot = { worker, busy: 0 };
    worker.on('message', (m: PoolReply) => {
      const p = this.#pending.get(m.id);
      if (p === undefined) return;
      this.#pending.delete(m.id);
      slot.busy--;
      p.resolve(m.result);
    });
    // A worker that fails (or cannot start) leaves its bodies, and all later ones, to this thread.
    const fail = (): void => {
      this.#broken = true;
      for (const [id, p] of this.#pending) {
        if (p.slot !== slot) continue;
        this.#pending.delete(id);
        p.resolve(examineBody(p.raw, p.job));
      }
    };
    worker.on('error', fail);
    worker.on('exit', fail);
    return slot;
  }

  async close(): Promise<void> {
    this.#broken = true;
    const slots = this.#slots ?? [];
    this.#slots = undefined;
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}
