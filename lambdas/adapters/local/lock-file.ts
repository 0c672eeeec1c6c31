/**
 * A short lock between processes sharing a directory: a lock file created with O_EXCL, removed when the work is done.
 * Held for one read-check-write (a state save, a lease change, a conditional archive write), never for a run.
 */
import { open, rm, stat } from 'node:fs/promises';
import { FsStoreError, fsFailure } from './fs-failure.ts';

/** How a lock file is waited for and when one is abandoned. */
export interface LockFileOptions {
  /** A lock file older than this is considered abandoned (a crashed process) and removed. */
  staleLockMs: number;
  /** How long to wait for the lock before failing. */
  lockWaitMs: number;
}

function isErrno(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === code;
}

/**
 * Runs `fn` while holding the lock file `path` (created with O_EXCL; removed in `finally`, whatever `fn` does). Waits
 * up to `lockWaitMs` for another holder, then throws an FsStoreError naming the path; a lock file older than
 * `staleLockMs` is taken over. A failure to create it other than EEXIST is an FsStoreError with the system's code
 * (`errno`: ENOENT when the directory is gone).
 */
export async function withLockFile<T>(path: string, fn: () => Promise<T>, options: LockFileOptions): Promise<T> {
  const deadline = Date.now() + options.lockWaitMs;
  for (;;) {
    try {
      const handle = await open(path, 'wx', 0o600);
      await handle.close();
      break;
    } catch (error) {
      if (!isErrno(error, 'EEXIST')) throw fsFailure('create the lock file', path, error);
      const info = await stat(path).catch(() => null);
      if (info !== null && Date.now() - info.mtimeMs > options.staleLockMs) {
        await rm(path, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new FsStoreError(`${path} is held by another process`, path);
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 20));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(path, { force: true });
  }
}
