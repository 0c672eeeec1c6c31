/**
 * Digest challenges (RFC 7616 section 3.3): validation of the parsed parameters and the choice of the strongest
 * challenge this client can answer when a server offers several (SHA-512-256 > SHA-256 > MD5; the server's order
 * breaks ties, so `-sess` variants are taken when listed first).
 */
import { type AuthChallenge, parseAuthenticateHeader } from './challenge-parser.ts';
import { DigestError } from './errors.ts';

/** The algorithms this client answers, with `-sess` variants. */
export type DigestAlgorithm = 'MD5' | 'MD5-sess' | 'SHA-256' | 'SHA-256-sess' | 'SHA-512-256' | 'SHA-512-256-sess';

/** A Digest challenge this client can answer. */
export interface DigestChallenge {
  realm: string;
  nonce: string;
  algorithm: DigestAlgorithm;
  /** `auth` when the server offers it; null for an RFC 2069 server that sends no qop at all. */
  qop: 'auth' | null;
  opaque?: string;
  stale: boolean;
  /** Every parameter as received (lower-cased names), unknown ones included. */
  params: ReadonlyMap<string, string>;
}

const ALGORITHMS: ReadonlyMap<string, { algorithm: DigestAlgorithm; strength: number }> = new Map([
  ['md5', { algorithm: 'MD5', strength: 1 }],
  ['md5-sess', { algorithm: 'MD5-sess', strength: 1 }],
  ['sha-256', { algorithm: 'SHA-256', strength: 2 }],
  ['sha-256-sess', { algorithm: 'SHA-256-sess', strength: 2 }],
  ['sha-512-256', { algorithm: 'SHA-512-256', strength: 3 }],
  ['sha-512-256-sess', { algorithm: 'SHA-512-256-sess', strength: 3 }],
]);

function malformed(reason: string): never {
  throw new DigestError('DIGEST_MALFORMED_CHALLENGE', `malformed Digest challenge: ${reason}`);
}

/** A server's value as a message quotes it: JSON-escaped (no control characters), at most 40 characters. */
function shown(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 37)}...` : value);
}

/**
 * Validates one `Digest` challenge; when it is well formed but unanswerable, the reason (`algorithm "SHA-1"`, `qop
 * "auth-int"`) a message names.
 */
function toDigestChallenge(challenge: AuthChallenge): { challenge: DigestChallenge; strength: number } | string {
  if (challenge.token68 !== undefined) malformed('expected name=value parameters, found a bare token');
  const { params } = challenge;
  const realm = params.get('realm');
  const nonce = params.get('nonce');
  if (realm === undefined) malformed("the 'realm' parameter is missing");
  if (nonce === undefined || nonce === '') malformed("the 'nonce' parameter is missing or empty");
  const algorithm = params.get('algorithm') ?? 'MD5';
  const known = ALGORITHMS.get(algorithm.toLowerCase());
  if (known === undefined) return `algorithm ${shown(algorithm)}`;
  let qop: 'auth' | null = null;
  const qopValue = params.get('qop');
  if (qopValue !== undefined) {
    const offered = qopValue.split(',').map((q) => q.trim().toLowerCase());
    if (!offered.includes('auth')) return `qop ${shown(qopValue)}`;
    qop = 'auth';
  } else if (params.get('op')?.trim().toLowerCase() === 'auth') {
    // The spec describes Ops Manager's challenge as carrying "op set to auth" (its docs' typo for qop): a server
    // written from it may send `op="auth"` and check a qop=auth answer, which an RFC 2069 answer would fail.
    qop = 'auth';
  }
  // A -sess HA1 mixes in the client's cnonce, which a client may send only with a qop (RFC 2617 section 3.2.2): without
  // one, the server cannot know the cnonce and no answer can be verified (it would read as a wrong key).
  if (qop === null && known.algorithm.endsWith('-sess')) return `algorithm ${shown(algorithm)} without qop`;
  const stale = (params.get('stale') ?? 'false').toLowerCase() === 'true';
  const opaque = params.get('opaque');
  const result: DigestChallenge = { realm, nonce, algorithm: known.algorithm, qop, stale, params };
  if (opaque !== undefined) result.opaque = opaque;
  return { challenge: result, strength: known.strength };
}

/** `Basic (realm "corp-sso")`: a non-Digest challenge as a message names it (the realm is the server's public label). */
function describeScheme(challenge: AuthChallenge): string {
  const realm = challenge.params.get('realm');
  const scheme = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,40}$/.test(challenge.scheme) ? challenge.scheme : 'an unknown scheme';
  return realm === undefined ? scheme : `${scheme} (realm ${JSON.stringify(realm.slice(0, 80))})`;
}

/**
 * Why a 401 without a Digest challenge cannot be answered, and what it usually means: Ops Manager's Public API always
 * challenges with Digest, so another scheme (Basic, Bearer, Negotiate) comes from something in front of it.
 */
function noDigestMessage(hadHeader: boolean, others: readonly string[]): string {
  const offered =
    others.length > 0
      ? `offers only ${[...new Set(others)].join(', ')}, no Digest challenge`
      : hadHeader
        ? 'carries no Digest challenge'
        : 'carries no WWW-Authenticate challenge at all';
  return `the 401 response ${offered}; Ops Manager's Public API always asks for Digest, so this answer probably comes from a proxy or login gateway in front of it, or the base URL is not Ops Manager's`;
}

/**
 * Picks the strongest answerable Digest challenge out of every `WWW-Authenticate` value of a response (undici gives a
 * string, or an array when the header repeats). A malformed header line is skipped when another line yields a usable
 * challenge. Throws {@link DigestError}: `DIGEST_NO_CHALLENGE`, `DIGEST_MALFORMED_CHALLENGE` or
 * `DIGEST_UNSUPPORTED_CHALLENGE`.
 */
export function selectDigestChallenge(header: string | string[] | undefined): DigestChallenge {
  const lines = header === undefined ? [] : Array.isArray(header) ? header : [header];
  let best: { challenge: DigestChallenge; strength: number } | null = null;
  let firstError: DigestError | null = null;
  let sawDigest = false;
  const others: string[] = [];
  const unanswerable: string[] = [];
  for (const line of lines) {
    try {
      for (const parsed of parseAuthenticateHeader(line)) {
        if (parsed.scheme.toLowerCase() !== 'digest') {
          others.push(describeScheme(parsed));
          continue;
        }
        sawDigest = true;
        const candidate = toDigestChallenge(parsed);
        if (typeof candidate === 'string') unanswerable.push(candidate);
        else if (best === null || candidate.strength > best.strength) best = candidate;
      }
    } catch (error) {
      if (!(error instanceof DigestError)) throw error;
      firstError ??= error;
    }
  }
  if (best !== null) return best.challenge;
  if (firstError !== null) throw firstError;
  if (!sawDigest) throw new DigestError('DIGEST_NO_CHALLENGE', noDigestMessage(lines.length > 0, others));
  throw new DigestError(
    'DIGEST_UNSUPPORTED_CHALLENGE',
    `the server offers only Digest challenges this client cannot answer (${[...new Set(unanswerable)].join(', ')}; supported: MD5, SHA-256 and SHA-512-256 with qop=auth or no qop, their -sess variants with qop=auth); Ops Manager's Public API asks for MD5 with qop=auth, so this challenge probably comes from a proxy in front of it, or the base URL is not Ops Manager's`,
  );
}
