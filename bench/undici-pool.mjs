// Baseline for personalised bulk sends: a bare undici Pool POSTing pre-built bodies, one per
// line of a file, with N requests in flight, to a server. No CSV, no checks, no journal: the
// floor of what any client costs against the same server.
// Usage: node bench/undici-pool.mjs <base-url> <api-key> <bodies.jsonl> <concurrency>
// Prints one JSON line: {requests, ms, rate, failures}.
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

const [baseUrl, apiKey, file, concArg = '16'] = process.argv.slice(2);
if (baseUrl === undefined || apiKey === undefined || file === undefined) {
  process.stderr.write('usage: node bench/undici-pool.mjs <base-url> <api-key> <bodies.jsonl> <concurrency>\n');
  process.exit(2);
}
const bodies = readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');
const url = new URL(baseUrl);
const concurrency = Number(concArg);
const pool = new Pool(url.origin, { connections: concurrency, pipelining: 1 });
const path = `${url.pathname.replace(/\/+$/, '')}/v2/messages`;
let next = 0;
let failures = 0;
async function worker() {
  while (next < bodies.length) {
    const i = next++;
    const res = await pool.request({
      method: 'POST',
      path,
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'idempotency-key': `pool-${process.pid}-${i}` },
      body: bodies[i],
    });
    await res.body.dump();
    if (res.statusCode < 200 || res.statusCode > 299) failures += 1;
  }
}
const start = performance.now();
await Promise.all(Array.from({ length: concurrency }, () => worker()));
const ms = performance.now() - start;
await pool.close();
process.stdout.write(`${JSON.stringify({ requests: bodies.length, ms, rate: bodies.length / (ms / 1000), failures })}\n`);
