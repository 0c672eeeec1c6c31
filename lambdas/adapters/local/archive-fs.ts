/**
 * Local ArchiveStore: files under a directory, written atomically; `ifAbsent` never replaces an existing file. Like the
 * S3 store, a content-addressed key (`…/sha256/<hex>.json`) takes only a body with that digest, and a file can be
 * replaced only while it still holds the version read (`ifVersion`, the sha256 of its bytes), so that two archive runs
 * on one directory cannot drop each other's entry from `manifests/index.json`.
 */
import { dirname, join, resolve, sep } from 'node:path';
import { makeDirectories, PRIVATE_DIRECTORY_MODE } from '../../../shared/make-directories.ts';
import { readRegularFile } from '../../../shared/regular-file.ts';
import { sha256Hex } from '../../core/canonical.ts';
import { contentAddressMismatch } from '../../core/content-address.ts';
import type { ArchiveStore } from '../../core/ports.ts';
import { linkFile, tempPathIn, unlinkQuietly, writeSyncedTemp } from './atomic-file.ts';
import { syncDirectory } from './dir-sync.ts';
import { FsStoreError, fsFailure } from './fs-failure.ts';
import { type LockFileOptions, withLockFile } from './lock-file.ts';
import { writeChunksAtomic, writeFileAtomic } from './state-fs.ts';

/**
 * Defaults of the short lock a conditional replace (`ifVersion`) holds on `<file>.lock`: held for one read and one
 * atomic write, so a lock older than 30 s is a crashed run's and is taken over.
 */
export const DEFAULT_ARCHIVE_LOCK_OPTIONS: LockFileOptions = { staleLockMs: 30_000, lockWaitMs: 5_000 };

function isErrno(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === code;
}

/** Archive objects as files under `dir` (keys use `/`). */
export class FsArchiveStore implements ArchiveStore {
  private readonly root: string;
  /** Directories this store has created or found: a thousand writes into one directory make it once. */
  private readonly madeDirs = new Set<string>();

  constructor(
    dir: string,
    private readonly lockOptions: LockFileOptions = DEFAULT_ARCHIVE_LOCK_OPTIONS,
  ) {
    this.root = resolve(dir);
  }

  /** `dir:<absolute path>`. */
  describe(): string {
    return `dir:${this.root}`;
  }

  private pathOf(key: string): string {
    if (
      key === '' ||
      key.startsWith('/') ||
      key.split('/').some((p) => p === '..' || p === '.' || p === '') ||
      key.includes('\\')
    ) {
      throw new FsStoreError(`invalid archive key ${JSON.stringify(key)}`, key);
    }
    const path = join(this.root, ...key.split('/'));
    if (!path.startsWith(this.root + sep)) throw new FsStoreError(`invalid archive key ${JSON.stringify(key)}`, key);
    return path;
  }

  /** Creates `dir` (and its parents) once per store; `again` forgets that it was made (it was removed since). */
  private async ensureDir(dir: string, again = false): Promise<void> {
    if (again) this.madeDirs.delete(dir);
    if (this.madeDirs.has(dir)) return;
    try {
      // Private like the state directory it usually sits in (and may be the first to create): run reports name
      // who changed what.
      await makeDirectories(dir, PRIVATE_DIRECTORY_MODE);
    } catch (error) {
      throw fsFailure('create the archive directory', dir, error);
    }
    this.madeDirs.add(dir);
  }

  /**
   * Runs a write into `dir`; if the directory vanished since it was made (ENOENT), makes it again and retries once.
   */
  private async intoDir<T>(dir: string, write: () => Promise<T>): Promise<T> {
    await this.ensureDir(dir);
    try {
      return await write();
    } catch (error) {
      if (!isErrno(error, 'ENOENT')) throw error;
      await this.ensureDir(dir, true);
      return write();
    }
  }

  /**
   * Writes `body` under `key` atomically; with `ifAbsent` an existing file is kept and `created` is false; with
   * `ifVersion` (a version {@link getVersioned} returned) the file is replaced only while its bytes still have that
   * sha256, otherwise (changed or gone) it is left alone and `created` is false.
   */
  async put(
    key: string,
    body: string | Uint8Array,
    options: { contentType?: string; ifAbsent?: boolean; ifVersion?: string } = {},
  ): Promise<{ key: string; created: boolean; location: string }> {
    const path = this.pathOf(key);
    const dir = dirname(path);
    const mismatch = contentAddressMismatch(key, body);
    if (mismatch !== undefined) throw new FsStoreError(`invalid archive key ${JSON.stringify(key)}: ${mismatch}`, key);
    try {
      if (options.ifVersion !== undefined) return await this.putIfVersion(key, path, dir, body, options.ifVersion);
      if (!options.ifAbsent) {
        await this.intoDir(dir, () => writeFileAtomic(path, body, dir, 0o644));
        return { key, created: true, location: path };
      }
      return await this.intoDir(dir, () => this.putIfAbsent(key, path, dir, body));
    } catch (error) {
      throw fsFailure('write', path, error);
    }
  }

  /** Links a synced temp file to `path` unless a file is there already. */
  private async putIfAbsent(
    key: string,
    path: string,
    dir: string,
    body: string | Uint8Array,
  ): Promise<{ key: string; created: boolean; location: string }> {
    const temp = tempPathIn(dir);
    await writeSyncedTemp(temp, body, 0o644);
    try {
      await linkFile(temp, path);
      await syncDirectory(dir);
      return { key, created: true, location: path };
    } catch (error) {
      if (isErrno(error, 'EEXIST')) return { key, created: false, location: path };
      throw error;
    } finally {
      await unlinkQuietly(temp);
    }
  }

  /**
   * Replaces `path` with `body` only while its bytes still hash to `version`: the check and the rename happen under
   * `<path>.lock` (O_EXCL), which every conditional replace of that file takes, so of two runs that read the same
   * version only the first lands; the other gets `created: false`, reads again and retries.
   */
  private async putIfVersion(
    key: string,
    path: string,
    dir: string,
    body: string | Uint8Array,
    version: string,
  ): Promise<{ key: string; created: boolean; location: string }> {
    const unchanged = { key, created: false, location: path };
    try {
      return await withLockFile(
        `${path}.lock`,
        async () => {
          const current = await this.get(key);
          if (current === null || sha256Hex(current) !== version) return unchanged;
          await writeFileAtomic(path, body, dir, 0o644);
          return { key, created: true, location: path };
        },
        this.lockOptions,
      );
    } catch (error) {
      // The directory is gone (the lock file cannot be created), and the file with it: no longer that version.
      if (error instanceof FsStoreError && error.errno === 'ENOENT' && error.path === `${path}.lock`) return unchanged;
      throw error;
    }
  }

  /** Writes the concatenated `pieces` under `key` atomically, a batch at a time (never the whole text in memory). */
  async putPieces(
    key: string,
    pieces: Iterable<string>,
    _options: { contentType?: string } = {},
  ): Promise<{ key: string; created: boolean; location: string }> {
    const path = this.pathOf(key);
    const dir = dirname(path);
    // Not retried on ENOENT: `pieces` may be a one-shot iterator.
    await this.ensureDir(dir);
    await writeChunksAtomic(path, pieces, dir, 0o644).catch((error: unknown) => {
      throw fsFailure('write', path, error);
    });
    return { key, created: true, location: path };
  }

  /**
   * The bytes under `key` and their version (the sha256 of those bytes) for a conditional replace (`ifVersion`), or
   * null. Files are replaced by rename, so the bytes read are one whole version.
   */
  async getVersioned(key: string): Promise<{ bytes: Uint8Array; version: string } | null> {
    const bytes = await this.get(key);
    return bytes === null ? null : { bytes, version: sha256Hex(bytes) };
  }

  /** The bytes under `key`, or null (also when a part of the path is a file: nothing can be stored there). */
  async get(key: string): Promise<Uint8Array | null> {
    const path = this.pathOf(key);
    try {
      return new Uint8Array(await readRegularFile(path));
    } catch (error) {
      if (isErrno(error, 'ENOENT') || isErrno(error, 'ENOTDIR')) return null;
      throw fsFailure('read', path, error, 'read');
    }
  }
}
