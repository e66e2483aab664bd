// A minimal HTTP CONNECT proxy on 127.0.0.1 that records the tunnels it opened.
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TestProxy {
  url: string;
  tunnels: string[];
  close(): Promise<void>;
}

export async function startProxy(): Promise<TestProxy> {
  const tunnels: string[] = [];
  const server: Server = createServer((_req, res) => {
    res.writeHead(405).end();
  });
  server.on('connect', (req, clientSocket, head) => {
    const target = req.url ?? '';
    tunnels.push(target);
    const [host, port] = target.split(':');
    const upstream = connect(Number(port), host ?? '127.0.0.1', () => {
      clientSocket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(clientSocket);
      clientSocket.pipe(upstream);
    });
    upstream.on('error', () => clientSocket.destroy());
    clientSocket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    tunnels,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
