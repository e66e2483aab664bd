// How many recipients per second the sandbox itself can take on this machine: pre-built
// request bodies of <batch> recipients, <concurrency> connections, no CSV, no validation on the
// client. It bounds what any client can reach end to end against the same sandbox.
// Usage: node bench/sandbox-capacity.mjs <base-url> <api-key> [recipients] [batch] [concurrency]
// Prints one JSON line: {recipients, ms, rate, failures}.
import process from 'node:process';
import { performance } from 'node:perf_hooks';

const [baseUrl, apiKey, total = '200000', batchArg = '1000', concArg = '4'] = process.argv.slice(2);
if (baseUrl === undefined || apiKey === undefined) {
  process.stderr.write('usage: node bench/sandbox-capacity.mjs <base-url> <api-key> [recipients] [batch] [concurrency]\n');
  process.exit(2);
}
const batch = Number(batchArg);
const requests = Math.ceil(Number(total) / batch);
const endpoint = `${baseUrl.replace(/\/+$/, '')}/v2/messages`;
// Distinct bodies (distinct numbers) so nothing can be served from a cache, shaped like the ones
// send-bulk builds from the bench's CSV: a quarter of the names are not ASCII (Chloé), which makes
// the body a two-byte string for the server's JSON parser, and every request has an
// Idempotency-Key (the server hashes the body).
const bodies = Array.from({ length: 16 }, (_, b) =>
  JSON.stringify({
    accountReference: 'ACME01',
    channel: 'SMS',
    from: 'Acme',
    body: { text: 'Hi {{name}}' },
    recipients: Array.from({ length: batch }, (_, i) => ({ msisdn: `+49151${String(b * batch + i).padStart(8, '0')}`, variables: { name: i % 4 === 2 ? `Chloé${i}` : `N${i}`, code: '000042' } })),
  }),
);
let next = 0;
let failures = 0;
async function worker() {
  while (next < requests) {
    const body = bodies[next++ % bodies.length];
    const key = `cap-${process.pid}-${next}`;
    const res = await globalThis.fetch(endpoint, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'idempotency-key': key }, body });
    await res.arrayBuffer();
    if (res.status < 200 || res.status > 299) failures += 1;
  }
}
const start = performance.now();
await Promise.all(Array.from({ length: Number(concArg) }, () => worker()));
const ms = performance.now() - start;
const recipients = requests * batch;
process.stdout.write(`${JSON.stringify({ recipients, ms, rate: recipients / (ms / 1000), failures })}\n`);
