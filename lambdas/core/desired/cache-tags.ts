/**
 * Tag entries of the desired-state cache: what a listing with a content tag on every file (ports.ts DesiredFileRef)
 * was found to contain when it was last read: each file's content digest and version, and the content key of the
 * state entry they load to (cache.ts). A run whose listing has the same tags finds the content key here and goes
 * straight to the state entry, without reading a single YAML file: on AWS that is one GetObject per file saved on
 * every run, locally the read and hash of every file.
 *
 * Three lines like a state entry (cache-entry.ts): a header, the body (the files), and an HMAC-SHA-256 trailer under
 * the same auth key. Anything that does not decode, verify and match the listing path for path is a miss.
 */

import { createHmac } from 'node:crypto';
import { isRecord } from '../../../shared/is-record.ts';
import type { DesiredFileInfo } from '../model.ts';
import { CACHE_FORMAT_VERSION, isCacheKey, loaderFingerprint, UNKEYED_CACHE_AUTH_KEY } from './cache.ts';
import { openSignedEntry } from './cache-entry.ts';

/** The `format` field of every tag entry. */
export const TAG_ENTRY_FORMAT = 'opsman-gitops/desired-state-tags';

/** What a tag entry holds once decoded. */
export interface TagEntry {
  /** The key of the state entry these files load to. */
  contentKey: string;
  /** The files of the listing, in its order (by path), with their content digests and versions. */
  files: DesiredFileInfo[];
}

interface Header {
  format: string;
  formatVersion: number;
  key: string;
  loader: string;
  contentKey: string;
}

const HEX64 = /^[0-9a-f]{64}$/;

/** The text of the tag entry stored under `tagKey`. */
export function encodeTagEntry(tagKey: string, entry: TagEntry, authKey: Uint8Array = UNKEYED_CACHE_AUTH_KEY): string {
  const header: Header = {
    format: TAG_ENTRY_FORMAT,
    formatVersion: CACHE_FORMAT_VERSION,
    key: tagKey,
    loader: loaderFingerprint(),
    contentKey: entry.contentKey,
  };
  const files = entry.files.map((f) => ({
    path: f.path,
    sha256: f.sha256,
    ...(f.version ? { version: f.version } : {}),
  }));
  const signed = `${JSON.stringify(header)}\n${JSON.stringify({ files })}`;
  const mac = createHmac('sha256', authKey).update(signed).digest('hex');
  return `${signed}\n${JSON.stringify({ mac })}`;
}

function isHeader(h: unknown, tagKey: string): h is Header {
  if (typeof h !== 'object' || h === null) return false;
  const r = h as Partial<Header>;
  return (
    r.format === TAG_ENTRY_FORMAT &&
    r.formatVersion === CACHE_FORMAT_VERSION &&
    r.key === tagKey &&
    r.loader === loaderFingerprint() &&
    typeof r.contentKey === 'string' &&
    isCacheKey(r.contentKey)
  );
}

function isFile(v: unknown): v is DesiredFileInfo {
  if (!isRecord(v)) return false;
  const f = v as Record<string, unknown>;
  for (const k of Object.keys(f)) if (k !== 'path' && k !== 'sha256' && k !== 'version') return false;
  return (
    typeof f.path === 'string' &&
    typeof f.sha256 === 'string' &&
    HEX64.test(f.sha256) &&
    (f.version === undefined || (typeof f.version === 'string' && f.version !== ''))
  );
}

/**
 * The tag entry stored under `tagKey` when `text` is sound and lists exactly `paths` (in that order); undefined
 * otherwise. Never throws.
 */
export function decodeTagEntry(
  text: string,
  tagKey: string,
  paths: readonly string[],
  authKey: Uint8Array = UNKEYED_CACHE_AUTH_KEY,
): TagEntry | undefined {
  try {
    const opened = openSignedEntry(text, authKey, (h) => isHeader(h, tagKey));
    if (opened === undefined) return undefined;
    const header = opened.header as Header;
    const body = JSON.parse(opened.body) as { files?: unknown } | null;
    const files = body?.files;
    if (!Array.isArray(files) || files.length !== paths.length) return undefined;
    for (let i = 0; i < files.length; i++) {
      const file: unknown = files[i];
      if (!isFile(file) || file.path !== paths[i]) return undefined;
    }
    return { contentKey: header.contentKey, files: files as DesiredFileInfo[] };
  } catch {
    return undefined;
  }
}
