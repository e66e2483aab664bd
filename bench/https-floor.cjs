// The floor for one HTTPS POST from any Node program on this machine: bare node:https, the same
// CA file and body as `msgr send`, nothing else (no option parsing, validation, retries or
// output). bench/sections/startup.mjs times it beside msgr's real send.
// Usage: node bench/https-floor.cjs <base-url> <ca.pem> <api-key> <json-body>
'use strict';
const https = require('node:https');
const { readFileSync } = require('node:fs');

const [base, caFile, key, body] = process.argv.slice(2);
const req = https.request(new URL('/v2/messages', base), {
  method: 'POST',
  ca: readFileSync(caFile),
  headers: { 'content-type': 'application/json', 'x-api-key': key, 'content-length': Buffer.byteLength(body) },
}, (res) => {
  res.resume();
  res.on('end', () => process.exit(res.statusCode >= 200 && res.statusCode < 300 ? 0 : 1));
});
req.on('error', (err) => {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
});
req.end(body);
