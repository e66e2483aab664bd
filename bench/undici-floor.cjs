// One HTTPS POST with undici used as its README shows (`request` from the package, an Agent with
// the CA): what any program pays for undici, msgr's HTTP client, before any code of its own.
// bench/sections/startup.mjs times it beside msgr's real send and the bare node:https floor.
// Usage: node bench/undici-floor.cjs <base-url> <ca.pem> <api-key> <json-body>
'use strict';
const { request, Agent } = require('undici');
const { readFileSync } = require('node:fs');

const [base, caFile, key, body] = process.argv.slice(2);
const dispatcher = new Agent({ connect: { ca: readFileSync(caFile) } });
request(new URL('/v2/messages', base), { method: 'POST', dispatcher, body, headers: { 'content-type': 'application/json', 'x-api-key': key } }).then(
  async (res) => {
    await res.body.dump();
    process.exit(res.statusCode >= 200 && res.statusCode < 300 ? 0 : 1);
  },
  (err) => {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  },
);
