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
 * Parses an ISO 8601 timestamp or date (`2026-11-01`, `2026-11-01T10:00:00Z`, with or without seconds, a fraction of
 * up to nine digits or an offset; no zone is UTC); null when it is not one. Strict like the real product's Java
 * parser: a day the month does not have, hour 24 or an offset beyond 18 hours is no instant (Date.parse would roll
 * 30 February over into March).
 */
export function parseIsoInstant(value: string): number | null {
  const m = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.exec(value);
  if (m === null) return null;
  const [, date = '', hours = '00', minutes = '00', seconds = '00', fraction = '', zone = 'Z'] = m;
  if (!isIsoDate(date) || Number(hours) > 23 || Number(minutes) > 59 || Number(seconds) > 59) return null;
  const offset = zone === 'Z' ? 0 : Number(zone.slice(1, 3)) * 60 + Number(zone.slice(-2));
  if (offset > 18 * 60 || Number(zone.slice(-2)) > 59) return null;
  const millis = Number(fraction.slice(1, 4).padEnd(3, '0'));
  const sign = zone.startsWith('-') ? -1 : 1;
  return Date.parse(`${date}T${hours}:${minutes}:${seconds}Z`) + millis - sign * offset * 60_000;
}

/** True for a calendar date `YYYY-MM-DD` that exists. */
export function isIsoDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().startsWith(value);
}
