/**
 * A directory checked for writing before a command relies on it: created when missing, then a hidden probe file is
 * created and removed in it, then the directories the check created are removed again. The archive command checks its
 * directory this way before it calls Ops Manager, so a directory it cannot write gives one precise error (which path,
 * what, why) instead of one error per archive object, and a run that stops before writing (missing credentials, a
 * typo in the path) leaves nothing behind.
 */
import { rmdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { makeDirectories } from '../../../shared/make-directories.ts';
import { tempPathIn, unlinkQuietly, writeSyncedTemp } from './atomic-file.ts';
import { fsFailure } from './fs-failure.ts';

/** Removes `path` and its parents up to `top` (the first one created), each only while it is empty. */
async function removeCreated(path: string, top: string): Promise<void> {
  for (let current = path; ; current = dirname(current)) {
    try {
      await rmdir(current);
    } catch {
      // Not empty (another process wrote there meanwhile) or gone: what is left is not ours to remove.
      return;
    }
    if (current === top || dirname(current) === current) return;
  }
}

/**
 * Proves a file can be written in `dir`, creating it (and its parents) for the check when missing; rejects with an
 * FsStoreError naming `what` (e.g. `the archive directory`), the absolute path and the cause. Leaves nothing behind:
 * the store that writes there later creates the directories it needs.
 */
export async function ensureWritableDirectory(dir: string, what: string): Promise<void> {
  const path = resolve(dir);
  let created: string | undefined;
  try {
    created = await makeDirectories(path);
  } catch (error) {
    throw fsFailure(`create ${what}`, path, error);
  }
  const probe = tempPathIn(path);
  try {
    await writeSyncedTemp(probe, '', 0o600);
  } catch (error) {
    throw fsFailure(`write in ${what}`, path, error);
  } finally {
    await unlinkQuietly(probe);
    if (created !== undefined) await removeCreated(path, created);
  }
}
