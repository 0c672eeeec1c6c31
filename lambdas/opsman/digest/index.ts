/** Digest access authentication (RFC 7616, RFC 2617, RFC 2069), hand-written on node:crypto. */
export { type DigestAlgorithm, type DigestChallenge, selectDigestChallenge } from './challenge.ts';
export { type AuthChallenge, parseAuthenticateHeader, parseAuthenticationInfo } from './challenge-parser.ts';
export { DigestError, type DigestErrorCode } from './errors.ts';
export { NonceCache, type NonceUse } from './nonce-cache.ts';
export {
  buildDigestAuthorization,
  computeDigestResponse,
  type DigestResponseInput,
  formatNonceCount,
  generateCnonce,
} from './response.ts';
