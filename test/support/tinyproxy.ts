// A real proxy for end-to-end tests: Debian's tinyproxy, started on 127.0.0.1 with a config
// written at test time. Where tinyproxy is not installed (`apt-get install tinyproxy`; .ci/run
// installs it), `findTinyproxy()` says why, and the tests that need it skip with that note.
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { tempDir } from './cli.js';

export interface Tinyproxy {
  url: string;
  port: number;
  /** What tinyproxy logged so far (its CONNECT lines name each target). */
  log(): string;
  close(): Promise<void>;
}

/** The tinyproxy binary, or undefined. */
export function findTinyproxy(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':').concat(['/usr/bin', '/usr/sbin', '/usr/local/bin'])) {
    if (dir === '') continue;
    const path = join(dir, 'tinyproxy');
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The skip note for tests that need tinyproxy, or false when it is there. */
export function tinyproxySkip(): string | false {
  return findTinyproxy() === undefined ? 'tinyproxy is not installed (apt-get install -y tinyproxy; .ci/run does it)' : false;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitForPort(port: number, child: ChildProcess, logFile: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`tinyproxy exited (${child.exitCode}): ${readFileSync(logFile, 'utf8')}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`tinyproxy did not listen on ${port}`);
}

export async function startTinyproxy(options: { basicAuth?: { user: string; password: string }; extra?: string[] } = {}): Promise<Tinyproxy> {
  const bin = findTinyproxy();
  if (bin === undefined) throw new Error('tinyproxy is not installed');
  const dir = tempDir('msgr-tinyproxy-');
  const port = await freePort();
  const logFile = join(dir, 'tinyproxy.log');
  const lines = [
    `Port ${port}`,
    'Listen 127.0.0.1',
    'Timeout 30',
    'MaxClients 64',
    'LogLevel Connect',
    `LogFile "${logFile}"`,
    'Allow 127.0.0.1',
    'DisableViaHeader Yes',
  ];
  if (options.basicAuth !== undefined) lines.push(`BasicAuth ${options.basicAuth.user} ${options.basicAuth.password}`);
  lines.push(...(options.extra ?? []));
  const conf = join(dir, 'tinyproxy.conf');
  writeFileSync(conf, `${lines.join('\n')}\n`);
  writeFileSync(logFile, '');
  // -d: stay in the foreground, so the test owns the process and its end.
  const child = spawn(bin, ['-d', '-c', conf], { stdio: 'ignore' });
  await waitForPort(port, child, logFile);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    log: () => readFileSync(logFile, 'utf8'),
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) {
          resolve();
          return;
        }
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
