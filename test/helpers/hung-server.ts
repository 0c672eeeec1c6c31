/**
 * A hung Ops Manager on 127.0.0.1:0: it accepts every connection, reads every request, and never answers a byte (a
 * JVM stuck in garbage collection, a load balancer whose backend is gone). It records the request lines it read, so a
 * test can tell what was sent and what never left the client.
 */
import { createServer, type Socket } from 'node:net';

/** A running hung server. */
export interface HungServer {
  origin: string;
  /** `http://127.0.0.1:<port>/api/public/v1.0`. */
  baseUrl: string;
  /** Request lines read so far (`GET /api/public/v1.0/groups/.../alertConfigs?pageNum=1&itemsPerPage=500`). */
  requests(): string[];
  /** Connections accepted so far. */
  connections(): number;
  /** Destroys every connection and stops listening. */
  close(): Promise<void>;
}

const REQUEST_LINE = /(?:^|\r\n)(GET|POST|PUT|PATCH|DELETE|HEAD) (\S+) HTTP\/1\.[01]\r\n/g;

/** Starts the server. */
export async function startHungServer(): Promise<HungServer> {
  const sockets = new Set<Socket>();
  const received = new Map<Socket, string>();
  let connections = 0;
  const server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    received.set(socket, '');
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => received.set(socket, (received.get(socket) ?? '') + chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    baseUrl: `${origin}/api/public/v1.0`,
    requests: () =>
      [...received.values()].flatMap((text) => [...text.matchAll(REQUEST_LINE)].map((m) => `${m[1]} ${m[2]}`)),
    connections: () => connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Resolves once `condition` holds, polling every 10 ms; rejects after `timeoutMs` naming `what`. */
export async function eventually(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
