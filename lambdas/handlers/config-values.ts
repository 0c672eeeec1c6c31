/**
 * Checks of single environment variable values for config.ts: whole numbers within a range, and a short, safe quote
 * of what was given for the message.
 */
import { SNAPSHOT_POLICIES, type SnapshotPolicy } from '../core/desired/snapshot-check.ts';

/**
 * Longest value quoted whole in a message (a bucket name has up to 63 characters); a longer one is described by its
 * length, so that the answer and the log line stay short.
 */
const QUOTED_LENGTH = 64;

/** `"value"`, or `a value of N characters` when it is long. */
export function quoteValue(value: string): string {
  return value.length > QUOTED_LENGTH ? `a value of ${value.length} characters` : JSON.stringify(value);
}

/** A whole-number variable's range, and how its message words it. */
export interface WholeNumberRange {
  min: number;
  max: number;
  /** Inserted after "a whole number": ` of milliseconds`, or `` for a plain count. */
  unit?: string;
  /** Why the upper bound is what it is, in parentheses after the range. */
  why?: string;
}

/**
 * Reads a whole number in `[min, max]` from `env[name]`: `undefined` when unset or empty, the number when valid, and
 * otherwise a problem naming the variable, the allowed range and the value given. Only digits are accepted (no sign,
 * exponent, fraction or spaces), and the range is checked on the digits' count before `Number()` so that a value past
 * 2^53 is never rounded into something that looks valid.
 */
export function readWholeNumber(
  env: NodeJS.ProcessEnv,
  name: string,
  range: WholeNumberRange,
): { value?: number; problem?: string } {
  const raw = env[name];
  if (raw === undefined || raw === '') return {};
  const digits = /^\d+$/.test(raw) ? raw.replace(/^0+(?=\d)/, '') : undefined;
  const value = digits !== undefined && digits.length <= String(range.max).length ? Number(digits) : Number.NaN;
  if (value >= range.min && value <= range.max) return { value };
  const why = range.why ? ` (${range.why})` : '';
  return {
    problem: `${name} must be a whole number${range.unit ?? ''} from ${range.min} to ${range.max}${why}; got ${quoteValue(raw)}`,
  };
}

/**
 * Reads DESIRED_STATE_SNAPSHOT: `required` or `optional` (also unset or empty: the default), nothing else. A typo such
 * as `require` is refused rather than read as optional, which would quietly turn the torn-upload check off.
 */
export function readSnapshotPolicy(env: NodeJS.ProcessEnv): {
  value?: SnapshotPolicy;
  problem?: string;
} {
  const raw = env.DESIRED_STATE_SNAPSHOT;
  const value = raw?.trim() ?? '';
  if (value === '') return {};
  const known = SNAPSHOT_POLICIES.find((p) => p === value);
  if (known !== undefined) return { value: known };
  return { problem: `DESIRED_STATE_SNAPSHOT must be required or optional; got ${quoteValue(raw ?? '')}` };
}
