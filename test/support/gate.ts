// A TCP gate on 127.0.0.1 in front of a server (the sandbox): it holds the connections it takes
// until the test lets them through, so a request waits exactly as long as the test needs (until
// a kill, a sample, a second run) instead of a latency long enough for a loaded machine, which
// every later request of the test then waited too.
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface Gate {
  /** The server's URL with the gate's port: give it to msgr in place of the server's. */
  url: string;
  /** Connections held so far (their client may have gone since). */
  held(): number;
  /** New connections go straight through from now on; those held stay held. */
  admitNew(): void;
  /**
   * Held connections go through now, and new ones from now on. What a client that has gone sent
   * before it went still reaches the server, as a request it sent before a kill -9 would.
   */
  open(): void;
  close(): Promise<void>;
}

export async function startGate(target: string): Promise<Gate> {
  const to = new URL(target);
  const sockets = new Set<Socket>();
  const waiting: Array<() => void> = [];
  let admitting = false;
  let heldCount = 0;
  const track = (s: Socket): void => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
  };
  const through = (client: Socket, sent: Buffer[], clientGone: () => boolean): void => {
    const upstream = connect(Number(to.port), to.hostname);
    track(upstream);
    for (const chunk of sent) upstream.write(chunk);
    if (clientGone()) {
      // Nobody reads the answer; the server's is enough.
      upstream.resume();
      return;
    }
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.end());
    upstream.pipe(client);
    client.pipe(upstream);
  };
  const server = createServer((client) => {
    track(client);
    if (admitting) {
      through(client, [], () => false);
      return;
    }
    heldCount++;
    const sent: Buffer[] = [];
    let gone = false;
    const keep = (chunk: Buffer): void => void sent.push(chunk);
    client.on('data', keep);
    client.on('close', () => (gone = true));
    waiting.push(() => {
      client.off('data', keep);
      through(client, sent, () => gone);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = new URL(target);
  url.port = String(port);
  const release = (): void => {
    for (const go of waiting.splice(0)) go();
  };
  return {
    url: url.toString().replace(/\/$/, ''),
    held: () => heldCount,
    admitNew: () => void (admitting = true),
    open: () => {
      admitting = true;
      release();
    },
    close: () =>
      new Promise<void>((resolve) => {
        waiting.length = 0;
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
