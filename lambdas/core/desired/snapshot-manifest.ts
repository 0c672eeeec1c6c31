/**
 * The snapshot manifest of an uploaded desired state: one JSON file at the desired-state root that lists every file of
 * one upload with its SHA-256. The CDK stack writes it after the files themselves (a second deployment that depends
 * on the first), so a reconcile can tell a whole upload from a torn one: S3 has no atomic multi-object write, and a
 * run started by the first file's notification would otherwise plan from new files next to old ones (an alert config
 * moved from one file to another looks deleted, and a prune of it is a delete-and-recreate). A desired state that does
 * not match its manifest is "in transit": nothing is planned from it, and the run is retried.
 *
 * Format (formatVersion 1): `{"formatVersion":1,"files":[{"path":"projects/a.yaml","sha256":"<64 hex>","size":123}]}`,
 * paths relative to the root with `/`, sorted, unique.
 */
import { isRecord } from '../../../shared/is-record.ts';
import { sha256Hex } from '../canonical.ts';

/** File name of the manifest at the desired-state root (a dot file: never uploaded or pruned as a desired file). */
export const SNAPSHOT_FILE = '.opsman-gitops-snapshot.json';

/** Largest manifest accepted (about 100 bytes per file: far more than the loader's file limit). */
export const MAX_SNAPSHOT_BYTES = 8 * 1024 * 1024;

/** One file of an upload. */
export interface SnapshotFile {
  path: string;
  sha256: string;
  size: number;
}

/** The manifest of one upload. */
export interface SnapshotManifest {
  formatVersion: 1;
  files: SnapshotFile[];
}

/** A manifest that cannot be used: refused with where and why (never guessed at). */
export class SnapshotManifestError extends Error {
  override name = 'SnapshotManifestError';
  readonly code = 'SNAPSHOT_MANIFEST_INVALID';
}

const SHA256 = /^[0-9a-f]{64}$/;

/** Why a relative path is not one an upload can hold, or undefined. */
function pathProblem(path: string): string | undefined {
  if (path.length === 0) return 'is empty';
  if (path.length > 1024) return 'is longer than 1024 characters';
  if (path.startsWith('/') || path.includes('\\')) return 'is not a relative path with / separators';
  if (path.split('/').some((part) => part === '' || part === '.' || part === '..')) {
    return 'has an empty, "." or ".." segment';
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
  if (/[\u0000-\u001f\u007f]/.test(path)) return 'contains a control character';
  return undefined;
}

const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/**
 * The manifest of `files` (their bytes hashed), sorted by path. Throws on a bad or repeated path, and when its text
 * would be over MAX_SNAPSHOT_BYTES (no run would accept it).
 */
export function buildSnapshotManifest(files: Iterable<{ path: string; bytes: Uint8Array }>): SnapshotManifest {
  const out: SnapshotFile[] = [];
  for (const f of files) {
    const problem = pathProblem(f.path);
    if (problem) throw new SnapshotManifestError(`path ${JSON.stringify(f.path)} ${problem}`);
    out.push({ path: f.path, sha256: sha256Hex(f.bytes), size: f.bytes.length });
  }
  out.sort(byPath);
  for (let i = 1; i < out.length; i++) {
    if (out[i]?.path === out[i - 1]?.path) throw new SnapshotManifestError(`path ${out[i]?.path} appears twice`);
  }
  const manifest: SnapshotManifest = { formatVersion: 1, files: out };
  // Refused here (at synth) rather than by every run that reads it: parseSnapshotManifest would call it invalid.
  const bytes = Buffer.byteLength(snapshotManifestText(manifest));
  if (bytes > MAX_SNAPSHOT_BYTES) {
    throw new SnapshotManifestError(
      `the manifest of its ${out.length} files would be ${bytes} bytes, over the limit of ${MAX_SNAPSHOT_BYTES} a run reads: upload fewer files (or shorter paths)`,
    );
  }
  return manifest;
}

/** The manifest's text as written (compact JSON, members in a fixed order, a final newline). */
export function snapshotManifestText(manifest: SnapshotManifest): string {
  const files = manifest.files.map((f) => ({ path: f.path, sha256: f.sha256, size: f.size }));
  return `${JSON.stringify({ formatVersion: 1, files })}\n`;
}

/**
 * Parses and checks a manifest's bytes: UTF-8 JSON of formatVersion 1 whose `files` are sorted, unique, relative
 * paths with a 64-hex SHA-256 and a size. Throws SnapshotManifestError naming the first problem (`files[3].sha256`).
 */
export function parseSnapshotManifest(bytes: Uint8Array): SnapshotManifest {
  if (bytes.length > MAX_SNAPSHOT_BYTES) {
    throw new SnapshotManifestError(`is ${bytes.length} bytes, over the limit of ${MAX_SNAPSHOT_BYTES}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    const why = error instanceof SyntaxError ? error.message : 'it is not UTF-8';
    throw new SnapshotManifestError(`is not valid JSON (${why})`);
  }
  if (!isRecord(value)) throw new SnapshotManifestError('is not a JSON object');
  if (value.formatVersion !== 1) {
    throw new SnapshotManifestError(
      `has formatVersion ${JSON.stringify(value.formatVersion)}; this version reads formatVersion 1`,
    );
  }
  if (!Array.isArray(value.files)) throw new SnapshotManifestError('files is not a list');
  const files: SnapshotFile[] = [];
  value.files.forEach((f: unknown, i: number) => {
    const at = `files[${i}]`;
    if (!isRecord(f)) throw new SnapshotManifestError(`${at} is not an object`);
    if (typeof f.path !== 'string') throw new SnapshotManifestError(`${at}.path is not a string`);
    const problem = pathProblem(f.path);
    if (problem) throw new SnapshotManifestError(`${at}.path ${problem}`);
    if (typeof f.sha256 !== 'string' || !SHA256.test(f.sha256)) {
      throw new SnapshotManifestError(`${at}.sha256 is not 64 lowercase hex digits`);
    }
    if (typeof f.size !== 'number' || !Number.isSafeInteger(f.size) || f.size < 0) {
      throw new SnapshotManifestError(`${at}.size is not a non-negative integer`);
    }
    const previous = files[i - 1];
    if (previous !== undefined && !(previous.path < f.path)) {
      throw new SnapshotManifestError(
        `${at}.path ${JSON.stringify(f.path)} is not after ${JSON.stringify(previous.path)} (sorted, unique)`,
      );
    }
    files.push({ path: f.path, sha256: f.sha256, size: f.size });
  });
  return { formatVersion: 1, files };
}

/** One way a loaded desired state differs from its manifest. */
export interface SnapshotMismatch {
  path: string;
  problem: 'not in the snapshot' | 'missing' | 'content differs';
}

/**
 * A listed file a load did not hash: over the loader's size limit (`too big`: it is never read, so only its size can
 * be compared), gone when it was read (`absent`: deleted between the listing and the read, as an upload's prune
 * does), or whose read failed otherwise (`unreadable`: access denied, a KMS key the reader may not use).
 */
export interface UnhashedFile {
  path: string;
  size: number;
  reason: 'too big' | 'absent' | 'unreadable';
}

/**
 * How the files a run read differ from the manifest, sorted by path (empty: the run read exactly one upload).
 * `read` are the files the loader used (the YAML files and a pinned manifest, each with its SHA-256); `relevant` says
 * which manifest entries the loader should have read (its YAML files, and the pinned manifest's path): entries for
 * other files (a README uploaded alongside) are not the loader's concern. `unhashed` are listed files the load could
 * not hash: one the manifest does not list is not of this upload; a too big one of the manifest's size is taken as
 * the manifest's (a whole upload holding a file over the limit is then refused as invalid, as it is, rather than as
 * in transit on every run); an absent one the manifest lists counts as missing; an unreadable one the manifest lists
 * is no mismatch: the read error is what the run must report (in transit, it would be retried forever and never name
 * the denied access).
 */
export function snapshotMismatches(
  manifest: SnapshotManifest,
  read: readonly { path: string; sha256: string }[],
  relevant: (path: string) => boolean,
  unhashed: readonly UnhashedFile[] = [],
): SnapshotMismatch[] {
  const expected = new Map(manifest.files.map((f) => [f.path, f]));
  const seen = new Set<string>();
  const out: SnapshotMismatch[] = [];
  for (const f of read) {
    seen.add(f.path);
    const entry = expected.get(f.path);
    if (entry === undefined) out.push({ path: f.path, problem: 'not in the snapshot' });
    else if (entry.sha256 !== f.sha256) out.push({ path: f.path, problem: 'content differs' });
  }
  for (const f of unhashed) {
    if (seen.has(f.path)) continue;
    const entry = expected.get(f.path);
    if (entry === undefined) {
      seen.add(f.path);
      out.push({ path: f.path, problem: 'not in the snapshot' });
    } else if (f.reason === 'too big') {
      seen.add(f.path);
      if (entry.size !== f.size) out.push({ path: f.path, problem: 'content differs' });
    } else if (f.reason === 'unreadable') {
      seen.add(f.path);
    }
  }
  for (const f of manifest.files) {
    if (!seen.has(f.path) && relevant(f.path)) out.push({ path: f.path, problem: 'missing' });
  }
  return out.sort(byPath);
}
