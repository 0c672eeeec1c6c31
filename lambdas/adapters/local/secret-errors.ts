/**
 * The error of the local secret resolvers. It names the reference and what is wrong, never a secret value.
 */
import { parseSecretRef } from '../../core/desired/secret-ref.ts';

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

/** Splits `<secret id>#<json key>`, or throws INVALID_REF: the first step of every local resolver. */
export function parseRefOrThrow(ref: string): NonNullable<ReturnType<typeof parseSecretRef>> {
  const parsed = parseSecretRef(ref);
  if (!parsed) {
    throw new SecretResolutionError(
      'INVALID_REF',
      ref,
      `secret reference "${ref}" is not of the form <secret id>#<json key>`,
    );
  }
  return parsed;
}
