/**
 * A directory checked for writing before a command relies on it: created when missing, then a hidden probe file is
 * created and removed in it. The archive command checks its directory this way before it calls Ops Manager, so a
 * directory it cannot write gives one precise error (which path, what, why) instead of one error per archive object.
 */
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { tempPathIn, unlinkQuietly, writeSyncedTemp } from './atomic-file.ts';
import { fsFailure } from './fs-failure.ts';

/**
 * Creates `dir` (and its parents) when missing and proves a file can be written in it; rejects with an FsStoreError
 * naming `what` (e.g. `the archive directory`), the absolute path and the cause. Leaves nothing behind but the
 * directory.
 */
export async function ensureWritableDirectory(dir: string, what: string): Promise<void> {
  const path = resolve(dir);
  try {
    await mkdir(path, { recursive: true });
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
  }
}
