/**
 * Validation of the option values that are more than a string: closed lists, numbers, durations, URLs. Each throws
 * UsageError.
 */

import { closest } from '../../shared/suggest.ts';
import { checkPublicApiBaseUrl } from '../opsman/base-url.ts';
import { UsageError } from './errors.ts';

/**
 * A value of a closed list, or undefined when absent. A near miss gets a did-you-mean, case included (`APPLY` is one
 * step from `apply` for the reader, though five for the edit distance).
 */
export function oneOf<T extends string>(
  flag: string,
  value: string | undefined,
  allowed: readonly T[],
  command?: string,
): T | undefined {
  if (value === undefined) return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  const suggestion = closest(value.toLowerCase(), allowed);
  const hint = suggestion !== undefined ? `; did you mean "${suggestion}"?` : '';
  throw new UsageError(`${flag} expects one of ${allowed.join(', ')}; found "${value}"${hint}`, command);
}

/** Largest value of a whole-number option: six digits, as the check reads them. */
export const WHOLE_NUMBER_MAX = 999_999;

/** A whole number from 0 to WHOLE_NUMBER_MAX, or undefined when absent. */
export function nonNegativeInteger(flag: string, value: string | undefined, command?: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,6}$/.test(value)) {
    // The bound is said: `99999999` is a whole number >= 0, and a message that says only that reads as a bug.
    throw new UsageError(`${flag} expects a whole number from 0 to ${WHOLE_NUMBER_MAX}, found '${value}'`, command);
  }
  return Number(value);
}

/** Seconds to wait for a lease: 0..86400, up to millisecond precision. */
export function leaseWait(value: string | undefined, command?: string): number {
  if (value === undefined) return 0;
  if (!/^\d{1,5}(\.\d{1,3})?$/.test(value) || Number(value) > 86_400) {
    throw new UsageError(
      `--lease-wait expects seconds from 0 to 86400, a plain decimal with at most 3 decimals (30, 1.5), found '${value}'`,
      command,
    );
  }
  return Number(value);
}

/** Bounds of --request-timeout, in seconds: under a second nothing real answers; past an hour nobody is waiting. */
export const REQUEST_TIMEOUT_BOUNDS = { min: 1, max: 3600 } as const;

/**
 * Seconds one Ops Manager request may take, retries included (the client's deadline): a number from 1 to 3600 with
 * up to millisecond precision (`120`, `2.5`), or undefined when absent.
 */
export function requestTimeout(value: string | undefined, command?: string): number | undefined {
  if (value === undefined) return undefined;
  const { min, max } = REQUEST_TIMEOUT_BOUNDS;
  if (!/^\d{1,4}(\.\d{1,3})?$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(
      `--request-timeout expects seconds from ${min} to ${max}, a plain decimal with at most 3 decimals (how long one Ops Manager request may take, retries included; default 120), found '${value}'`,
      command,
    );
  }
  return Number(value);
}

/**
 * The Ops Manager base URL (the Public API root, `…/api/public/v1.0`), trailing slashes dropped; undefined when
 * absent or empty. The rule is checkPublicApiBaseUrl's, shared with the Lambda handlers; `source` names where the value
 * came from in the refusal.
 */
export function baseUrl(
  value: string | undefined,
  command?: string,
  source: '--base-url' | 'OPSMAN_BASE_URL' = '--base-url',
): string | undefined {
  if (value === undefined || value === '') return undefined;
  // Named by where it came from: a stale OPSMAN_BASE_URL is not found by looking at the command line.
  const checked = checkPublicApiBaseUrl(source, value);
  if (!checked.ok) throw new UsageError(checked.problem, command);
  return checked.url;
}
