/** Authenticates one request with Digest, before any routing, validation or side effect. */
import type { ApiKeyRec } from '../store/state.ts';
import { expectedResponse, isSupportedAlgorithm, parseDigestAuthorization, REALM, sameDigest } from './digest.ts';
import type { NonceStore } from './nonces.ts';

/** The outcome: the key, or a failure that needs a new challenge (`stale` true when only the nonce was too old). */
export type AuthResult = { ok: true; key: ApiKeyRec } | { ok: false; stale: boolean; reason: string };

function fail(reason: string, stale = false): AuthResult {
  return { ok: false, stale, reason };
}

/** True when the `uri` directive names the request target (origin-form, or absolute-form with the same target). */
function uriMatches(uri: string, target: string): boolean {
  if (uri === target) return true;
  if (/^https?:\/\//i.test(uri)) {
    try {
      const u = new URL(uri);
      return u.pathname + u.search === target;
    } catch {
      return false;
    }
  }
  return false;
}

/** Checks the Authorization header of a request whose method and request target (`req.url`) are given. */
export function authenticate(
  header: string | undefined,
  method: string,
  target: string,
  keys: ReadonlyMap<string, ApiKeyRec>,
  nonces: NonceStore,
): AuthResult {
  const c = parseDigestAuthorization(header);
  if (!c) return fail(header ? 'malformed Digest header' : 'no credentials');
  const { username, realm, nonce, uri, response } = c;
  if (!username || !nonce || !uri || !response || realm === undefined) return fail('missing directive');
  if (realm !== REALM) return fail('wrong realm');
  if (!isSupportedAlgorithm(c.algorithm)) return fail('unsupported algorithm');
  if (c.qop !== 'auth' || !c.cnonce || !c.nc || !/^[0-9a-fA-F]{1,8}$/.test(c.nc))
    return fail('qop=auth, nc and cnonce required');
  // RFC 7616 section 3.4: nc counts the requests sent with this nonce, the current one included, so the first is 1.
  // Any width is accepted (the Kubernetes operator sends `1`, not `00000001`; the reference), but never zero.
  const nc = Number.parseInt(c.nc, 16);
  if (nc === 0) return fail('nc must be at least 00000001');
  if (!uriMatches(uri, target)) return fail('uri does not match the request');
  const key = keys.get(username);
  if (!key) return fail('unknown key');
  if (!sameDigest(response, expectedResponse(c, method, key.privateKey))) return fail('wrong response');
  const check = nonces.use(nonce, nc);
  if (check === 'stale') return fail('stale nonce', true);
  if (check === 'replay') return fail('replayed nc');
  return { ok: true, key };
}
