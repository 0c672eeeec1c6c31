/** Errors of the Digest module: a malformed or unsupported challenge. Never carries a credential. */

/** Stable codes of {@link DigestError}. */
export type DigestErrorCode = 'DIGEST_MALFORMED_CHALLENGE' | 'DIGEST_NO_CHALLENGE' | 'DIGEST_UNSUPPORTED_CHALLENGE';

/** A WWW-Authenticate header that cannot be parsed, or offers nothing this client can answer. */
export class DigestError extends Error {
  override name = 'DigestError';
  readonly code: DigestErrorCode;

  constructor(code: DigestErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
