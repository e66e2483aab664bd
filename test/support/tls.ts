// Certificates made at test time with openssl: a private CA and a server certificate for
// localhost/127.0.0.1 signed by it. Nothing is committed.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './cli.js';

export interface TestCerts {
  dir: string;
  caFile: string;
  key: string;
  cert: string;
}

/** `san`: the names the server certificate is for (default localhost and 127.0.0.1). */
export function makeCerts(san = 'DNS:localhost,IP:127.0.0.1'): TestCerts {
  const dir = tempDir('msgr-tls-');
  const p = (n: string): string => join(dir, n);
  const ssl = (...args: string[]): void => {
    execFileSync('openssl', args, { stdio: 'ignore' });
  };
  ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', p('ca.key'), '-out', p('ca.pem'), '-days', '2', '-subj', '/CN=msgr test CA');
  ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', p('server.key'), '-out', p('server.csr'), '-subj', '/CN=localhost');
  writeFileSync(p('ext.cnf'), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\n`);
  ssl('x509', '-req', '-in', p('server.csr'), '-CA', p('ca.pem'), '-CAkey', p('ca.key'), '-CAcreateserial', '-out', p('server.pem'), '-days', '2', '-extfile', p('ext.cnf'));
  return { dir, caFile: p('ca.pem'), key: readFileSync(p('server.key'), 'utf8'), cert: readFileSync(p('server.pem'), 'utf8') };
}
