/**
 * Whether a server answers a TLS handshake: asked once, after a plain-HTTP connection was closed without an answer,
 * to tell "this port serves HTTPS" (a protocol mismatch in the base URL) from a server that simply hung up.
 */
import { isIP } from 'node:net';
import { connect } from 'node:tls';

/** How long the probe waits for a handshake. */
export const PROBE_TIMEOUT_MS = 3_000;

/**
 * Resolves true when `host:port` completes a TLS handshake (the certificate is not checked: only the protocol
 * matters), false on any error or after `timeoutMs`. Sends nothing but a ClientHello, and never rejects.
 */
export function speaksTls(host: string, port: number, timeoutMs: number = PROBE_TIMEOUT_MS): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({
      host,
      port,
      rejectUnauthorized: false,
      ...(isIP(host) === 0 ? { servername: host } : {}),
    });
    const done = (answer: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    timer.unref();
    socket.once('secureConnect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('close', () => done(false));
  });
}
