/**
 * Archives the version manifest content-addressed: `manifests/sha256/<hex>.json` holds the exact text served (written
 * only when new), `manifests/latest.json` points at the current one, `manifests/index.json` lists every version seen.
 */
import { sha256Hex } from './canonical.ts';
import type { ArchiveStore, OpsManagerApi } from './ports.ts';

/** One entry of `manifests/index.json`. */
export interface ManifestIndexEntry {
  sha256: string;
  /** When this run first stored it. */
  firstSeen: string;
  /** The manifest's own `updated` value (epoch milliseconds), when it has one. */
  updated?: number;
}

/** `manifests/latest.json`. */
export interface ManifestPointer {
  sha256: string;
  key: string;
  fetchedAt: string;
  updated?: number;
}

/** The key of a manifest's content-addressed copy. */
export function manifestKey(sha256: string): string {
  return `manifests/sha256/${sha256}.json`;
}

async function readJson<T>(archive: ArchiveStore, key: string): Promise<T | null> {
  const bytes = await archive.get(key);
  if (bytes === null) return null;
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as T;
  } catch {
    return null;
  }
}

/** Fetches and archives the manifest; `changed` says whether this content was new. */
export async function archiveManifest(
  api: OpsManagerApi,
  archive: ArchiveStore,
  now: string,
): Promise<{ sha256: string; key: string; changed: boolean; location: string }> {
  const doc = await api.getVersionManifest();
  const sha256 = sha256Hex(doc.text);
  const key = manifestKey(sha256);
  const put = await archive.put(key, doc.text, { contentType: 'application/json', ifAbsent: true });
  const rawUpdated = (doc.value as { updated?: unknown } | null)?.updated;
  const updated = typeof rawUpdated === 'number' ? rawUpdated : undefined;

  const index = (await readJson<ManifestIndexEntry[]>(archive, 'manifests/index.json')) ?? [];
  const known = Array.isArray(index) && index.some((e) => e.sha256 === sha256);
  if (!known) {
    const entry: ManifestIndexEntry = { sha256, firstSeen: now };
    if (updated !== undefined) entry.updated = updated;
    const next = [...(Array.isArray(index) ? index : []), entry];
    await archive.put('manifests/index.json', `${JSON.stringify(next, null, 2)}\n`, {
      contentType: 'application/json',
    });
  }
  const latest = await readJson<ManifestPointer>(archive, 'manifests/latest.json');
  if (latest?.sha256 !== sha256) {
    const pointer: ManifestPointer = { sha256, key, fetchedAt: now };
    if (updated !== undefined) pointer.updated = updated;
    await archive.put('manifests/latest.json', `${JSON.stringify(pointer, null, 2)}\n`, {
      contentType: 'application/json',
    });
  }
  return { sha256, key, changed: put.created || !known, location: put.location };
}
