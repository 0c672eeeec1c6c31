/**
 * A TCP relay on 127.0.0.1:0 standing where a NAT gateway or a Network Load Balancer stands between a Lambda in a VPC
 * and Ops Manager. `expireIdle()` does what their idle timeout (350 s) does while the Lambda is frozen: it forgets every
 * connection without telling the client (no FIN reaches it), and answers the client's next packet on one with a reset,
 * as AWS documents for both. The request in that packet never reaches the server behind.
 */
import { connect, createServer, type Socket } from 'node:net';

/** A running relay. */
export interface IdleExpiryProxy {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Connections accepted so far. */
  connections(): number;
  /** Packets answered with a reset (requests that never reached the server). */
  resets(): number;
  /** Forgets every open connection, silently for the client. */
  expireIdle(): void;
  /** Destroys every connection and stops listening. */
  close(): Promise<void>;
}

/** Starts a relay to `target` (`host:port` of an HTTP server). */
export async function startIdleExpiryProxy(target: { host: string; port: number }): Promise<IdleExpiryProxy> {
  const pairs = new Set<{ client: Socket; upstream: Socket; expired: boolean }>();
  let connections = 0;
  let resets = 0;
  const server = createServer((client) => {
    connections += 1;
    const upstream = connect(target.port, target.host);
    const pair = { client, upstream, expired: false };
    pairs.add(pair);
    client.on('data', (chunk) => {
      if (!pair.expired) {
        upstream.write(chunk);
        return;
      }
      resets += 1;
      client.resetAndDestroy();
    });
    upstream.on('data', (chunk) => {
      if (!pair.expired) client.write(chunk);
    });
    upstream.on('end', () => {
      if (!pair.expired) client.end();
    });
    client.on('end', () => upstream.end());
    client.on('close', () => {
      upstream.destroy();
      pairs.delete(pair);
    });
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    connections: () => connections,
    resets: () => resets,
    expireIdle: () => {
      for (const pair of pairs) {
        pair.expired = true;
        pair.upstream.destroy();
      }
    },
    close: async () => {
      for (const pair of pairs) pair.client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
