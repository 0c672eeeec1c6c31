/**
 * Retry decisions: which outcomes are retryable, how long to wait (exponential backoff with full jitter, or the
 * server's Retry-After), and whether a failed write may have reached the server.
 */
import { parseHttpDate } from './http-date.ts';
import type { RetryOptions } from './options.ts';
import { PROXY_TUNNEL_CLOSED } from './proxy-tunnel.ts';

/** Statuses worth another attempt (on idempotent methods; 429 on POST too, since it was refused unprocessed). */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

/** Methods retried on any retryable outcome. */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'PUT', 'PATCH', 'DELETE', 'HEAD']);

/** Error codes raised before a single byte of the request left: retrying cannot duplicate anything. */
const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  // The proxy closed the connection before answering CONNECT: no tunnel, so nothing reached Ops Manager.
  PROXY_TUNNEL_CLOSED,
]);

/** TLS verification failures: permanent, so never retried. */
const TLS_CODES = /^(ERR_TLS_|UNABLE_TO_|SELF_SIGNED_|DEPTH_ZERO_|CERT_|ERR_SSL_)/;

/** How a transport error relates to the request. */
export type TransportFailureKind = 'not-sent' | 'maybe-sent' | 'tls';

/** Classifies a transport error by its `code` (and its cause's code). */
export function classifyTransportError(error: unknown): TransportFailureKind {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 3 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    current = current.cause;
  }
  if (codes.some((code) => TLS_CODES.test(code))) return 'tls';
  if (codes.some((code) => NOT_SENT_CODES.has(code))) return 'not-sent';
  return 'maybe-sent';
}

/**
 * Retry-After as milliseconds (delta-seconds, or an HTTP-date in any of RFC 9110's three forms, read as GMT), or null
 * when absent or unreadable (a negative or fractional number, a fragment of a date): the client's own backoff then.
 * A date in the past is 0. Not capped here: {@link backoffDelay} caps it at `maxRetryAfterMs`.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: Date): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return null;
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = parseHttpDate(trimmed, now);
  if (date === null) return null;
  return Math.max(0, date - now.getTime());
}

/** The wait before attempt `attempt + 1` (attempt counts from 1): Retry-After when given (capped), else full jitter. */
export function backoffDelay(
  attempt: number,
  retryAfterMs: number | null,
  options: RetryOptions,
  random: () => number,
): number {
  if (retryAfterMs !== null) return Math.min(retryAfterMs, options.maxRetryAfterMs);
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(random() * ceiling);
}
