/**
 * Archives the version manifest content-addressed: `manifests/sha256/<hex>.json` holds the exact text served (written
 * only when its content is new), `manifests/latest.json` points at the current one, `manifests/index.json` lists every
 * distinct manifest seen.
 *
 * "Distinct" is by content, not bytes: the same manifest served with other white space or member order is not stored
 * again, not added to the index and not reported as changed (the plan compares the pin with the live manifest as JSON
 * values too). Its first text is the one kept, byte for byte: the spec says a manifest's values must not be altered.
 *
 * Writes go copy, then index, then latest, so that a run failing half-way never leaves latest naming a manifest that
 * the index or the copies lack; the next run completes what is missing.
 */
import { isRecord } from '../../shared/is-record.ts';
import { sha256Hex } from './canonical.ts';
import {
  appendIndexEntry,
  contentDigest,
  type ManifestIndexEntry,
  manifestKey,
  readManifestIndex,
  type StoredIndex,
  sameContentEntry,
} from './manifest-index.ts';
import type { ArchiveSummary } from './model.ts';
import type { ArchiveStore, OpsManagerApi } from './ports.ts';

/** `manifests/latest.json`. */
export interface ManifestPointer {
  sha256: string;
  key: string;
  fetchedAt: string;
  updated?: number;
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

const JSON_OPTIONS = { contentType: 'application/json' };

/** A sha256 as latest.json names it: anything else there (a damaged pointer) is not quoted as the previous manifest. */
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** What archiving the manifest did: see {@link ArchiveSummary}'s `manifest`. */
export type ManifestArchived = NonNullable<ArchiveSummary['manifest']>;

/**
 * Fetches and archives the manifest; `changed` says whether this content was new, `restored` (only when true) that it
 * was known and only its lost or damaged copy was written again. Throws (nothing written) for an
 * empty body or one that is not a JSON object (an error page, a proxy's answer: not a manifest), and for a stored
 * index that cannot be read. Each malformed entry skipped in the index as finally read (read again when a rewrite lost
 * a race with another run) is passed to `warn` once (for the run's warnings), when the manifest's writes are done.
 */
export async function archiveManifest(
  api: OpsManagerApi,
  archive: ArchiveStore,
  now: string,
  options: { warn?: (message: string) => void } = {},
): Promise<ManifestArchived> {
  const doc = await api.getVersionManifest();
  if (doc.text.trim() === '') throw new Error('GET /unauth/versionManifest answered an empty body; nothing stored');
  if (!isRecord(doc.value))
    throw new Error('GET /unauth/versionManifest answered JSON that is not a JSON object; nothing stored');
  const stored = await readManifestIndex(archive);
  // Warned once the index is settled: a rewrite that loses a race reads the index again, and what it skips then (not
  // what the first read skipped) is what the index written holds; each is said once.
  let skipped = stored.skipped;
  try {
    return await archiveWithIndex(archive, now, doc, stored, (index) => {
      skipped = index.skipped;
    });
  } finally {
    for (const message of skipped) options.warn?.(message);
  }
}

/** {@link archiveManifest} once the manifest is fetched and the index read. */
async function archiveWithIndex(
  archive: ArchiveStore,
  now: string,
  doc: { text: string; value: unknown },
  stored: StoredIndex,
  onReread: (index: StoredIndex) => void,
): Promise<ManifestArchived> {
  const rawUpdated = (doc.value as { updated?: unknown }).updated;
  const updated = typeof rawUpdated === 'number' ? rawUpdated : undefined;
  const index = stored.entries;
  const served = sha256Hex(doc.text);
  const content = contentDigest(doc.value);

  let sha256 = served;
  let body: string | Uint8Array = doc.text;
  let known = index.some((e) => e.sha256 === served);
  // sameContentEntry reads and checks the copy it returns; a copy found by the served bytes' digest is checked below.
  let verified = false;
  if (!known) {
    const same = await sameContentEntry(archive, index, content);
    if (same !== undefined) {
      ({ sha256 } = same.entry);
      body = same.bytes;
      known = true;
      verified = true;
    }
  }
  let key = manifestKey(sha256);
  // For a known manifest this only restores a lost copy; `ifAbsent` never replaces one.
  let put = await archive.put(key, body, { ...JSON_OPTIONS, ifAbsent: true });
  if (!put.created && !verified) {
    // A copy already there (this manifest's, or one an interrupted run stored) is trusted only if its bytes still have
    // its digest: a damaged one (truncated, edited) would otherwise stay under its name for good, and latest name it.
    const stored = await archive.get(key);
    if (stored === null || sha256Hex(stored) !== sha256) put = await archive.put(key, body, JSON_OPTIONS);
  }
  if (!known) {
    const entry: ManifestIndexEntry = { sha256, firstSeen: now, content };
    if (updated !== undefined) entry.updated = updated;
    // Another run at once may have indexed the same content from other bytes first: latest then names its copy.
    const indexed = await appendIndexEntry(archive, stored, entry, { ...JSON_OPTIONS, onReread });
    if (indexed.sha256 !== sha256) {
      ({ sha256 } = indexed);
      key = manifestKey(sha256);
    }
  }
  const latest = await readJson<ManifestPointer>(archive, 'manifests/latest.json');
  // Rewritten whole unless it already names this manifest in full: a pointer whose other members were damaged or lost
  // (its key, its fetchedAt) is replaced, not kept because its sha256 still agrees.
  const whole =
    latest?.sha256 === sha256 &&
    latest.key === key &&
    typeof latest.fetchedAt === 'string' &&
    (updated === undefined ? latest.updated === undefined : latest.updated === updated);
  if (!whole) {
    const pointer: ManifestPointer = { sha256, key, fetchedAt: now };
    if (updated !== undefined) pointer.updated = updated;
    await archive.put('manifests/latest.json', `${JSON.stringify(pointer, null, 2)}\n`, JSON_OPTIONS);
  }
  // A known manifest whose copy had to be written again is restored, not new: `changed` is for new content only. So is
  // one indexed before whose every copy was lost, stored again from another form of it (appendIndexEntry).
  const lostCopy = !known && index.some((e) => e.content === content);
  const result: ManifestArchived = { sha256, key, changed: !known && !lostCopy, location: put.location };
  if ((known || lostCopy) && put.created) result.restored = true;
  // A manifest seen before that is not the one the last archive found (Ops Manager went back to an earlier one): not
  // new, but not unchanged either; `previous` names what latest.json held, so the summary can say so.
  const before = latest?.sha256;
  if (!result.changed && typeof before === 'string' && SHA256_HEX.test(before) && before !== sha256) {
    result.previous = before;
  }
  return result;
}
