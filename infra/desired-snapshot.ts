/**
 * The snapshot manifest of the desired-state upload, computed at synth from exactly the files the BucketDeployment
 * uploads: the source folder walked the way aws-cdk-lib stages a `Source.asset(dir, { exclude })` (its own
 * IgnoreStrategy, so the exclusion semantics cannot drift from CDK's), then hashed by the shared manifest builder.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { IgnoreStrategy } from 'aws-cdk-lib';
import {
  buildSnapshotManifest,
  type SnapshotManifest,
  SnapshotManifestError,
} from '../lambdas/core/desired/snapshot-manifest.ts';

/** The desired-state folder cannot be described by a manifest (a symbolic link, a path the manifest refuses). */
export class DesiredStateSourceError extends Error {
  override name = 'DesiredStateSourceError';
  readonly code = 'DESIRED_STATE_SOURCE_INVALID';
}

/**
 * The files a `Source.asset(dir, { exclude })` stages, as paths relative to `dir` with `/` and their bytes, sorted.
 *
 * Mirrors aws-cdk-lib's directory walk (core/lib/fs/utils.ts walkDirectory with the default GLOB IgnoreStrategy):
 * an excluded directory is skipped whole (GLOB's completelyIgnores is its ignores), an excluded file is skipped, and
 * entries that are neither files, directories nor links (sockets, FIFOs) are skipped. A symbolic link that is not
 * excluded is refused: CDK copies a link to inside the folder as a link and materialises one to outside it, and what
 * then reaches S3 depends on how the asset is zipped and unzipped at deploy time, which synth cannot see; a manifest
 * that guessed would make every run refuse the upload as in transit.
 */
export function deployedFiles(dir: string, exclude: readonly string[]): { path: string; bytes: Uint8Array }[] {
  const ignore = IgnoreStrategy.fromCopyOptions({ exclude: [...exclude] }, dir);
  const out: { path: string; bytes: Uint8Array }[] = [];
  const walk = (current: string) => {
    const entries = readdirSync(current, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    for (const entry of entries) {
      const full = join(current, entry.name);
      if (ignore.ignores(full)) continue;
      const path = relative(dir, full).split(sep).join('/');
      if (entry.isSymbolicLink()) {
        throw new DesiredStateSourceError(
          `desired-state file ${path} is a symbolic link: replace it with the file itself, or exclude it (the upload's snapshot manifest must hash exactly what reaches S3)`,
        );
      }
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) out.push({ path, bytes: readFileSync(full) });
    }
  };
  walk(dir);
  return out;
}

/** The snapshot manifest of what `Source.asset(dir, { exclude })` uploads. Throws DesiredStateSourceError. */
export function desiredStateSnapshot(dir: string, exclude: readonly string[]): SnapshotManifest {
  try {
    return buildSnapshotManifest(deployedFiles(dir, exclude));
  } catch (error) {
    if (error instanceof SnapshotManifestError) {
      throw new DesiredStateSourceError(`desired-state folder cannot be uploaded: ${error.message}`);
    }
    throw error;
  }
}
