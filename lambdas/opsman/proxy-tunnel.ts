/**
 * The client to the proxy that undici's ProxyAgent opens CONNECT tunnels with, made to fail a tunnel the proxy drops.
 *
 * Why: in undici 7, a proxy that accepts the TCP connection and closes it before answering CONNECT (a proxy that does
 * not tunnel, one refusing the upstream, a port that is not a proxy) fails the CONNECT with `UND_ERR_SOCKET`, which
 * undici's client takes for a recoverable error on an established connection: the request stays queued and the
 * tunnel is tried again at once, forever, ignoring the request's abort signal (nodejs/undici#3897; fixed in undici 8,
 * which does not run on Node 20). Measured here: about 1,300 CONNECTs a second, a plan spinning at 80% CPU, and
 * neither the request deadline nor SIGTERM ending it. Any other error code makes undici fail the queued request,
 * so the error is given its own code, and the executor's retry policy decides as for a refused connection (nothing
 * reached Ops Manager).
 */
import type { Dispatcher, Pool as UndiciPool } from 'undici';
import { Pool } from './undici-parts.ts';

/** The code of {@link ProxyTunnelClosedError}: a not-sent failure in the retry policy. */
export const PROXY_TUNNEL_CLOSED = 'OPSMAN_PROXY_TUNNEL_CLOSED';

/** The proxy closed the connection before answering CONNECT: no tunnel, nothing sent to Ops Manager. */
export class ProxyTunnelClosedError extends Error {
  override name = 'ProxyTunnelClosedError';
  readonly code = PROXY_TUNNEL_CLOSED;
}

type ConnectPromise = (options: Dispatcher.ConnectOptions) => Promise<Dispatcher.ConnectData>;

/**
 * A Pool to the proxy whose promise-style `connect` (the one ProxyAgent calls) turns a dropped CONNECT into
 * {@link ProxyTunnelClosedError}. Its message names the proxy by host and port only: a proxy URL may carry a password.
 */
export function proxyClientFactory(origin: string | URL, options: UndiciPool.Options): Dispatcher {
  const pool = new Pool(origin, options);
  const connect = pool.connect.bind(pool) as ConnectPromise;
  const proxy = new URL(origin).host;
  const guarded: ConnectPromise = async (connectOptions) => {
    try {
      return await connect(connectOptions);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'UND_ERR_SOCKET') throw error;
      throw new ProxyTunnelClosedError(
        `the proxy ${proxy} closed the connection before answering CONNECT (a proxy that does not tunnel, or one that refused to reach Ops Manager); check HTTPS_PROXY / HTTP_PROXY and NO_PROXY`,
        { cause: error },
      );
    }
  };
  // Replaces the method on this one instance: ProxyAgent only ever calls connect(options) and awaits it.
  Object.defineProperty(pool, 'connect', { value: guarded, configurable: true, writable: true });
  return pool;
}
