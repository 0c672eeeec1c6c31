/**
 * The error of the local secret resolvers. It names the reference and what is wrong, never a secret value.
 */

/** Why a secret reference could not be resolved. */
export type SecretErrorCode =
  | 'INVALID_REF'
  | 'SECRETS_FILE_NOT_FOUND'
  | 'SECRETS_FILE_INVALID'
  | 'SECRET_NOT_FOUND'
  | 'SECRET_KEY_NOT_FOUND'
  | 'SECRET_NOT_STRING';

/** A secret reference that could not be resolved. Carries the reference (`id#key`), never a value. */
export class SecretResolutionError extends Error {
  override readonly name = 'SecretResolutionError';
  readonly code: SecretErrorCode;
  /** The reference as written in the desired state. */
  readonly ref: string;
  constructor(code: SecretErrorCode, ref: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.ref = ref;
  }
}
