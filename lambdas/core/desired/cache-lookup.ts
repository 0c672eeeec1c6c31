/**
 * The loader's side of the desired-state cache: look an entry up and prove it still applies, or store a fresh one.
 * The cache only ever costs speed: a store that throws, an entry that is corrupt, foreign or stale, or a pinned
 * manifest that changed all read as a miss; a failed write is ignored. Nothing here logs or throws.
 */
import { createHash } from 'node:crypto';
import type { DesiredFileInfo, DesiredState } from '../model.ts';
import { byPath } from '../order.ts';
import type { DesiredStateCache, DesiredStateSource } from '../ports.ts';
import { digestOf } from './build.ts';
import { decodeCacheEntry, encodeCacheEntryPieces, stateOf } from './cache-entry.ts';
import { decodeTagEntry, encodeTagEntry, type TagEntry } from './cache-tags.ts';
import type { LoadOptions } from './types.ts';

/** The pinned manifest's file info as it is now, or undefined when it is gone, too big or no longer `sha256`. */
async function currentPin(
  source: DesiredStateSource,
  pin: { path: string; sha256: string },
  options: Pick<LoadOptions, 'maxManifestBytes'>,
): Promise<DesiredFileInfo | undefined> {
  try {
    const read = await source.read(pin.path, { maxBytes: options.maxManifestBytes });
    if ((read.size ?? 0) > options.maxManifestBytes || read.bytes.length > options.maxManifestBytes) return undefined;
    const sha256 = createHash('sha256').update(read.bytes).digest('hex');
    if (sha256 !== pin.sha256) return undefined;
    return { path: pin.path, sha256, ...(read.version ? { version: read.version } : {}) };
  } catch {
    return undefined;
  }
}

/** The text stored under `key`, or undefined when there is none, the store throws or returns something else. */
async function entryText(cache: DesiredStateCache, key: string): Promise<string | undefined> {
  try {
    const text: unknown = await cache.get(key);
    return typeof text === 'string' ? text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The cached state for `key` when there is a sound entry and it still describes the source: its files are the YAML
 * files just read plus the pinned manifest re-read now (the entry does not store them: the key covers the YAML files,
 * and the entry's digest must be the digest of these files). Undefined otherwise.
 */
export async function lookupCachedState(
  cache: DesiredStateCache,
  key: string,
  source: DesiredStateSource,
  yamlFiles: readonly DesiredFileInfo[],
  options: Pick<LoadOptions, 'maxManifestBytes'>,
  authKey?: Uint8Array,
): Promise<{ state: DesiredState; summary: string } | undefined> {
  const text = await entryText(cache, key);
  if (text === undefined) return undefined;
  const entry = decodeCacheEntry(text, key, authKey);
  if (entry === undefined) return undefined;
  const files = [...yamlFiles];
  if (entry.pin) {
    const pin = await currentPin(source, entry.pin, options);
    if (pin === undefined) return undefined;
    files.push(pin);
  }
  files.sort(byPath);
  if (entry.body.digest !== digestOf(files)) return undefined;
  return { state: stateOf(entry.body, files), summary: entry.summary };
}

/** Stores a freshly loaded state under `key`; states that would not survive JSON unchanged are not stored. */
export async function storeCachedState(
  cache: DesiredStateCache,
  key: string,
  state: DesiredState,
  summary: string,
  authKey?: Uint8Array,
): Promise<void> {
  const pieces = encodeCacheEntryPieces(key, state, summary, authKey);
  if (pieces === undefined) return;
  try {
    if (cache.putPieces) await cache.putPieces(key, pieces);
    else await cache.put(key, [...pieces].join(''));
  } catch {
    // Only speed is lost: the next run parses again.
  }
}

/**
 * The cached state of a listing whose every file has a content tag, found through its tag entry (cache-tags.ts)
 * without reading any YAML file; undefined when there is no sound tag entry for `tagKey` listing exactly `paths`, or
 * its state entry is not a hit (lookupCachedState, pinned manifest included).
 */
export async function lookupTaggedState(
  cache: DesiredStateCache,
  tagKey: string,
  paths: readonly string[],
  source: DesiredStateSource,
  options: Pick<LoadOptions, 'maxManifestBytes'>,
  authKey?: Uint8Array,
): Promise<{ state: DesiredState; summary: string } | undefined> {
  const text = await entryText(cache, tagKey);
  if (text === undefined) return undefined;
  const entry = decodeTagEntry(text, tagKey, paths, authKey);
  if (entry === undefined) return undefined;
  return lookupCachedState(cache, entry.contentKey, source, entry.files, options, authKey);
}

/** Stores the tag entry of a listing; a failed write is ignored (the next run reads the files again). */
export async function storeTagEntry(
  cache: DesiredStateCache,
  tagKey: string,
  entry: TagEntry,
  authKey?: Uint8Array,
): Promise<void> {
  try {
    await cache.put(tagKey, encodeTagEntry(tagKey, entry, authKey));
  } catch {
    // Only speed is lost.
  }
}
