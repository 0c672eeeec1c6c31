/**
 * Content-addressed archive keys (`…/sha256/<hex>.<ext>`): the object under one must hash to the name, whichever store
 * holds it. Both archive stores check it here, so a local archive and an S3 one refuse the same writes.
 */
import { sha256Hex } from './canonical.ts';

const CONTENT_ADDRESSED = /(?:^|\/)sha256\/([0-9a-f]{64})\.[a-z]+$/;

/** Why `body` cannot be stored under `key` (its digest differs from the one the key names), or undefined. */
export function contentAddressMismatch(key: string, body: string | Uint8Array): string | undefined {
  const named = CONTENT_ADDRESSED.exec(key)?.[1];
  if (named === undefined) return undefined;
  const digest = sha256Hex(body);
  return digest === named ? undefined : `content has sha256 ${digest}`;
}
