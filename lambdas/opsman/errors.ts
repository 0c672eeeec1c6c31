/**
 * Errors of the Ops Manager client. Pure (no undici), so the core can test `instanceof` on them.
 * No error here ever carries a private key, an Authorization header or a secret field of a body.
 */

/** Context shared by every client error: which operation failed. */
export interface RequestContext {
  method: string;
  /** The path template, e.g. `/groups/{groupId}/alertConfigs/{alertConfigId}`; never the query string. */
  pathTemplate: string;
}

/** Base of every client error: a stable `code`, the request context and an optional cause. */
export class OpsManagerError extends Error {
  override name = 'OpsManagerError';
  readonly code: string;
  readonly method: string;
  readonly pathTemplate: string;

  constructor(code: string, message: string, context: RequestContext, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.method = context.method;
    this.pathTemplate = context.pathTemplate;
  }

  /**
   * What `JSON.stringify` shows: the message, the code and the context fields; a cause only as name, code and
   * message (the client sanitises causes before attaching them, so no header or body ever rides along).
   */
  toJSON(): Record<string, unknown> {
    const json: Record<string, unknown> = { name: this.name, code: this.code, message: this.message };
    for (const [field, value] of Object.entries(this)) {
      if (field !== 'cause' && !(field in json)) json[field] = value;
    }
    const cause = this.cause;
    if (cause instanceof Error) {
      json.cause = { name: cause.name, code: (cause as { code?: unknown }).code, message: cause.message };
    }
    return json;
  }
}

/** Ops Manager answered with a non-2xx status and (usually) its five-field error body. */
export class OpsManagerApiError extends OpsManagerError {
  override name = 'OpsManagerApiError';
  readonly status: number;
  /** Ops Manager's own error code (GROUP_NOT_FOUND, INVALID_ATTRIBUTE, …), or `HTTP_<status>` when the body had none. */
  readonly errorCode: string;
  readonly detail: string;
  /**
   * False when the body was not Ops Manager's error JSON (a proxy's page, another server): then a 404 does not mean
   * that the object is missing, only that something else answered.
   */
  readonly fromOpsManager: boolean;
  /** Attempts made, this answer's included (1 when it was not retried). */
  readonly attempts: number;

  /** `attempts` above 1 is said in the message: `... (after 4 attempts)`, so a person knows retries were spent. */
  constructor(
    status: number,
    errorCode: string,
    detail: string,
    context: RequestContext,
    options?: { cause?: unknown; fromOpsManager?: boolean; attempts?: number },
  ) {
    const attempts = options?.attempts ?? 1;
    super(
      'OPSMAN_API_ERROR',
      `${context.method} ${context.pathTemplate} failed: ${status} ${errorCode}: ${detail}${attempts > 1 ? ` (after ${attempts} attempts)` : ''}`,
      context,
      options === undefined ? undefined : { cause: options.cause },
    );
    this.status = status;
    this.errorCode = errorCode;
    this.detail = detail;
    this.fromOpsManager = options?.fromOpsManager ?? true;
    this.attempts = attempts;
  }
}

/** The credentials were refused after exactly one challenge (wrong key, or a key without the role). */
export class OpsManagerAuthError extends OpsManagerError {
  override name = 'OpsManagerAuthError';
  readonly status: number;
  readonly errorCode: string;

  constructor(
    status: number,
    errorCode: string,
    message: string,
    context: RequestContext,
    options?: { cause?: unknown },
  ) {
    super('OPSMAN_AUTH_ERROR', message, context, options);
    this.status = status;
    this.errorCode = errorCode;
  }
}

/**
 * A write (POST) may or may not have reached Ops Manager: the connection failed after the request was sent, the run
 * stopped before the answer, Ops Manager answered with a server error, or its answer was too large to read.
 * The caller must re-read before deciding whether to write again; the client never retries it blindly.
 */
export class AmbiguousWriteError extends OpsManagerError {
  override name = 'AmbiguousWriteError';
  /**
   * What happened after the request was sent, in fixed words (no server text): a caller that reports the write in its
   * own words (the reconciler's AMBIGUOUS_CREATE) keeps it, so a person can tell a 503 from a reset.
   */
  readonly why: string;

  /** `why` says what happened after the request was sent (default: the connection failed). */
  constructor(context: RequestContext, options?: { cause?: unknown; why?: string }) {
    const why = options?.why ?? 'the connection failed after the request was sent';
    super(
      'OPSMAN_AMBIGUOUS_WRITE',
      `${context.method} ${context.pathTemplate}: ${why}; it may or may not have been applied`,
      context,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.why = why;
  }
}

/** The request never got an answer (connection refused, timeouts, TLS) after every retry, or the deadline passed. */
export class OpsManagerTransportError extends OpsManagerError {
  override name = 'OpsManagerTransportError';
  readonly attempts: number;
  /**
   * What went wrong when the client could tell (a TLS problem such as `wrong-protocol`, `untrusted-certificate`,
   * `hostname-mismatch`, `expired-certificate`); undefined for a plain absence of an answer.
   */
  readonly problem: string | undefined;

  constructor(
    message: string,
    context: RequestContext,
    attempts: number,
    options?: { cause?: unknown; problem?: string },
  ) {
    super('OPSMAN_TRANSPORT_ERROR', message, context, options === undefined ? undefined : { cause: options.cause });
    this.attempts = attempts;
    this.problem = options?.problem;
  }
}

/**
 * The caller's AbortSignal stopped the request before Ops Manager answered (a Ctrl-C while planning). `sent` tells
 * whether the request may have reached Ops Manager; a POST that may have is an {@link AmbiguousWriteError} instead.
 */
export class OpsManagerAbortedError extends OpsManagerError {
  override name = 'OpsManagerAbortedError';
  /** Whether the request may have reached Ops Manager (false: it never left, or was never signed). */
  readonly sent: boolean;

  constructor(reason: string, sent: boolean, context: RequestContext) {
    const outcome = sent && context.method !== 'GET' ? '; the write may or may not have been applied' : '';
    super(
      'OPSMAN_ABORTED',
      `${context.method} ${context.pathTemplate}: stopped (${reason}) before Ops Manager answered${outcome}`,
      context,
    );
    this.sent = sent;
  }
}

/** A caller's argument or a client option is invalid (empty id, bad URL…); nothing was sent. */
export class OpsManagerValidationError extends OpsManagerError {
  override name = 'OpsManagerValidationError';

  constructor(message: string, context: RequestContext = { method: '', pathTemplate: '' }) {
    super('OPSMAN_VALIDATION_ERROR', message, context);
  }
}

/** A 2xx response the client cannot use: a body that is not JSON, a wrong shape, a pagination link loop. */
export class OpsManagerResponseError extends OpsManagerError {
  override name = 'OpsManagerResponseError';
  readonly status: number;

  constructor(status: number, message: string, context: RequestContext, options?: { cause?: unknown }) {
    super('OPSMAN_INVALID_RESPONSE', message, context, options);
    this.status = status;
  }
}

/**
 * A response body larger than the client's `maxResponseBytes`: refused from its `Content-Length`, or cut off while
 * streaming as soon as it passed the limit (the connection is then closed, never read to the end). Not retried: a
 * server or proxy that sent an oversized answer once sends it again, and each attempt would cost the memory again.
 */
export class OpsManagerResponseTooLargeError extends OpsManagerError {
  override name = 'OpsManagerResponseTooLargeError';
  /** The status of the oversized response (a 2xx write was applied even though its answer was refused). */
  readonly status: number;
  readonly limitBytes: number;
  /** Bytes read before the client stopped (0 when `Content-Length` alone refused it). */
  readonly receivedBytes: number;
  /** What `Content-Length` announced, when the server sent one. */
  readonly announcedBytes: number | undefined;

  constructor(
    context: RequestContext,
    detail: { status: number; limitBytes: number; receivedBytes: number; announcedBytes: number | undefined },
  ) {
    const arrived =
      detail.receivedBytes === 0 && detail.announcedBytes !== undefined
        ? `its Content-Length announced ${formatBytes(detail.announcedBytes)}, so none of it was read`
        : `${formatBytes(detail.receivedBytes)} had arrived when the client stopped reading and closed the connection`;
    super(
      'OPSMAN_RESPONSE_TOO_LARGE',
      `${context.method} ${context.pathTemplate}: the response (status ${detail.status}) is larger than the limit of ${formatBytes(detail.limitBytes)} (maxResponseBytes): ${arrived}; not retried (the same request would get the same answer)`,
      context,
    );
    this.status = detail.status;
    this.limitBytes = detail.limitBytes;
    this.receivedBytes = detail.receivedBytes;
    this.announcedBytes = detail.announcedBytes;
  }
}

/** `33,554,432 bytes (32 MiB)`: exact for the reader, rounded for a person. */
function formatBytes(bytes: number): string {
  const mib = bytes / 1_048_576;
  const rounded = mib >= 1 ? ` (${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB)` : '';
  return `${bytes.toLocaleString('en-US')} bytes${rounded}`;
}

/** The methods that change something in Ops Manager. */
export const WRITE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The oversized-answer error of a write Ops Manager applied: a 2xx answer to a POST, PUT, PATCH or DELETE over
 * `maxResponseBytes`, thrown as it is or, for a POST, as the cause of an {@link AmbiguousWriteError}. The write took
 * effect; only its echo is missing, as when a write is answered without a body. Undefined for anything else: an
 * oversized answer to a GET, or with a non-2xx status, stays an error.
 */
export function appliedWriteTooLarge(error: unknown): OpsManagerResponseTooLargeError | undefined {
  const tooLarge = error instanceof AmbiguousWriteError ? error.cause : error;
  if (!(tooLarge instanceof OpsManagerResponseTooLargeError)) return undefined;
  const applied = tooLarge.status >= 200 && tooLarge.status < 300 && WRITE_METHODS.has(tooLarge.method);
  return applied ? tooLarge : undefined;
}
