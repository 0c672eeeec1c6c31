/** Canonical JSON and digests: the same value always serialises to the same text, whatever the key order. */
import { createHmac, hash } from 'node:crypto';

/**
 * Serialises `value` with object keys sorted, `undefined` members dropped, and numbers in their shortest form
 * (so 90 and 90.0 are the same text).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'string') return JSON.stringify(value);
    if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
    if (typeof value === 'boolean') return value ? 'true' : 'false';
    return 'null';
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += canonicalJson(value[i]);
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    const v = record[key];
    if (v === undefined) continue;
    if (!first) out += ',';
    first = false;
    out += `${JSON.stringify(key)}:${canonicalJson(v)}`;
  }
  return `${out}}`;
}

/** Hex sha256 of a string (UTF-8) or bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  // One-shot hash: no Hash object per call (this runs once per live alert config).
  return hash('sha256', data, 'hex');
}

/** Hex sha256 of the canonical JSON of a value. */
export function digestOf(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/** Hex HMAC-SHA-256 of a text (UTF-8) under `key`. */
export function hmacHex(key: Uint8Array, text: string): string {
  return createHmac('sha256', key).update(text).digest('hex');
}

/** Hex HMAC-SHA-256 of the canonical JSON of a value under `key`. */
export function hmacOf(key: Uint8Array, value: unknown): string {
  return hmacHex(key, canonicalJson(value));
}
