/**
 * The desired-state cache key: what a validated DesiredState depends on, hashed. Like Argo CD's generated-manifest
 * cache keyed by commit, a run whose desired-state bytes (and loader) are unchanged may reuse the state an earlier run
 * validated, and skip parsing, schema and cross-document checks. Pure: no I/O here.
 *
 * The key covers:
 * - CACHE_FORMAT_VERSION: the layout of a cache entry (cache-entry.ts);
 * - the loader fingerprint: the JSON Schema (canonical JSON) and LOADER_VERSION;
 * - every LoadOptions field (a limit can turn a valid state invalid);
 * - every YAML file's path, content sha256 and source version (the version is part of DesiredState.files).
 * The pinned version manifest is read after parsing, so it cannot be in the key: the entry records it and a hit is
 * valid only while it still has the same sha256 (cache-lookup.ts re-reads it).
 *
 * Entries are authenticated (cache-entry.ts) with a key derived from the run's fingerprint key: the key above is
 * computable by anyone who can read the desired state, so without a MAC whoever could write the cache location could
 * make a run use a desired state that is not in git (webhook URLs of their choosing, secrets referenced to them).
 */
import { createHash, createHmac, type Hash } from 'node:crypto';
import { canonicalJson } from '../canonical.ts';
import { byPath } from '../order.ts';
import { DESIRED_STATE_SCHEMA } from './schema.ts';
import type { LoadOptions } from './types.ts';

/** Version of the cache entry layout; bump when cache-entry.ts changes what it writes. */
export const CACHE_FORMAT_VERSION = 3;

/**
 * Version of the loader's rules. BUMP IT whenever validation or building changes what a given set of files loads to
 * (cross-document rules, defaults, template merge, the model's shape, the summary text): cached entries made by the
 * older loader then stop matching. Schema changes need no bump: the schema itself is hashed into the key.
 * 2: GROUP and ORG notifications no longer require roles.
 * 3: a project's projectId may not be an organization's id (its own orgId, an Organization's, another project's).
 * 4: alert configs carry `secretSources` (where each secret reference is written).
 * 5: alert configs carry `ignoreFields` (per-field ignore rules).
 * 6: an ignoreFields entry naming a threshold member its event type never has (`threshold` on a metric alert) is refused.
 * 7: Settings carry `changeWindows` (weekly ones with their default time zone), checked by window-checks.ts.
 * 8: an alias used as a mapping key is refused (`*m : apply` could repeat a key unseen, its value replacing the first).
 * 9: numbers whose value is not what is written are refused (`010`, `0o10`, `0x10`, `9007199254740993`, `1e-400`,
 *    `0.000…1`; `-0` is accepted), and free text ending with a line break (schema: hashed into the key anyway).
 * 10: alert configs carry `renamedFrom`, checked against the project's keys and release list (cross-checks.ts).
 */
export const LOADER_VERSION = 10;

/** The identity of one file in the key: path, content digest, and the source's version (S3 ETag) when it has one. */
export interface CacheKeyFile {
  path: string;
  sha256: string;
  version?: string;
}

let fingerprint: string | undefined;

/** sha256 of a loader version and a schema's canonical JSON (member order does not count). */
export function fingerprintOf(loaderVersion: number, schema: unknown): string {
  return createHash('sha256').update(`loader ${loaderVersion}\n`).update(canonicalJson(schema)).digest('hex');
}

/** fingerprintOf(LOADER_VERSION, the schema), once: changes whenever the loader may load differently. */
export function loaderFingerprint(): string {
  fingerprint ??= fingerprintOf(LOADER_VERSION, DESIRED_STATE_SCHEMA);
  return fingerprint;
}

/** A key's hash, fed its label (one per kind of key, so two kinds never meet), the loader and the load options. */
function keyHash(label: 'cache' | 'tags', options: LoadOptions): Hash {
  return createHash('sha256')
    .update(`opsman-gitops desired-state ${label} ${CACHE_FORMAT_VERSION}\n`)
    .update(`loader ${loaderFingerprint()}\n`)
    .update(`options ${canonicalJson(options)}\n`);
}

/** The cache key (64 lowercase hex) of a set of YAML files loaded with `options`. Order of `files` does not matter. */
export function desiredCacheKey(options: LoadOptions, files: readonly CacheKeyFile[]): string {
  const hash = keyHash('cache', options);
  const sorted = [...files].sort(byPath);
  for (const file of sorted) {
    // JSON strings: no path or version can fake a separator.
    hash.update(`file ${JSON.stringify(file.path)} ${file.sha256} ${JSON.stringify(file.version ?? null)}\n`);
  }
  return hash.digest('hex');
}

/** One listed file in the tag key: path, size, the source's version and its content tag. */
export interface TagKeyFile {
  path: string;
  size: number;
  version?: string;
  contentTag?: string;
}

/**
 * The key (64 lowercase hex) of the tag entry of a listing (cache-tags.ts): like desiredCacheKey, with each file's
 * content tag and size instead of its content digest, and a label of its own so the two kinds of key never meet.
 * Undefined unless every file has a content tag.
 */
export function desiredTagKey(options: LoadOptions, files: readonly TagKeyFile[]): string | undefined {
  const hash = keyHash('tags', options);
  const sorted = [...files].sort(byPath);
  for (const file of sorted) {
    if (!file.contentTag) return undefined;
    hash.update(
      `file ${JSON.stringify(file.path)} ${file.size} ${JSON.stringify(file.version ?? null)} ${JSON.stringify(file.contentTag)}\n`,
    );
  }
  return hash.digest('hex');
}

/** True for a well-formed key: adapters use it to refuse anything that could escape their directory or prefix. */
export function isCacheKey(key: string): boolean {
  return /^[0-9a-f]{64}$/.test(key);
}

/** Key of the entries' MAC when the caller has none: integrity against corruption only, not authenticity. */
export const UNKEYED_CACHE_AUTH_KEY: Uint8Array = new TextEncoder().encode(
  'opsman-gitops desired-state cache: unkeyed',
);

/**
 * The MAC key of cache entries, derived from the fingerprint key (HMAC-SHA-256 with a label of its own, so the two
 * uses never share a key): only a process that holds the fingerprint key can write an entry a run will accept.
 */
export function deriveCacheAuthKey(fingerprintKey: Uint8Array): Uint8Array {
  return new Uint8Array(createHmac('sha256', fingerprintKey).update('opsman-gitops/desired-state-cache/v1').digest());
}
