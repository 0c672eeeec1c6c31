/**
 * The file-system steps of an atomic write, in callback-style fs: create a temp file in the target's directory
 * (O_EXCL), write the body in one call, fsync, close; then rename (or link) it into place. Durability is the
 * caller's last step: syncDirectory (dir-sync.ts) after the rename.
 *
 * Why callbacks: the archive writes a thousand small files at once. Through fs.promises each write creates a
 * FileHandle (with its own close tracking) and five promise round trips; profiled at 1,000 x 1 KB, that was about half
 * a second of main-thread time. The callback API does the same system calls on the thread pool with far less work on
 * the main thread.
 */
import { randomBytes } from 'node:crypto';
import { close, fsync, link, open, rename, unlink, write } from 'node:fs';
import { join } from 'node:path';

/** Random per process (two processes never share a temp name), then a counter: no UUID per write. */
const TEMP_PREFIX = randomBytes(6).toString('hex');
let tempCounter = 0;

/** A fresh temp file path in `dir`: `.<12 hex>-<counter>.tmp`, hidden and distinct within and across processes. */
export function tempPathIn(dir: string): string {
  tempCounter += 1;
  return join(dir, `.${TEMP_PREFIX}-${tempCounter.toString(36)}.tmp`);
}

/** Removes `path`, ignoring every error (it may never have been created); resolves either way. */
export function unlinkQuietly(path: string): Promise<void> {
  return new Promise((resolve) => unlink(path, () => resolve()));
}

/**
 * Creates `temp` (failing if it exists) with `mode`, writes all of `body`, fsyncs and closes it. On any failure the
 * temp file is removed and the promise rejects with the file-system error.
 */
export function writeSyncedTemp(temp: string, body: string | Uint8Array, mode: number): Promise<void> {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return new Promise((resolve, reject) => {
    open(temp, 'wx', mode, (openError, fd) => {
      if (openError) {
        reject(openError);
        return;
      }
      const fail = (error: Error) => close(fd, () => unlink(temp, () => reject(error)));
      const finish = () =>
        fsync(fd, (syncError) => {
          if (syncError) {
            fail(syncError);
            return;
          }
          close(fd, (closeError) => {
            if (closeError) unlink(temp, () => reject(closeError));
            else resolve();
          });
        });
      const writeFrom = (offset: number) => {
        if (offset >= bytes.length) {
          finish();
          return;
        }
        // One call for a small body; a short write (rare, e.g. a signal) continues where it stopped.
        write(fd, bytes, offset, bytes.length - offset, null, (writeError, written) => {
          if (writeError) fail(writeError);
          else writeFrom(offset + written);
        });
      };
      writeFrom(0);
    });
  });
}

/** fs.rename as a promise. */
export function renameFile(from: string, to: string): Promise<void> {
  return new Promise((resolve, reject) => rename(from, to, (error) => (error ? reject(error) : resolve())));
}

/** fs.link as a promise (EEXIST when `to` exists: never replaces). */
export function linkFile(from: string, to: string): Promise<void> {
  return new Promise((resolve, reject) => link(from, to, (error) => (error ? reject(error) : resolve())));
}

/** fsync of a directory: open it read-only, fsync, close. Rejects with the file-system error. */
export function fsyncDirectory(dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    open(dir, 'r', (openError, fd) => {
      if (openError) {
        reject(openError);
        return;
      }
      fsync(fd, (syncError) =>
        close(fd, (closeError) => ((syncError ?? closeError) ? reject(syncError ?? closeError) : resolve())),
      );
    });
  });
}
