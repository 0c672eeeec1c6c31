/**
 * `manifests/index.json`, the history of every distinct version manifest archived, and the identity of a manifest's
 * content. The stored index is outside input: one that cannot be read as a JSON list is refused, never replaced,
 * because rewriting it from this run alone would drop the history it holds. A malformed entry in it is skipped (never
 * made into a key) and written back as it was: one bad entry must not stop every run until someone edits the index.
 */
import { canonicalJson, sha256Hex } from './canonical.ts';
import type { ArchiveStore } from './ports.ts';

/** The key of the index. */
export const MANIFEST_INDEX_KEY = 'manifests/index.json';

/**
 * The format of the index this code reads and writes: a JSON list of entries (it carries no version of its own). Entries
 * are rewritten as read, so fields a later version added to them survive a run of this one.
 */
export const MANIFEST_INDEX_FORMAT_VERSION = 1;

/** One entry of `manifests/index.json`. */
export interface ManifestIndexEntry {
  /** sha256 of the text as served, and so of its copy under `manifests/sha256/`. */
  sha256: string;
  /** When this run first stored it. */
  firstSeen: string;
  /** The manifest's own `updated` value (epoch milliseconds), when it has one. */
  updated?: number;
  /**
   * sha256 of the manifest's canonical JSON (members sorted, no white space): the same for every text of the same
   * manifest. Absent in entries written before it was recorded; those are compared through their stored copy.
   */
  content?: string;
}

/** The key of a manifest's content-addressed copy. */
export function manifestKey(sha256: string): string {
  return `manifests/sha256/${sha256}.json`;
}

/** The digest of a manifest's content: equal for texts that differ only in white space or member order. */
export function contentDigest(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/** A sha256 as this code writes it: 64 lowercase hex digits (anything else would make another key). */
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Why `value` cannot be used as an index entry, or undefined when it can. */
function entryProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'is not an object';
  const { sha256, firstSeen } = value as { sha256?: unknown; firstSeen?: unknown };
  if (typeof sha256 !== 'string') return 'has no sha256';
  // Never made into a key: `../x` would name a file outside manifests/sha256/.
  if (!SHA256_HEX.test(sha256)) return `has sha256 ${JSON.stringify(sha256.slice(0, 80))}, not 64 lowercase hex digits`;
  if (typeof firstSeen !== 'string') return 'has no firstSeen';
  return undefined;
}

/**
 * The stored index and the condition under which a rewrite of it may land: only while it is still what was read (on a
 * store that can tell, S3), so that two runs appending at once cannot drop each other's entry.
 */
export interface StoredIndex {
  /** The entries that can be used: a malformed one is never compared with or made into a key. */
  entries: ManifestIndexEntry[];
  /** Every entry as read, malformed ones included: what a rewrite writes back, untouched, before its own entry. */
  stored: unknown[];
  /** One sentence per malformed entry, naming its position: skipped, left in the index as it is. */
  skipped: string[];
  condition: { ifAbsent?: true; ifVersion?: string };
}

/**
 * The stored index (empty when there is none); throws when it is there but is not a JSON list. A malformed entry (not
 * an object with a 64-hex `sha256` and a `firstSeen`) does not fail it: it is skipped (said in `skipped`) and kept.
 */
export async function readManifestIndex(archive: ArchiveStore): Promise<StoredIndex> {
  if (archive.getVersioned === undefined) {
    return { ...parseIndex(await archive.get(MANIFEST_INDEX_KEY)), condition: {} };
  }
  const stored = await archive.getVersioned(MANIFEST_INDEX_KEY);
  if (stored === null) return { ...parseIndex(null), condition: { ifAbsent: true } };
  return { ...parseIndex(stored.bytes), condition: { ifVersion: stored.version } };
}

/** How many times an entry is appended again after another run rewrote the index in between. */
const APPEND_ATTEMPTS = 5;

/**
 * Appends `entry` to the stored index read as `stored`, and returns the entry the index holds for that manifest: its
 * own, or the one another run appended meanwhile for the same content (then `latest` must name that one). An entry of
 * `stored` itself with the same content is not returned (its copy was found lost or damaged: `entry` replaces it as the
 * copy of that content, and both stay listed). A rewrite
 * that meets an index changed since it was read (a second archive run at once) reads it again and appends to that;
 * `onReread` is given each index read again (its `skipped` entries are those of the index finally written).
 */
export async function appendIndexEntry(
  archive: ArchiveStore,
  stored: StoredIndex,
  entry: ManifestIndexEntry,
  options: { contentType: string; onReread?: (index: StoredIndex) => void },
): Promise<ManifestIndexEntry> {
  const { onReread, ...putOptions } = options;
  // The entries first read were compared by content already (sameContentEntry) and passed over only because their copy
  // is lost or damaged: such an entry cannot stand for the manifest, or latest would name a copy that is not there.
  // Only an entry another run appended meanwhile (its copy written first) is taken for the same content.
  const passedOver = new Set(stored.entries.map((e) => e.sha256));
  let current = stored;
  for (let attempt = 1; attempt <= APPEND_ATTEMPTS; attempt++) {
    const same = current.entries.find(
      (e) =>
        e.sha256 === entry.sha256 ||
        (e.content !== undefined && e.content === entry.content && !passedOver.has(e.sha256)),
    );
    if (same !== undefined) return same;
    const text = `${JSON.stringify([...current.stored, entry], null, 2)}\n`;
    const put = await archive.put(MANIFEST_INDEX_KEY, text, { ...putOptions, ...current.condition });
    if (put.created) return entry;
    current = await readManifestIndex(archive);
    onReread?.(current);
  }
  throw new Error(
    `${MANIFEST_INDEX_KEY} was rewritten by another run each of ${APPEND_ATTEMPTS} times this run appended to it; the next run appends again`,
  );
}

/** What to do about an index that cannot be read: no manifest is archived until it is fixed. */
const UNREADABLE_INDEX_FIX = `no version manifest is archived until it is fixed: put back its last good version (the data bucket of the AWS stack keeps previous versions for 90 days: aws s3api list-object-versions --prefix archive/${MANIFEST_INDEX_KEY}), or move it aside to start a new index`;

function parseIndex(bytes: Uint8Array | null): Pick<StoredIndex, 'entries' | 'stored' | 'skipped'> {
  if (bytes === null) return { entries: [], stored: [], skipped: [] };
  // Left as it is, the index stops every archive of the manifest until a person acts: the message says how.
  const refuse = (why: string, fix = UNREADABLE_INDEX_FIX) =>
    new Error(
      `the stored ${MANIFEST_INDEX_KEY} ${why}; it is left as it is (rewriting it would lose the history): ${fix}`,
    );
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw refuse('is not valid JSON');
  }
  if (!Array.isArray(value)) {
    // This format is a bare list; a later one that needs more says so in an object with a formatVersion.
    const version = (value as { formatVersion?: unknown } | null)?.formatVersion;
    if (typeof version === 'number' && Number.isInteger(version) && version > MANIFEST_INDEX_FORMAT_VERSION) {
      throw refuse(
        `has formatVersion ${version}; this version reads formatVersion ${MANIFEST_INDEX_FORMAT_VERSION} (a JSON list of entries): it was written by a newer version of opsman-gitops`,
        'archive with that version, or a later one',
      );
    }
    throw refuse('is not a JSON list');
  }
  const entries: ManifestIndexEntry[] = [];
  const skipped: string[] = [];
  value.forEach((entry: unknown, position) => {
    const problem = entryProblem(entry);
    if (problem === undefined) entries.push(entry as ManifestIndexEntry);
    else
      skipped.push(
        `${MANIFEST_INDEX_KEY} entry [${position}] ${problem}: skipped, and left in the index as it is (correct or remove it by hand)`,
      );
  });
  return { entries, stored: value, skipped };
}

/**
 * The entry of `index` holding the same content as `digest` (see {@link contentDigest}), or undefined. Entries without
 * a recorded digest are compared through their stored copy, read only here (when the served text is new as bytes).
 */
export async function sameContentEntry(
  archive: ArchiveStore,
  index: readonly ManifestIndexEntry[],
  digest: string,
): Promise<{ entry: ManifestIndexEntry; bytes: Uint8Array } | undefined> {
  // Newest first: a manifest served again in another form is most likely the current one.
  for (const entry of [...index].reverse()) {
    if (entry.content !== undefined && entry.content !== digest) continue;
    const bytes = await archive.get(manifestKey(entry.sha256));
    // The copy is gone (or does not parse): it cannot stand for the served manifest; the served text is stored.
    if (bytes === null || sha256Hex(bytes) !== entry.sha256) continue;
    if (entry.content === undefined) {
      let value: unknown;
      try {
        value = JSON.parse(new TextDecoder().decode(bytes));
      } catch {
        continue;
      }
      if (contentDigest(value) !== digest) continue;
    }
    return { entry, bytes };
  }
  return undefined;
}
