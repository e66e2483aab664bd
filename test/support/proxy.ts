// A minimal, scriptable HTTP CONNECT proxy on 127.0.0.1 that records the tunnels it opened and
// the credentials it was given, for what tinyproxy cannot be made to do: a 407 with
// Proxy-Authenticate, credentials holding `@ : %`, a chosen answer to CONNECT, a connection
// dropped before the tunnel is up, or dropped after the tunnel is up and the request forwarded.
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface ProxyScript {
  /** Required credentials (decoded); anything else gets 407 with Proxy-Authenticate. */
  auth?: { user: string; password: string };
  /** The Proxy-Authenticate value sent with 407 (default `Basic realm="test"`). */
  authenticate?: string;
  /** Answer CONNECT with this status (and no tunnel) instead of opening one. */
  status?: number;
  /** Close the client's connection on CONNECT, before any answer. */
  dropBeforeTunnel?: boolean;
  /** Open the tunnel, forward the first bytes of the request upstream, then drop both sides. */
  dropAfterForward?: boolean;
}

export interface ProxyOptions {
  /** Listen with TLS (an https:// proxy) with this key and certificate. */
  tls?: { key: string; cert: string };
}

export interface TestProxy {
  url: string;
  port: number;
  /** host:port of every CONNECT that got a tunnel. */
  tunnels: string[];
  /** Every CONNECT received (target), tunnel or not. */
  connects: string[];
  /** Decoded `user:password` of every Proxy-Authorization received. */
  credentials: string[];
  script: ProxyScript;
  close(): Promise<void>;
}

export async function startProxy(script: ProxyScript = {}, options: ProxyOptions = {}): Promise<TestProxy> {
  const tunnels: string[] = [];
  const connects: string[] = [];
  const credentials: string[] = [];
  const sockets = new Set<Socket>();
  const state: { script: ProxyScript } = { script };
  const refuse = (_req: unknown, res: { writeHead(s: number): { end(): void } }): void => {
    res.writeHead(405).end();
  };
  const server: Server = options.tls !== undefined ? createHttpsServer(options.tls, refuse) : createServer(refuse);
  server.on('connect', (req, clientSocket: Socket, head: Buffer) => {
    const s = state.script;
    const target = req.url ?? '';
    connects.push(target);
    sockets.add(clientSocket);
    clientSocket.on('close', () => sockets.delete(clientSocket));
    clientSocket.on('error', () => {});
    const header = req.headers['proxy-authorization'];
    const given = typeof header === 'string' && /^basic /i.test(header) ? Buffer.from(header.slice(6), 'base64').toString('utf8') : undefined;
    if (given !== undefined) credentials.push(given);
    if (s.dropBeforeTunnel === true) {
      clientSocket.destroy();
      return;
    }
    if (s.auth !== undefined && given !== `${s.auth.user}:${s.auth.password}`) {
      clientSocket.end(`HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: ${s.authenticate ?? 'Basic realm="test"'}\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    if (s.status !== undefined) {
      clientSocket.end(`HTTP/1.1 ${s.status} Scripted\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    tunnels.push(target);
    const at = target.lastIndexOf(':');
    const host = target.slice(0, at).replace(/^\[(.*)\]$/, '$1');
    const port = Number(target.slice(at + 1));
    const upstream = connect(port, host, () => {
      clientSocket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      if (s.dropAfterForward === true) {
        // Forward what the client sends (the request), then cut both sides before any answer.
        clientSocket.on('data', (chunk: Buffer) => {
          upstream.write(chunk, () => {
            setTimeout(() => {
              upstream.destroy();
              clientSocket.destroy();
            }, 50);
          });
        });
        return;
      }
      upstream.pipe(clientSocket);
      clientSocket.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => clientSocket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: options.tls !== undefined ? `https://localhost:${port}` : `http://127.0.0.1:${port}`,
    port,
    tunnels,
    connects,
    credentials,
    get script() {
      return state.script;
    },
    set script(next: ProxyScript) {
      state.script = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
