/**
 * Small helpers shared by the S3 adapters: classifying SDK errors by status, normalising prefixes, checking keys.
 */
import { InvalidKeyError, S3AccessError } from './errors.ts';

/** HTTP status of an AWS SDK v3 error, when it carries one. */
export function awsStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const meta = (error as { $metadata?: { httpStatusCode?: unknown } }).$metadata;
  return typeof meta?.httpStatusCode === 'number' ? meta.httpStatusCode : undefined;
}

/** Error name of an AWS SDK v3 error (`NoSuchKey`, `PreconditionFailed`...). */
export function awsErrorName(error: unknown): string {
  if (typeof error !== 'object' || error === null) return '';
  const name = (error as { name?: unknown }).name;
  return typeof name === 'string' ? name : '';
}

/** 412: an `IfMatch`/`IfNoneMatch` condition did not hold. */
export function isPreconditionFailed(error: unknown): boolean {
  return awsStatus(error) === 412 || awsErrorName(error) === 'PreconditionFailed';
}

/**
 * True when a write conditioned on `IfMatch` was refused because its condition did not hold: 412, or 404 NoSuchKey,
 * which is how S3 answers an `IfMatch` write to a key with no current object (deleted since it was read, or a delete
 * marker in a versioned bucket). A missing bucket (404 NoSuchBucket) is not (isNotFound): that is a deployment error.
 */
export function isIfMatchFailed(error: unknown): boolean {
  return isPreconditionFailed(error) || isNotFound(error);
}

/** 409 ConditionalRequestConflict: a concurrent conditional write was in flight; the request may be retried. */
export function isConditionalConflict(error: unknown): boolean {
  return awsStatus(error) === 409 || awsErrorName(error) === 'ConditionalRequestConflict';
}

/**
 * 404 NoSuchKey / NotFound: the object is absent. Not a 404 NoSuchBucket: read as an absent object, a deleted data
 * bucket made a state read look like a first run's (every owned config an adoption), and a plan-mode run go on `ok`.
 */
export function isNotFound(error: unknown): boolean {
  const name = awsErrorName(error);
  if (name === 'NoSuchBucket') return false;
  return awsStatus(error) === 404 || name === 'NoSuchKey' || name === 'NotFound';
}

/** Wraps any other SDK failure into an S3AccessError (message from the SDK, which never echoes bodies). */
export function accessError(operation: string, location: string, error: unknown): S3AccessError {
  const name = awsErrorName(error) || 'Error';
  const message = error instanceof Error ? error.message : String(error);
  return new S3AccessError(operation, location, awsStatus(error), `${name}: ${message}`, {
    cause: error,
    noSuchBucket: name === 'NoSuchBucket',
  });
}

/** `''` stays `''`; anything else gets exactly one trailing `/` and no leading `/`. */
export function normalisePrefix(prefix: string): string {
  const trimmed = prefix.replace(/^\/+/, '').replace(/\/+$/, '');
  return trimmed === '' ? '' : `${trimmed}/`;
}

/** Refuses keys that could escape a prefix or are not plain relative paths. */
export function checkRelativeKey(key: string): void {
  const problem = relativeKeyProblem(key);
  if (problem !== undefined) throw new InvalidKeyError(problem.shown, problem.detail);
}

/**
 * What makes `key` unusable as a relative key (empty, absolute, `\`, an empty, `.` or `..` segment, a control
 * character), with the key as it may be shown (control characters as `?`); undefined for a plain relative key.
 */
export function relativeKeyProblem(key: string): { detail: string; shown: string } | undefined {
  const problem = (detail: string) => ({ detail, shown: key });
  if (key === '') return problem('empty');
  if (key.startsWith('/')) return problem('must be relative (no leading /)');
  if (key.includes('\\')) return problem('must use / separators');
  if (key.split('/').some((part) => part === '' || part === '.' || part === '..')) {
    return problem("must not contain empty, '.' or '..' segments");
  }
  const isControl = (char: string) => {
    const code = char.codePointAt(0) ?? 0;
    return code < 0x20 || code === 0x7f;
  };
  if ([...key].some(isControl)) {
    return { detail: 'control characters', shown: [...key].map((c) => (isControl(c) ? '?' : c)).join('') };
  }
  return undefined;
}

/** True when one prefix contains the other (or they are equal): such prefixes must never be shared. */
export function prefixesOverlap(a: string, b: string): boolean {
  const x = normalisePrefix(a);
  const y = normalisePrefix(b);
  return x.startsWith(y) || y.startsWith(x);
}

/** An ETag without its surrounding quotes (S3 returns `"abc"`; SDK callers pass either form back). */
export function unquoteEtag(etag: string | undefined): string | undefined {
  return etag === undefined ? undefined : etag.replace(/^W\//, '').replace(/^"|"$/g, '');
}

/** The ETag as S3 expects it in `IfMatch` (quoted). */
export function quoteEtag(etag: string): string {
  return etag.startsWith('"') ? etag : `"${etag}"`;
}

/** Reads a GetObject body fully. */
export async function readBody(body: unknown): Promise<Uint8Array> {
  if (body === undefined || body === null) return new Uint8Array();
  const withTransform = body as { transformToByteArray?: () => Promise<Uint8Array> };
  if (typeof withTransform.transformToByteArray === 'function') return withTransform.transformToByteArray();
  throw new TypeError('unexpected S3 body type');
}

/** Default retry policy for 409 ConditionalRequestConflict. */
export interface ConflictRetryOptions {
  /** Attempts after the first on 409 (default 4). */
  maxRetries: number;
  /** Base delay, doubled per attempt, with full jitter (default 50 ms). */
  baseDelayMs: number;
  /** Sleep function (injectable for tests). */
  sleep: (ms: number) => Promise<void>;
}

/** Defaults for {@link ConflictRetryOptions}. */
export const DEFAULT_CONFLICT_RETRY: ConflictRetryOptions = {
  maxRetries: 4,
  baseDelayMs: 50,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** Runs `fn`, retrying while it fails with 409 ConditionalRequestConflict; rethrows the last error. */
export async function retryOnConflict<T>(fn: () => Promise<T>, options: ConflictRetryOptions): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (!isConditionalConflict(error) || attempt >= options.maxRetries) throw error;
      await options.sleep(Math.floor(Math.random() * options.baseDelayMs * 2 ** attempt));
    }
  }
}
