/**
 * Errors of the handlers, and the one place every error a run can raise is mapped to what the handler reports:
 * a stable code, a value-free message, and whether an asynchronous invocation should be retried.
 */
import { LeaseWaitInterruptedError } from '../core/errors.ts';
import { OpsManagerError } from '../opsman/errors.ts';

/** Base of the handlers' own errors. */
export class HandlerError extends Error {
  override name = 'HandlerError';
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** The invocation event is not one the function accepts. */
export class InvalidEventError extends HandlerError {
  override name = 'InvalidEventError';

  constructor(message: string) {
    super('INVALID_EVENT', `invalid event: ${message}`);
  }
}

/** A required environment variable is missing or malformed (a deployment error). */
export class ConfigError extends HandlerError {
  override name = 'ConfigError';
  readonly problems: string[];

  constructor(problems: string[]) {
    super('CONFIG_INVALID', `invalid configuration: ${problems.join('; ')}`);
    this.problems = problems;
  }
}

/** How an error is reported. */
export interface ErrorOutcome {
  code: string;
  message: string;
  /** Retrying later can succeed (lease held, throttling, network), so async invocations rethrow. */
  retryable: boolean;
}

/**
 * Codes a later attempt can get past. DESIRED_STATE_IN_TRANSIT: an upload in progress ends (its manifest lands last and
 * starts a run of its own); the retries only matter when that notification is lost or the upload was interrupted.
 */
const RETRYABLE_CODES = new Set([
  'LEASE_HELD',
  'LEASE_LOST',
  'STATE_CONFLICT',
  'S3_ACCESS',
  'SECRET_UNAVAILABLE',
  'DESIRED_STATE_IN_TRANSIT',
]);

/** Maps any thrown value to an outcome. Messages of our errors are value-free by construction. */
export function classifyError(error: unknown): ErrorOutcome {
  if (error instanceof OpsManagerError) {
    const status = (error as { status?: unknown }).status;
    const retryable = typeof status !== 'number' || status >= 500 || status === 429;
    // Refused credentials, and options or arguments the client refuses before sending: a retry meets the same answer.
    const final = error.code === 'OPSMAN_AUTH_ERROR' || error.code === 'OPSMAN_VALIDATION_ERROR';
    return { code: error.code, message: error.message, retryable: !final && retryable };
  }
  // Stopped by the time limit while another run held the lease: skipped by that overlap (LEASE_HELD, retried), not a
  // failure of this run; the CLI's INTERRUPTED (exit 130) is for a person who pressed Ctrl-C.
  if (error instanceof LeaseWaitInterruptedError) return classifyError(error.held);
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code)) {
      return { code, message: error.message, retryable: RETRYABLE_CODES.has(code) };
    }
    // Unknown errors: the name only. A foreign message could quote anything, a body or a header included.
    return { code: 'INTERNAL', message: `unexpected ${error.name}; see the log for the stack`, retryable: true };
  }
  return { code: 'INTERNAL', message: `unexpected ${typeof error} thrown`, retryable: true };
}
