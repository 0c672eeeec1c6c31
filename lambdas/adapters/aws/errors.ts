/**
 * Errors of the AWS adapters. One base class (`AwsAdapterError`) with a stable `code` and context fields; messages
 * name buckets, keys and secret ids, never a secret value or an object's content.
 *
 * The StateStore port's own errors (StateConflictError, StateCorruptError, LeaseHeldError, LeaseLostError) come from
 * lambdas/core/errors.ts, so the core can match them with `instanceof`.
 */

/** Base of every AWS adapter error: a stable `code` and an optional cause. */
export class AwsAdapterError extends Error {
  override name = 'AwsAdapterError';
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/**
 * An S3 call failed for a reason other than the conditions above (throttling, a server error, network): code S3_ACCESS
 * (retryable). A 403 is S3_ACCESS_DENIED, and a 404 NoSuchBucket (`noSuchBucket`) S3_NO_SUCH_BUCKET: both final, as a
 * retry meets the same policy, key policy or missing bucket.
 */
export class S3AccessError extends AwsAdapterError {
  override name = 'S3AccessError';
  readonly operation: string;
  readonly location: string;
  readonly status: number | undefined;

  constructor(
    operation: string,
    location: string,
    status: number | undefined,
    detail: string,
    options?: { cause?: unknown; noSuchBucket?: boolean },
  ) {
    const denied = status === 403;
    const missing = options?.noSuchBucket === true;
    const hint = denied
      ? '; check the function role and the bucket policy (and the KMS key policy of an encrypted bucket)'
      : missing
        ? "; the bucket does not exist: check the function's DESIRED_STATE_BUCKET and STATE_BUCKET (cdk deploy sets them) and that the bucket was not deleted"
        : '';
    super(
      denied ? 'S3_ACCESS_DENIED' : missing ? 'S3_NO_SUCH_BUCKET' : 'S3_ACCESS',
      `${operation} ${location} failed${status ? ` (${status})` : ''}: ${detail}${hint}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.operation = operation;
    this.location = location;
    this.status = status;
  }
}

/** A key or path handed to an adapter is unsafe or malformed (absolute, `..`, empty, wrong hash). */
export class InvalidKeyError extends AwsAdapterError {
  override name = 'InvalidKeyError';
  readonly key: string;

  constructor(key: string, detail: string) {
    super('INVALID_KEY', `invalid key '${key}': ${detail}`);
    this.key = key;
  }
}

/**
 * An object's `Content-Encoding` cannot be undone (an unknown coding, a corrupt or oversized gzip stream): code
 * S3_CONTENT_ENCODING, final (the same object answers the same way until it is uploaded again).
 */
export class S3ContentEncodingError extends AwsAdapterError {
  override name = 'S3ContentEncodingError';
  readonly location: string;

  constructor(location: string, detail: string, options?: { cause?: unknown }) {
    super('S3_CONTENT_ENCODING', `${location} ${detail}`, options);
    this.location = location;
  }
}

/** A Secrets Manager secret is missing, unreadable or not of the expected shape. Never carries a value. */
export class SecretsManagerAdapterError extends AwsAdapterError {
  override name = 'SecretsManagerAdapterError';
  readonly secretId: string;
  /** The JSON key asked for, when any. */
  readonly jsonKey: string | undefined;

  constructor(
    code: string,
    secretId: string,
    jsonKey: string | undefined,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(code, `secret '${secretId}'${jsonKey ? ` key '${jsonKey}'` : ''}: ${detail}`, options);
    this.secretId = secretId;
    this.jsonKey = jsonKey;
  }
}
