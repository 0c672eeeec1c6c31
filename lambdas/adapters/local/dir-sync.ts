/**
 * fsync of a directory after a rename, shared by concurrent writers to the same directory (group commit).
 *
 * Why: an atomic write is durable only once its directory entry is synced, but one directory fsync covers every
 * rename that finished before it started. The archive writes a thousand usage files into one directory at once;
 * syncing the directory once per write costs three file-system calls each. Here a caller whose rename is done joins
 * the next sync of that directory that has not started yet: it starts after the sync in flight (which may have begun
 * before the caller's rename) ends, so it always covers the caller's rename.
 */
import { fsyncDirectory } from './atomic-file.ts';

/** The sync in flight and the one queued behind it, per directory. */
const inFlight = new Map<string, Promise<void>>();
const queued = new Map<string, Promise<void>>();

async function fsyncDir(dir: string): Promise<void> {
  try {
    await fsyncDirectory(dir);
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic.
  }
}

/**
 * Resolves once `dir` has been fsynced by a sync that started after this call: call it after the rename it must
 * make durable. Concurrent callers share one sync. Never rejects (a directory that cannot be synced is skipped).
 */
export function syncDirectory(dir: string): Promise<void> {
  const waiting = queued.get(dir);
  if (waiting) return waiting;
  const before = inFlight.get(dir) ?? Promise.resolve();
  const next = before.then(() => {
    queued.delete(dir);
    const running = fsyncDir(dir);
    inFlight.set(dir, running);
    return running.finally(() => {
      if (inFlight.get(dir) === running) inFlight.delete(dir);
    });
  });
  queued.set(dir, next);
  return next;
}
