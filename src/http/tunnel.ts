// An undici connector that opens a CONNECT tunnel through an HTTP(S) proxy, then TLS to the
// API inside it. msgr opens the tunnel itself (rather than through undici's ProxyAgent) so that
// every failure before the tunnel is up is one typed error, which outcome.ts classifies as never
// sent: not one byte of the request has left at that point.
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { TunnelError, type ProxyConfig, type TunnelFailure } from './proxy.js';
import { buildConnector } from './undici.js';

/** The longest CONNECT answer read before it is called not HTTP. */
const MAX_HEAD_BYTES = 16 * 1024;

export interface TunnelOptions {
  readonly proxy: ProxyConfig;
  /** Opening the tunnel and the TLS handshake inside it, each (milliseconds). */
  readonly timeoutMs: number;
  /** TLS options for the API (extra CAs), also used for an https:// proxy. */
  readonly tls: Readonly<Record<string, unknown>>;
  readonly userAgent: string;
}

export interface TunnelInfo {
  readonly status: number;
  readonly statusText: string;
}

/** Opens a tunnel to host:port and resolves with the raw socket (used by `doctor` too). */
export function openTunnel(options: TunnelOptions, hostname: string, port: number): Promise<{ socket: Socket; info: TunnelInfo }> {
  const { proxy } = options;
  const target = `${hostname.includes(':') ? `[${hostname}]` : hostname}:${port}`;
  return new Promise((resolve, reject) => {
    let settled = false;
    let head = Buffer.alloc(0);
    const socket: Socket =
      proxy.protocol === 'https:'
        ? tlsConnect({ ...(options.tls as ConnectionOptions), host: proxy.hostname, port: proxy.port, servername: isIP(proxy.hostname) !== 0 ? '' : proxy.hostname, ALPNProtocols: ['http/1.1'] })
        : netConnect({ host: proxy.hostname, port: proxy.port });
    const fail = (failure: Omit<TunnelFailure, 'proxy' | 'target'>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.removeListener('data', onData);
      socket.on('error', () => {}).destroy();
      reject(new TunnelError({ proxy, target, ...failure }));
    };
    const timer = setTimeout(() => fail({ cause: 'TIMEOUT', timeoutMs: options.timeoutMs }), options.timeoutMs);
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) {
        if (head.length > MAX_HEAD_BYTES) fail({ cause: 'BAD_ANSWER' });
        return;
      }
      const lines = head.subarray(0, end).toString('latin1').split('\r\n');
      const m = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(lines[0] ?? '');
      if (m === null) {
        fail({ cause: 'BAD_ANSWER' });
        return;
      }
      const status = Number(m[1]);
      const statusText = (m[2] ?? '').trim();
      if (status < 200 || status > 299) {
        const authenticate = lines.filter((l) => /^proxy-authenticate:/i.test(l)).map((l) => l.slice(l.indexOf(':') + 1).trim()).join(', ');
        fail({ status, statusText, ...(authenticate !== '' ? { authenticate } : {}) });
        return;
      }
      settled = true;
      clearTimeout(timer);
      socket.removeListener('data', onData);
      socket.removeListener('error', onError);
      socket.removeListener('close', onClose);
      const rest = head.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      resolve({ socket, info: { status, statusText } });
    };
    const onError = (err: NodeJS.ErrnoException): void => fail({ cause: err.code ?? 'error' });
    const onClose = (): void => fail({ cause: 'CLOSED' });
    socket.on('data', onData);
    socket.once('error', onError);
    socket.once('close', onClose);
    socket.once(proxy.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
      const lines = [`CONNECT ${target} HTTP/1.1`, `Host: ${target}`, `User-Agent: ${options.userAgent}`];
      if (proxy.authorization !== undefined) lines.push(`Proxy-Authorization: ${proxy.authorization}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
  });
}

type Connector = ReturnType<typeof buildConnector>;

/** The connector undici's Agent uses for every connection to the API through the proxy. */
export function tunnelConnector(options: TunnelOptions): Connector {
  const inner = buildConnector({ ...options.tls, timeout: options.timeoutMs });
  const connector: Connector = (opts, callback) => {
    const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
    openTunnel(options, opts.hostname, port).then(
      ({ socket }) => {
        if (opts.protocol !== 'https:') {
          callback(null, socket);
          return;
        }
        // From here on the classification is the usual one: a certificate the API (or a
        // TLS-inspecting proxy) presents that is not trusted is never sent, and so on.
        inner({ ...opts, httpSocket: socket }, callback);
      },
      (err: Error) => callback(err, null),
    );
  };
  return connector;
}
