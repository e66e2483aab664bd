// A worker thread of the sandbox (src/sandbox/pool.ts): examines request bodies it is sent and
// answers with the verdict, the same function the server runs on its own thread for small ones.
import { parentPort } from 'node:worker_threads';
import { examineBody, type ExamineJob } from '../sandbox/examine.js';
import type { PoolReply } from '../sandbox/pool.js';

parentPort?.on('message', (m: { id: number; raw: Uint8Array; job: ExamineJob }) => {
  const result = examineBody(m.raw, m.job);
  if (result.kind === 'valid' && typeof result.body === 'string') {
    // Encoded here, not on the server's thread, and handed over without a copy.
    const bytes = Buffer.from(result.body, 'utf8');
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
    const reply: PoolReply = { id: m.id, result: { ...result, body: own } };
    parentPort?.postMessage(reply, [own.buffer]);
    return;
  }
  const reply: PoolReply = { id: m.id, result };
  parentPort?.postMessage(reply);
});
