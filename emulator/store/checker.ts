/** A small collector of validation issues with paths, for the seed loader (every problem reported at once). */
import { isRecord } from '../../shared/is-record.ts';
import { isIsoDate, isObjectId, isoSeconds, parseIsoInstant } from '../ids.ts';

/** Collects issues such as `projects[2].orgId: unknown organization 5e22...`. */
export class Checker {
  /** Every issue found so far. */
  readonly issues: string[] = [];

  /** Records an issue at `path`. */
  add(path: string, message: string): void {
    this.issues.push(`${path}: ${message}`);
  }

  /** An object with only `allowed` keys (null when not an object). `allowed` undefined: any key. */
  object(value: unknown, path: string, allowed?: readonly string[]): Record<string, unknown> | null {
    if (!isRecord(value)) {
      this.add(path, `expected an object, found ${describe(value)}`);
      return null;
    }
    const record = value as Record<string, unknown>;
    if (allowed) {
      for (const key of Object.keys(record)) {
        if (!allowed.includes(key)) this.add(`${path}.${key}`, `unknown field (allowed: ${allowed.join(', ')})`);
      }
    }
    return record;
  }

  /** An array (empty when absent; null and an issue when not an array). */
  array(value: unknown, path: string): unknown[] {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      this.add(path, `expected a list, found ${describe(value)}`);
      return [];
    }
    return value;
  }

  /** A non-empty string, or undefined (with an issue when required or of the wrong type). */
  string(value: unknown, path: string, required = true): string | undefined {
    if (value === undefined || value === null) {
      if (required) this.add(path, 'required');
      return undefined;
    }
    if (typeof value !== 'string' || value.length === 0) {
      this.add(path, `expected a non-empty string, found ${describe(value)}`);
      return undefined;
    }
    return value;
  }

  /** A 24-hex identifier. */
  objectId(value: unknown, path: string, required = true): string | undefined {
    const s = this.string(value, path, required);
    if (s !== undefined && !isObjectId(s)) {
      this.add(path, `expected a 24-character lower-case hex id, found "${s}"`);
      return undefined;
    }
    return s;
  }

  /**
   * An ISO 8601 timestamp, returned in the form the API answers (UTC, second precision): the spec's `created` and
   * `updated` are "ISO 8601 UTC" timestamps, so an offset, a missing zone (read as UTC) or milliseconds in a seed
   * never reach an answer.
   */
  timestamp(value: unknown, path: string, required = true): string | undefined {
    const s = this.string(value, path, required);
    if (s === undefined) return undefined;
    const ms = /T/.test(s) ? parseIsoInstant(s) : null;
    if (ms === null) {
      this.add(path, `expected an ISO 8601 timestamp like 2026-11-01T10:00:00Z, found "${s}"`);
      return undefined;
    }
    return isoSeconds(ms);
  }

  /** A date YYYY-MM-DD. */
  date(value: unknown, path: string, required = true): string | undefined {
    const s = this.string(value, path, required);
    if (s !== undefined && !isIsoDate(s)) {
      this.add(path, `expected a date YYYY-MM-DD, found "${s}"`);
      return undefined;
    }
    return s;
  }

  /** A boolean. */
  boolean(value: unknown, path: string): boolean | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'boolean') this.add(path, `expected true or false, found ${describe(value)}`);
    return typeof value === 'boolean' ? value : undefined;
  }

  /** A finite number (integer when asked). */
  number(value: unknown, path: string, integer = false): number | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
      this.add(path, `expected ${integer ? 'an integer' : 'a number'}, found ${describe(value)}`);
      return undefined;
    }
    return value;
  }

  /** One of `allowed`. */
  oneOf<T extends string>(value: unknown, path: string, allowed: readonly T[]): T | undefined {
    const s = this.string(value, path);
    if (s === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(s)) {
      this.add(path, `expected one of ${allowed.join(', ')}, found "${s}"`);
      return undefined;
    }
    return s as T;
  }
}

/** A short description of a value for messages (never its full content). */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `"${value.length > 40 ? `${value.slice(0, 40)}...` : value}"`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}
