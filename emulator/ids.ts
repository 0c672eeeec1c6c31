/** Identifiers and timestamps in the real product's formats. */
import { createHash, randomBytes } from 'node:crypto';

let counter = randomBytes(3).readUIntBE(0, 3);
const processPart = randomBytes(5).toString('hex');

/** A fresh 24-hex ObjectId-like identifier: 4 bytes of seconds, 5 random bytes, a 3-byte counter. */
export function newObjectId(now = Date.now()): string {
  counter = (counter + 1) % 0x1000000;
  const seconds = Math.floor(now / 1000)
    .toString(16)
    .padStart(8, '0')
    .slice(-8);
  return `${seconds}${processPart}${counter.toString(16).padStart(6, '0')}`;
}

/** A deterministic 24-hex id derived from a name (API keys without an explicit id in the seed). */
export function derivedObjectId(name: string): string {
  return createHash('sha256').update(name).digest('hex').slice(0, 24);
}

/** True for a 24-hex identifier. */
export function isObjectId(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{24}$/.test(value);
}

/** ISO 8601 UTC with second precision, as the real product writes `created` and `updated`: 2016-08-19T20:36:44Z. */
export function isoSeconds(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/**
 * Parses an ISO 8601 timestamp or date (`2026-11-01`, `2026-11-01T10:00:00Z`, with or without milliseconds or an
 * offset); null when it is not one.
 */
export function parseIsoInstant(value: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)) return null;
  const ms = Date.parse(/T/.test(value) && !/(Z|[+-]\d{2}:?\d{2})$/.test(value) ? `${value}Z` : value);
  return Number.isNaN(ms) ? null : ms;
}

/** True for a calendar date `YYYY-MM-DD` that exists. */
export function isIsoDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().startsWith(value);
}
