/**
 * The snapshot manifest of the desired-state upload, computed at synth from exactly the files the BucketDeployment
 * uploads: the source folder walked the way aws-cdk-lib stages a `Source.asset(dir, { exclude })` (its own
 * IgnoreStrategy, so the exclusion semantics cannot drift from CDK's), then hashed by the shared manifest builder.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { IgnoreStrategy } from 'aws-cdk-lib';
import { decodeText } from '../lambdas/core/desired/decode-text.ts';
import { asRecord, asString } from '../lambdas/core/desired/issue.ts';
import { parseYamlFile } from '../lambdas/core/desired/parse.ts';
import {
  buildSnapshotManifest,
  type SnapshotManifest,
  SnapshotManifestError,
} from '../lambdas/core/desired/snapshot-manifest.ts';
import { DEFAULT_LOAD_OPTIONS } from '../lambdas/core/desired/types.ts';

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

const YAML_FILE = /\.ya?ml$/i;

/**
 * Refuses a Settings `versionManifest.pin` naming a file of the folder that the excludes keep out of the upload
 * (`manifests/approved-secret.json` matches `*secret*.json`): `validate` passes on the folder, but every run of the
 * deployment would refuse the desired state (the pinned manifest cannot be read from S3). A pin naming no file of the
 * folder is left to the loader, which reports it wherever it runs.
 */
function checkPinsUploaded(dir: string, files: readonly { path: string; bytes: Uint8Array }[]): void {
  const uploaded = new Set(files.map((f) => f.path));
  for (const file of files) {
    if (!YAML_FILE.test(file.path)) continue;
    const decoded = decodeText(file.path, file.bytes);
    if ('issue' in decoded) continue;
    for (const document of parseYamlFile(file.path, decoded.text, DEFAULT_LOAD_OPTIONS).documents) {
      const value = asRecord(document.value);
      if (value?.kind !== 'Settings') continue;
      const pin = asString(asRecord(asRecord(value.spec)?.versionManifest)?.pin);
      if (pin === undefined || uploaded.has(pin) || !isFile(join(dir, pin))) continue;
      throw new DesiredStateSourceError(
        `${file.path}: versionManifest.pin ${JSON.stringify(pin)} is excluded from the upload (DEPLOY_EXCLUDES: secrets files, dot files and dot folders), so every run would refuse the desired state: rename or move the version manifest`,
      );
    }
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The snapshot manifest of what `Source.asset(dir, { exclude })` uploads. Throws DesiredStateSourceError, also for a
 * pinned version manifest the excludes keep out of the upload.
 */
export function desiredStateSnapshot(dir: string, exclude: readonly string[]): SnapshotManifest {
  try {
    const files = deployedFiles(dir, exclude);
    checkPinsUploaded(dir, files);
    return buildSnapshotManifest(files);
  } catch (error) {
    if (error instanceof SnapshotManifestError) {
      throw new DesiredStateSourceError(`desired-state folder cannot be uploaded: ${error.message}`);
    }
    throw error;
  }
}
