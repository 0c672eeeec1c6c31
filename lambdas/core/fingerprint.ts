/**
 * Keyed fingerprints (HMAC-SHA-256) of what was applied: the state keeps these, never a secret in clear, and a secret
 * change is found by comparing them (a redacted live value says nothing about the real one).
 */
import type { AlertConfigRequest } from '../opsman/types.ts';
import { hmacHex, hmacOf } from './canonical.ts';

/**
 * Fingerprints computed during one plan, by path then value: a secret that many alert configs share is HMACed once.
 * Make one per plan and fingerprint key; it holds secret values as long as it lives (as the run's secret resolver
 * does), so it never outlives the run.
 */
export type FingerprintCache = Map<string, Map<string, string>>;

/** HMAC of one secret value, bound to its field path so equal values in two fields do not correlate. */
export function secretFingerprint(key: Uint8Array, path: string, value: string, cache?: FingerprintCache): string {
  // Looked up by the path and value strings themselves: no text is built on a hit.
  let byValue = cache?.get(path);
  const known = byValue?.get(value);
  if (known !== undefined) return known;
  // The canonical JSON of { path, value } written out: keys already sorted, both members strings.
  const fingerprint = hmacHex(key, `{"path":${JSON.stringify(path)},"value":${JSON.stringify(value)}}`);
  if (cache !== undefined) {
    if (byValue === undefined) {
      byValue = new Map();
      cache.set(path, byValue);
    }
    byValue.set(value, fingerprint);
  }
  return fingerprint;
}

/** HMAC of every secret of a body, by field path. */
export function secretFingerprints(key: Uint8Array, secrets: ReadonlyMap<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [path, value] of [...secrets.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    out[path] = secretFingerprint(key, path, value);
  }
  return out;
}

/** HMAC of the full request body (secrets included): identifies exactly what was sent. */
export function bodyFingerprint(key: Uint8Array, request: AlertConfigRequest): string {
  return hmacOf(key, request);
}

/** Paths whose secret differs from the stored fingerprints (changed, new, or no record of it). */
export function changedSecretPaths(
  key: Uint8Array,
  secrets: ReadonlyMap<string, string>,
  stored: Record<string, string> | undefined,
  cache?: FingerprintCache,
): string[] {
  const changed: string[] = [];
  for (const [path, value] of secrets) {
    if (stored?.[path] !== secretFingerprint(key, path, value, cache)) changed.push(path);
  }
  return changed.sort();
}

/**
 * Names the key without revealing it: the HMAC of a fixed label, cut to 16 hex digits. Recorded in the state by every
 * apply (`fingerprintKeyCheck`), so a run with another key (OPSMAN_FINGERPRINT_KEY changed, the key file lost, on AWS
 * the private key it is derived from rotated) can say why every secret reads as changed (state-origin.ts).
 */
export function fingerprintKeyCheck(key: Uint8Array): string {
  return hmacHex(key, 'opsman-gitops/fingerprint-key-check/v1').slice(0, 16);
}
