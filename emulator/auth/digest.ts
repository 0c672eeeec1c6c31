/**
 * HTTP Digest (RFC 7616, RFC 2617) as the real product speaks it: the challenge header byte-for-byte as the reference
 * shows it, and verification of MD5, MD5-sess, SHA-256 and SHA-256-sess responses with qop=auth.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** The fixed realm of the public API. */
export const REALM = 'MMS Public API';

/** The challenge header value, exactly in the real product's form. */
export function challengeHeader(nonce: string, stale: boolean): string {
  return `Digest realm="${REALM}", domain="", nonce="${nonce}", algorithm=MD5, qop="auth", stale=${stale}`;
}

/** Parsed directives of an `Authorization: Digest ...` header (names lower-cased). */
export type DigestCredentials = Record<string, string>;

/** Parses the header; null when it is not a well-formed Digest header. */
export function parseDigestAuthorization(header: string | undefined): DigestCredentials | null {
  if (!header) return null;
  const m = /^\s*Digest\s+(.*)$/is.exec(header);
  if (!m) return null;
  const text = m[1] ?? '';
  // No prototype: a parameter named like an Object.prototype member (constructor, __proto__) is a parameter like any
  // other, not a duplicate of an inherited one, and cannot reach the prototype.
  const out: DigestCredentials = Object.create(null);
  let i = 0;
  while (i < text.length) {
    while (i < text.length && (text[i] === ' ' || text[i] === ',' || text[i] === '\t')) i++;
    if (i >= text.length) break;
    const eq = text.indexOf('=', i);
    if (eq < 0) return null;
    const name = text.slice(i, eq).trim().toLowerCase();
    if (!/^[a-z0-9_*-]+$/.test(name)) return null;
    i = eq + 1;
    let value = '';
    if (text[i] === '"') {
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\' && i + 1 < text.length) i++;
        value += text[i];
        i++;
      }
      if (text[i] !== '"') return null;
      i++;
    } else {
      const end = text.indexOf(',', i);
      value = text.slice(i, end < 0 ? text.length : end).trim();
      i = end < 0 ? text.length : end;
    }
    if (name in out) return null;
    out[name] = value;
  }
  return out;
}

const HASHES: Record<string, { hash: 'md5' | 'sha256'; sess: boolean }> = {
  MD5: { hash: 'md5', sess: false },
  'MD5-SESS': { hash: 'md5', sess: true },
  'SHA-256': { hash: 'sha256', sess: false },
  'SHA-256-SESS': { hash: 'sha256', sess: true },
};

/** True when the algorithm (default MD5) is one the emulator verifies. */
export function isSupportedAlgorithm(algorithm: string | undefined): boolean {
  return (algorithm ?? 'MD5').toUpperCase() in HASHES;
}

/** The expected `response` for these credentials, method and password (qop=auth, or none for RFC 2069 clients). */
export function expectedResponse(c: DigestCredentials, method: string, password: string): string {
  const alg = HASHES[(c.algorithm ?? 'MD5').toUpperCase()] ?? { hash: 'md5', sess: false };
  const h = (s: string) => createHash(alg.hash).update(s, 'utf8').digest('hex');
  let ha1 = h(`${c.username}:${c.realm}:${password}`);
  if (alg.sess) ha1 = h(`${ha1}:${c.nonce}:${c.cnonce ?? ''}`);
  const ha2 = h(`${method}:${c.uri}`);
  if (c.qop) return h(`${ha1}:${c.nonce}:${c.nc}:${c.cnonce}:${c.qop}:${ha2}`);
  return h(`${ha1}:${c.nonce}:${ha2}`);
}

/** Constant-time comparison of two hex digests (case-insensitive). */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a.toLowerCase());
  const y = Buffer.from(b.toLowerCase());
  return x.length === y.length && timingSafeEqual(x, y);
}
