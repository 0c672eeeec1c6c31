/**
 * Redaction of secrets on read. Key-like values keep their last 4 characters; a webhook URL keeps its scheme and
 * host; a webhook secret is masked entirely. Masks preserve the length, so a mask identifies its value's shape only.
 */
import { KEY_LIKE_FIELDS } from './catalog.ts';

const MASK = '*';

/** `abcdef123456` -> `********3456`; 4 characters or fewer are masked entirely. */
export function maskKeepLast4(value: string): string {
  if (value.length <= 4) return MASK.repeat(value.length);
  return MASK.repeat(value.length - 4) + value.slice(-4);
}

/** `https://hooks.example.com/services/T0/B1` -> `https://hooks.example.com/***************`. */
export function maskUrl(value: string): string {
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*)(.*)$/.exec(value);
  if (!match) return maskKeepLast4(value);
  const origin = match[1] ?? '';
  const rest = match[2] ?? '';
  if (rest.length <= 1) return origin + rest;
  return `${origin}/${MASK.repeat(rest.length - 1)}`;
}

/** Every character masked. */
export function maskAll(value: string): string {
  return MASK.repeat(value.length);
}

/** The redacted form of one notification field's value, or the value itself when the field is not secret. */
export function redactField(field: string, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  if (KEY_LIKE_FIELDS.has(field)) return maskKeepLast4(value);
  if (field === 'webhookUrl') return maskUrl(value);
  if (field === 'webhookSecret') return maskAll(value);
  return value;
}
