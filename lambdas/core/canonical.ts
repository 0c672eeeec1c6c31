/** Canonical JSON and digests: the same value always serialises to the same text, whatever the key order. */
import { createHash, createHmac } from 'node:crypto';

/**
 * Serialises `value` with object keys sorted, `undefined` members dropped, and numbers in their shortest form
 * (so 90 and 90.0 are the same text).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) return 'null';
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** Hex sha256 of a string (UTF-8) or bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Hex sha256 of the canonical JSON of a value. */
export function digestOf(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/** Hex HMAC-SHA-256 of the canonical JSON of a value under `key`. */
export function hmacOf(key: Uint8Array, value: unknown): string {
  return createHmac('sha256', key).update(canonicalJson(value)).digest('hex');
}
