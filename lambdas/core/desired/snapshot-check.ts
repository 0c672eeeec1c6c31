/**
 * The torn-upload check of a run: the files a load read, compared with the snapshot manifest of the upload
 * (snapshot-manifest.ts). Called right after the load, on a cache hit as on a miss (both give the path and SHA-256 of
 * every YAML file, and of the pinned version manifest), and before the lease or any Ops Manager request.
 *
 * The manifest is read after the files, as the upload writes it last: a run that read some files of a new upload and
 * some of the old one matches neither manifest, and a run whose files are all new but whose manifest is still the old
 * one (the upload may still be pruning removed files) stops too rather than plan from an unfinished upload.
 */
import { DesiredStateInTransitError, SnapshotManifestInvalidError } from '../errors.ts';
import type { DesiredFileInfo } from '../model.ts';
import type { DesiredStateSource } from '../ports.ts';
import { printable } from '../printable.ts';
import {
  MAX_SNAPSHOT_BYTES,
  parseSnapshotManifest,
  SNAPSHOT_FILE,
  SnapshotManifestError,
  type SnapshotMismatch,
  snapshotMismatches,
  type UnhashedFile,
} from './snapshot-manifest.ts';

/**
 * Whether a run needs a snapshot manifest. `optional` (the CLI, tests, the default): without a manifest nothing is
 * checked, with one the files must match it. `required` (the Lambda, DESIRED_STATE_SNAPSHOT=required): no manifest
 * means the first upload is still in progress, and the run stops as for a mismatch.
 */
export type SnapshotPolicy = (typeof SNAPSHOT_POLICIES)[number];

/** The policies, as DESIRED_STATE_SNAPSHOT spells them (handlers/config-values.ts reads it against this list). */
export const SNAPSHOT_POLICIES = ['required', 'optional'] as const;

/** Default policy: check a manifest when there is one. */
export const DEFAULT_SNAPSHOT_POLICY: SnapshotPolicy = 'optional';

/** Most mismatching paths a message names; the rest are counted. */
export const LISTED_MISMATCHES = 10;

/**
 * What a load read: every YAML file, and the pinned version manifest when Settings names one (a loaded state's
 * `files` list it already; `pin` also makes its path one the manifest must hold).
 */
export interface ReadFiles {
  files: readonly Pick<DesiredFileInfo, 'path' | 'sha256'>[];
  pin?: { path: string; sha256: string };
  /** Listed files the load did not hash (a state that did not validate: over the size limit, or unreadable). */
  unhashed?: readonly UnhashedFile[];
}

/** How a check ended when the run may go on: the files matched a manifest, or there was none (policy optional). */
export type SnapshotOutcome = { manifest: 'matched'; files: number } | { manifest: 'absent' };

const YAML_FILE = /\.ya?ml$/i;
const STOPPED = 'an upload is in progress or was interrupted; nothing was planned or written';

/**
 * Reads the snapshot manifest through `source` and compares the files of `read` with it. Throws
 * DesiredStateInTransitError (DESIRED_STATE_IN_TRANSIT) on any difference, or when `policy` is `required` and there is
 * no manifest; SnapshotManifestInvalidError (SNAPSHOT_MANIFEST_INVALID) for a manifest that cannot be parsed. A
 * failure to read it (access denied, network) rejects with the source's own error.
 */
export async function checkSnapshot(
  source: DesiredStateSource,
  read: ReadFiles,
  policy: SnapshotPolicy = DEFAULT_SNAPSHOT_POLICY,
): Promise<SnapshotOutcome> {
  const where = source.describe();
  // Bounded: a manifest replaced by a huge object is refused by its length, never loaded into the function's memory.
  const found = await source.readIfPresent(SNAPSHOT_FILE, { maxBytes: MAX_SNAPSHOT_BYTES });
  if (found === undefined) {
    if (policy === 'optional') return { manifest: 'absent' };
    throw new DesiredStateInTransitError(
      `the desired state at ${where} has no snapshot manifest (${SNAPSHOT_FILE}) yet, and this deployment requires one: the first upload is in progress or was interrupted; nothing was planned or written`,
      [],
    );
  }
  let manifest: ReturnType<typeof parseSnapshotManifest>;
  try {
    if (found.size !== undefined && found.size > MAX_SNAPSHOT_BYTES) {
      throw new SnapshotManifestError(`is ${found.size} bytes, over the limit of ${MAX_SNAPSHOT_BYTES}`);
    }
    manifest = parseSnapshotManifest(found.bytes);
  } catch (error) {
    if (error instanceof SnapshotManifestError) {
      throw new SnapshotManifestInvalidError(`${where}${SNAPSHOT_FILE}`, error.message, { cause: error });
    }
    throw error;
  }
  // A loaded state's files already list its pinned manifest (build.ts); a pin given apart is added once.
  const pin = read.pin;
  const compared =
    pin === undefined || read.files.some((f) => f.path === pin.path) ? [...read.files] : [...read.files, pin];
  const pinPath = pin?.path;
  const unhashed = read.unhashed ?? [];
  const mismatches = snapshotMismatches(
    manifest,
    compared,
    (path) => YAML_FILE.test(path) || path === pinPath,
    unhashed,
  );
  if (mismatches.length === 0) return { manifest: 'matched', files: compared.length + unhashed.length };
  const total = new Set([...compared, ...unhashed, ...mismatches].map((f) => f.path)).size;
  throw new DesiredStateInTransitError(
    `the desired state at ${where} does not match its snapshot manifest (${SNAPSHOT_FILE}): ${mismatches.length} of ${total} files differ (${listMismatches(mismatches)}): ${STOPPED}`,
    mismatches,
  );
}

/** `a.yaml: content differs; b.yaml: missing` for the first LISTED_MISMATCHES, then `and N more`. */
function listMismatches(mismatches: readonly SnapshotMismatch[]): string {
  // Paths come from the manifest and from S3 keys: quoted inert, so a control character cannot forge a line or drive
  // a terminal that shows the message.
  const shown = mismatches.slice(0, LISTED_MISMATCHES).map((m) => `${printable(m.path)}: ${m.problem}`);
  const more = mismatches.length - shown.length;
  return `${shown.join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
}
