/**
 * A short lock between processes sharing a directory: a lock file created with O_EXCL, removed when the work is done.
 * Held for one read-check-write (a state save, a lease change, a conditional archive write), never for a run.
 *
 * A lock file a killed process left (kill -9, a power cut) is taken as abandoned once untouched for `staleLockMs`.
 * Removing it is the delicate step: several processes may find the same stale file at once, and one that removed it
 * and created its own must not have that fresh lock removed by another that saw the stale one a moment before. So a
 * stale file is removed only under a second O_EXCL file (`<path>.break`), and only when it is still the very file
 * found stale (same inode and mtime). A holder keeps its lock's mtime fresh while its work runs, so a slow write
 * (a large state on a slow disk) is never taken for a dead one; and at the end it removes the lock file only while it
 * is still its own (same inode, the file held open until then so that no lock file created since can reuse the inode
 * number: a stopped holder's lock may have been taken as stale meanwhile).
 */
import { type FileHandle, open, rm, stat, utimes } from 'node:fs/promises';
import { FsStoreError, fsFailure } from './fs-failure.ts';

/** How a lock file is waited for and when one is abandoned. */
export interface LockFileOptions {
  /** A lock file untouched this long is considered abandoned (a crashed process) and removed. */
  staleLockMs: number;
  /** How long to wait for the lock before failing. */
  lockWaitMs: number;
}

function isErrno(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === code;
}

/** Identity of one lock file: a file created later under the same name has another inode, or at least another mtime. */
interface Seen {
  ino: number;
  dev: number;
  mtimeMs: number;
}

async function seen(path: string): Promise<Seen | null> {
  const info = await stat(path).catch(() => null);
  return info === null ? null : { ino: info.ino, dev: info.dev, mtimeMs: info.mtimeMs };
}

const same = (a: Seen | null, b: Seen | null): boolean =>
  a !== null && b !== null && a.ino === b.ino && a.dev === b.dev && a.mtimeMs === b.mtimeMs;

/**
 * Removes the lock file `path` if it is still the file `stale` describes, under `<path>.break` (O_EXCL) so that no
 * two processes break it at once. Resolves to false when another process is breaking it (the caller waits a little),
 * true otherwise; the caller then tries to create the lock again.
 */
async function breakStale(path: string, stale: Seen, staleLockMs: number): Promise<boolean> {
  const breakPath = `${path}.break`;
  try {
    const handle = await open(breakPath, 'wx', 0o600);
    await handle.close();
  } catch (error) {
    if (!isErrno(error, 'EEXIST')) throw fsFailure('create the lock file', breakPath, error);
    // Held for a few system calls: one this old was left by a process killed in between.
    const info = await stat(breakPath).catch(() => null);
    if (info !== null && Date.now() - info.mtimeMs > staleLockMs) await rm(breakPath, { force: true });
    return false;
  }
  try {
    if (same(await seen(path), stale)) await rm(path, { force: true });
  } finally {
    await rm(breakPath, { force: true });
  }
  return true;
}

/**
 * Runs `fn` while holding the lock file `path` (created with O_EXCL; removed in `finally`, whatever `fn` does, if it is
 * still ours). Waits up to `lockWaitMs` for another holder, then throws an FsStoreError naming the path and the way
 * out; a lock file untouched for `staleLockMs` is taken over (see the file's comment). A failure to create it other
 * than EEXIST is an FsStoreError with the system's code (`errno`: ENOENT when the directory is gone).
 */
export async function withLockFile<T>(path: string, fn: () => Promise<T>, options: LockFileOptions): Promise<T> {
  const deadline = Date.now() + options.lockWaitMs;
  let ours: Seen;
  // Kept open until the lock is released: while it is, no other file can get its inode number (a removed file's is
  // reused at once on ext4 and tmpfs), so "same inode" at release means "our lock file", not one created since.
  let handle: FileHandle;
  for (;;) {
    try {
      handle = await open(path, 'wx', 0o600);
      try {
        const info = await handle.stat();
        ours = { ino: info.ino, dev: info.dev, mtimeMs: info.mtimeMs };
      } catch (error) {
        await handle.close().catch(() => undefined);
        throw error;
      }
      break;
    } catch (error) {
      if (!isErrno(error, 'EEXIST')) throw fsFailure('create the lock file', path, error);
      const found = await seen(path);
      if (found !== null && Date.now() - found.mtimeMs > options.staleLockMs) {
        if (await breakStale(path, found, options.staleLockMs)) continue;
      }
      if (Date.now() > deadline) {
        throw new FsStoreError(
          `${path} is held by another process (a lock file untouched for ${Math.round(options.staleLockMs / 1000)} s is taken as a killed process's and removed: retry then, or delete it if no opsman-gitops process uses this directory)`,
          path,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 20));
    }
  }
  // Refreshed while fn runs; unref'd, so a pending tick never keeps the process alive.
  const heartbeat = setInterval(
    () => {
      const at = new Date();
      utimes(path, at, at).catch(() => undefined);
    },
    Math.max(1, Math.floor(options.staleLockMs / 3)),
  );
  heartbeat.unref();
  try {
    return await fn();
  } finally {
    clearInterval(heartbeat);
    // Only our own file: had ours been taken as stale after all, the file there now is another process's lock.
    try {
      const now = await stat(path).catch(() => null);
      if (now !== null && now.ino === ours.ino && now.dev === ours.dev) await rm(path, { force: true });
    } finally {
      await handle.close().catch(() => undefined);
    }
  }
}
