// A worker thread of the sandbox (src/sandbox/pool.ts): examines request bodies it is sent and
// answers with the verdict, the same function the server runs on its own thread for small ones.
import { parentPort } from 'node:worker_threads';
import { examineBody, type ExamineJob } from '../sandbox/examine.js';
import type { PoolReply } from '../sandbox/pool.js';

parentPort?.on('message', (m: { id: number; raw: Uint8Array; job: ExamineJob }) => {
  const reply: PoolReply = { id: m.id, result: examineBody(m.raw, m.job) };
  parentPort?.postMessage(reply);
});
