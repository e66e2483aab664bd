// A tiny HTTPS server for the start-up bench: answers every request 202 `{}` once the body has
// been read, so `msgr send` does a real TLS handshake and a real POST. Runs as its own process.
// Usage: node bench/https-server.mjs <cert.pem> <key.pem>; prints the port on stdout.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import process from 'node:process';

const [certFile, keyFile] = process.argv.slice(2);
if (certFile === undefined || keyFile === undefined) {
  process.stderr.write('usage: node bench/https-server.mjs <cert.pem> <key.pem>\n');
  process.exit(2);
}
let requests = 0;
const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
  req.resume();
  req.on('end', () => {
    requests += 1;
    res.writeHead(202, { 'content-type': 'application/json', 'content-length': '2' });
    res.end('{}');
  });
});
server.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(`${typeof addr === 'object' && addr !== null ? addr.port : ''}\n`);
});
const stop = () => {
  process.stderr.write(`https-server: ${requests} requests\n`);
  server.close();
  server.closeAllConnections();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
