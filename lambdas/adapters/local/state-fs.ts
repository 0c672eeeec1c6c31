/**
 * Local StateStore: `state.json` in a directory, written atomically (temp file, fsync, rename) with a version check
 * (version = sha256 of the content), and the run lease as `lease.json`, written in full under a temp name and linked
 * into place (never replacing one). An expired lease is taken
 * over, and a lease is renewed or released, only under a short `lease.json.lock` (O_EXCL too), so two runs can never
 * both believe they hold it.
 */
import { createHash, randomUUID } from 'node:crypto';
import { closeSync, fstatSync, readFileSync } from 'node:fs';
import { type FileHandle, lstat, open, readlink, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDirectories, PRIVATE_DIRECTORY_MODE } from '../../../shared/make-directories.ts';
import { openRegularFile, openRegularFileSync, readRegularFile } from '../../../shared/regular-file.ts';
import {
  LeaseHeldError,
  LeaseLostError,
  LeaseMismatchError,
  StateConflictError,
  StateCorruptError,
  StateTooNewError,
} from '../../core/errors.ts';
import { jsonChunks } from '../../core/json-chunks.ts';
import {
  leaseDocumentText,
  readLeaseDocument,
  unreadableLeaseExpiry,
  unreadableLeaseNotice,
} from '../../core/lease-document.ts';
import type { Lease, ReconcileState, StateStore } from '../../core/ports.ts';
import { STATE_FORMAT_VERSION, stateDocumentProblem } from '../../core/state-check.ts';
import { linkFile, renameFile, tempPathIn, unlinkQuietly, writeSyncedTemp } from './atomic-file.ts';
import { syncDirectory } from './dir-sync.ts';
import { FsStoreError, fsFailure } from './fs-failure.ts';
import { withLockFile } from './lock-file.ts';
import { sweepStaleTemps } from './stale-temps.ts';

export { FsStoreError };

/** Options of FsStateStore. */
export interface FsStateStoreOptions {
  /** Clock for lease expiry. */
  now: () => Date;
  /** A short internal lock older than this is considered abandoned (a crashed process) and removed. */
  staleLockMs: number;
  /** How long to wait for a short internal lock. */
  lockWaitMs: number;
}

/** Defaults of FsStateStoreOptions. */
export const DEFAULT_FS_STATE_OPTIONS: FsStateStoreOptions = {
  now: () => new Date(),
  staleLockMs: 30_000,
  lockWaitMs: 5_000,
};

interface LeaseDoc {
  owner: string;
  runId: string;
  expiresAt: string;
  token: string;
  /** Set when lease.json cannot be read: what was found and the way out (it counts as held until expiresAt). */
  unreadable?: string;
}

function sha256(bytes: string | Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Pieces of text are gathered up to about this many characters before each write (and hash update). */
const WRITE_BATCH_CHARS = 1 << 16;

/**
 * Writes the concatenated `pieces` to `path` atomically (temp file, fsync, rename, directory fsync), a batch at a
 * time, so the whole text never exists as one string; resolves to the sha256 of the bytes written. On failure (a full
 * disk, an I/O error, `pieces` throwing) the temp file is removed and the promise rejects with that failure.
 */
export async function writeChunksAtomic(
  path: string,
  pieces: Iterable<string>,
  dir: string,
  mode = 0o600,
): Promise<string> {
  const temp = tempPathIn(dir);
  const hash = createHash('sha256');
  // A failed open created nothing of ours (O_EXCL): nothing to remove.
  const handle = await open(temp, 'wx', mode);
  try {
    let batch = '';
    const flush = async () => {
      const bytes = Buffer.from(batch, 'utf8');
      hash.update(bytes);
      await handle.writeFile(bytes);
      batch = '';
    };
    for (const piece of pieces) {
      batch += piece;
      if (batch.length >= WRITE_BATCH_CHARS) await flush();
    }
    await flush();
    await handle.sync();
  } catch (error) {
    // The write's own failure is the one reported: a close or unlink failing after it would only hide why.
    await handle.close().catch(() => undefined);
    await unlinkQuietly(temp);
    throw error;
  }
  try {
    await handle.close();
  } catch (error) {
    await unlinkQuietly(temp);
    throw error;
  }
  await publishTemp(temp, path, dir);
  return hash.digest('hex');
}

/** sha256 of a file's bytes, read in blocks; null when it does not exist. */
async function sha256OfFile(path: string): Promise<string | null> {
  let handle: FileHandle;
  try {
    handle = await openRegularFile(path);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return null;
    throw fsFailure('read', path, error, 'read');
  }
  try {
    return await hashBlocks(handle);
  } finally {
    await handle.close();
  }
}

/**
 * sha256 of what `source` reads from its position to its end, a 64 KB block at a time; each block is also handed to
 * `each` (awaited) before the next is read.
 */
async function hashBlocks(source: FileHandle, each?: (bytes: Buffer) => Promise<void>): Promise<string> {
  const hash = createHash('sha256');
  const block = Buffer.alloc(1 << 16);
  for (;;) {
    const { bytesRead } = await source.read(block, 0, block.length, null);
    if (bytesRead === 0) break;
    const bytes = block.subarray(0, bytesRead);
    hash.update(bytes);
    if (each !== undefined) await each(bytes);
  }
  return hash.digest('hex');
}

/**
 * Copies `from` to a new file `to` (O_EXCL, 0600 whatever `from`'s mode) a block at a time, fsyncs it; resolves to the
 * sha256 of the bytes copied. On failure `to` may remain: the caller removes it.
 */
async function copySynced(from: string, to: string): Promise<string> {
  const source = await openRegularFile(from);
  try {
    const target = await open(to, 'wx', 0o600);
    try {
      const digest = await hashBlocks(source, (bytes) => target.writeFile(bytes));
      await target.sync();
      return digest;
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

function isErrno(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === code;
}

/** Writes `text` to `path` atomically: a temp file in the same directory, fsync, rename, fsync of the directory. */
export async function writeFileAtomic(
  path: string,
  text: string | Uint8Array,
  dir: string,
  mode = 0o600,
): Promise<void> {
  const temp = tempPathIn(dir);
  await writeSyncedTemp(temp, text, mode);
  await publishTemp(temp, path, dir);
}

/** The last step of an atomic write: rename the synced temp file over `path` (or remove it), then fsync `dir`. */
async function publishTemp(temp: string, path: string, dir: string): Promise<void> {
  try {
    await renameFile(temp, path);
  } catch (error) {
    await unlinkQuietly(temp);
    throw error;
  }
  await syncDirectory(dir);
}

function* withNewline(pieces: Iterable<string>): Generator<string> {
  yield* pieces;
  yield '\n';
}

/** State and lease in a local directory. */
export class FsStateStore implements StateStore {
  private readonly statePath: string;
  private readonly leasePath: string;
  private readonly options: FsStateStoreOptions;
  /** Versions this store read as corrupt: a write over one of them keeps the unreadable file aside first. */
  private readonly corruptVersions = new Set<string>();

  constructor(
    private readonly dir: string,
    options: Partial<FsStateStoreOptions> = {},
  ) {
    this.statePath = join(dir, 'state.json');
    this.leasePath = join(dir, 'lease.json');
    this.options = { ...DEFAULT_FS_STATE_OPTIONS, ...options };
  }

  private async readBytes(path: string): Promise<Buffer | null> {
    try {
      return await readRegularFile(path);
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return null;
      throw fsFailure('read', path, error, 'read');
    }
  }

  /** Creates the state directory (and its parents); a failure names it and says why. */
  private async makeDir(): Promise<void> {
    try {
      await makeDirectories(this.dir, PRIVATE_DIRECTORY_MODE);
    } catch (error) {
      throw fsFailure('create the state directory', this.dir, error);
    }
  }

  /**
   * Refuses a state.json that is a symbolic link. Why: it is replaced by a rename over it, which replaces the link, not
   * the file it names; that file would silently stop being updated after the first apply read it (and another state
   * directory linking to it holds its own lease: no lock between them). The state directory itself may be a link.
   */
  private async refuseLinkedState(): Promise<void> {
    const info = await lstat(this.statePath).catch(() => null);
    if (info === null || !info.isSymbolicLink()) return;
    const target = await readlink(this.statePath).catch(() => 'somewhere it cannot read');
    throw new FsStoreError(
      `${this.statePath} is a symbolic link (to ${target}): the state is replaced by renaming a new file over state.json, which would replace the link, not the file it names. Give --state-dir the directory that holds the state instead, or replace the link with the file`,
      this.statePath,
    );
  }

  /**
   * Reads state.json; StateCorruptError when it is not a valid state document. The version hashes the file's bytes.
   * A state.json that is a symbolic link is refused (FsStoreError).
   */
  async read(): Promise<{ state: ReconcileState | null; version: string | null }> {
    await this.refuseLinkedState();
    const bytes = await this.readBytes(this.statePath);
    if (bytes === null) return { state: null, version: null };
    const version = sha256(bytes);
    const text = bytes.toString('utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      this.corruptVersions.add(version);
      throw new StateCorruptError(`state ${this.statePath} is not valid JSON`, version, { cause: error });
    }
    const problem = stateDocumentProblem(parsed);
    if (problem?.kind === 'newer') {
      throw new StateTooNewError(
        this.statePath,
        (parsed as { formatVersion: number }).formatVersion,
        STATE_FORMAT_VERSION,
      );
    }
    if (problem) {
      this.corruptVersions.add(version);
      throw new StateCorruptError(`state ${this.statePath} is not a state document: ${problem.detail}`, version);
    }
    return { state: parsed as ReconcileState, version };
  }

  /**
   * Writes state.json when the stored version is still `expectedVersion`. The text is the same as
   * `JSON.stringify(state, null, 2)` plus a newline, written a project at a time (never one string of the whole state).
   * Temp files a killed run left in the directory over an hour ago are removed first (stale-temps.ts).
   */
  async write(state: ReconcileState, expectedVersion: string | null): Promise<string> {
    await this.makeDir();
    return this.withLock(`${this.statePath}.lock`, async () => {
      await this.refuseLinkedState();
      const actual = await sha256OfFile(this.statePath);
      if (actual !== expectedVersion) throw new StateConflictError(expectedVersion, actual);
      if (actual !== null && this.corruptVersions.has(actual)) await this.keepCorrupt(actual);
      await sweepStaleTemps(this.dir, this.options.now().getTime());
      const pieces = jsonChunks(state, { indent: 2, splitDepth: 3 });
      return writeChunksAtomic(this.statePath, withNewline(pieces), this.dir).catch((error: unknown) => {
        throw fsFailure('write', this.statePath, error);
      });
    });
  }

  /**
   * Copies the unreadable state.json aside as `state.json.corrupt-<first 12 hex of its sha256>` (0600) before a run
   * replaces it: what it recorded (ownership of configs that left git meanwhile, for one) can still be recovered by
   * hand. The copy is written under a temp name (0600 from the start), checked against `version` and fsynced, and only
   * then linked to its name: a copy cut short (a full disk, a crash) never carries the name, and an existing file of
   * that name is kept only when its bytes are the corrupt state's (a truncated leftover is replaced). Any failure
   * throws before state.json is touched. The run's report says the state was corrupt; the copy is named in the README.
   */
  private async keepCorrupt(version: string): Promise<void> {
    const copy = `${this.statePath}.corrupt-${version.slice(0, 12)}`;
    if ((await sha256OfFile(copy).catch(() => null)) === version) return;
    const temp = tempPathIn(this.dir);
    try {
      const copied = await copySynced(this.statePath, temp);
      if (copied !== version) throw new Error(`the copy's sha256 is ${copied}, the corrupt state's ${version}`);
      try {
        await linkFile(temp, copy);
      } catch (error) {
        // A file of that name with other bytes (one cut short before this release wrote copies this way): replaced.
        if (!isErrno(error, 'EEXIST')) throw error;
        await renameFile(temp, copy);
      }
      await syncDirectory(this.dir);
    } catch (error) {
      throw fsFailure('keep a copy of the corrupt state as', copy, error);
    } finally {
      await unlinkQuietly(temp);
    }
  }

  /** Creates lease.json (linked into place: never replaces one), or takes over an expired one; LeaseHeldError otherwise. */
  async acquireLease(request: { owner: string; runId: string; ttlMs: number }): Promise<Lease> {
    await this.makeDir();
    const doc: LeaseDoc = {
      owner: request.owner,
      runId: request.runId,
      expiresAt: new Date(this.options.now().getTime() + request.ttlMs).toISOString(),
      token: randomUUID(),
    };
    return this.withLock(`${this.leasePath}.lock`, async () => {
      const current = await this.readLease(request.ttlMs);
      if (current !== null && Date.parse(current.expiresAt) > this.options.now().getTime()) {
        const { owner, runId, expiresAt, unreadable } = current;
        throw new LeaseHeldError(
          { owner, runId, expiresAt, ...(unreadable === undefined ? {} : { unreadable }) },
          0,
          this.options.now().getTime(),
        );
      }
      if (current === null) {
        // Written in full and fsynced under a temp name, then linked into place (EEXIST when one exists: never
        // replaced). A lease.json created first and written after was left empty by a failed write (a full disk) or a
        // kill in between: unreadable, it refused every run for a lease lifetime.
        const temp = tempPathIn(this.dir);
        try {
          await writeSyncedTemp(temp, leaseDocumentText(doc), 0o600).catch((error: unknown) => {
            throw fsFailure('write the lease file', this.leasePath, error);
          });
          await linkFile(temp, this.leasePath).catch(async (error: unknown) => {
            if (!isErrno(error, 'EEXIST')) throw fsFailure('create the lease file', this.leasePath, error);
            const other = await this.readLease(request.ttlMs);
            throw new LeaseHeldError({
              owner: other?.owner ?? 'another run',
              runId: other?.runId ?? 'unknown',
              expiresAt: other?.expiresAt ?? 'unknown',
            });
          });
        } finally {
          await unlinkQuietly(temp);
        }
        await syncDirectory(this.dir);
        return doc;
      }
      // Expired (or unreadable for a lease lifetime since it was last written): replace it; we hold the lease lock, so
      // nobody renews or takes it meanwhile.
      await this.writeLease(doc);
      return doc;
    });
  }

  /** Extends our lease; LeaseLostError when it is no longer ours. */
  async renewLease(lease: Lease, ttlMs: number): Promise<Lease> {
    return this.withLock(`${this.leasePath}.lock`, async () => {
      const current = await this.readLease(ttlMs);
      if (current === null || current.token !== lease.token) {
        throw new LeaseLostError(`lease ${this.leasePath} of run ${lease.runId} was taken over or removed`);
      }
      const doc: LeaseDoc = {
        owner: current.owner,
        runId: current.runId,
        expiresAt: new Date(this.options.now().getTime() + ttlMs).toISOString(),
        token: current.token,
      };
      await this.writeLease(doc);
      return doc;
    });
  }

  /**
   * LeaseLostError unless lease.json still holds our token. Read without the lease lock: every replacement of the file
   * is a rename (atomic), and a file being created means ours is gone anyway, so a partial read is rightly not ours.
   * It runs before every write, so it reads synchronously: the file is a few hundred bytes on a local disk, and four
   * awaited file requests per write cost 12 times the CPU of the same reads done at once (docs/load-and-archive-speed.md).
   */
  async checkLease(lease: Lease): Promise<void> {
    const current = this.readLeaseSync();
    if (current === null || current.token !== lease.token) {
      const now =
        current === null ? 'it was removed (unlock?)' : `run ${current.runId} (${current.owner}) holds it now`;
      throw new LeaseLostError(`lease ${this.leasePath} of run ${lease.runId} is no longer ours: ${now}`);
    }
  }

  /** Removes lease.json only if it is still ours. */
  async releaseLease(lease: Lease): Promise<void> {
    await this.withLock(`${this.leasePath}.lock`, async () => {
      const current = await this.readLease(0);
      if (current === null || current.token !== lease.token) return;
      await unlink(this.leasePath).catch((error: unknown) => {
        if (!isErrno(error, 'ENOENT')) throw fsFailure('remove the lease file', this.leasePath, error);
      });
    });
  }

  /**
   * Removes the lease of run `runId` whoever holds it (a run killed before it could release it: `unlock`). Returns
   * what was removed, null when no lease exists; LeaseMismatchError, removing nothing, when another run holds it.
   */
  async forceReleaseLease(runId: string): Promise<Lease | null> {
    return this.withLock(`${this.leasePath}.lock`, async () => {
      const current = await this.readLease(0);
      if (current === null) return null;
      if (current.runId !== runId) throw new LeaseMismatchError(runId, current);
      await unlink(this.leasePath).catch((error: unknown) => {
        if (!isErrno(error, 'ENOENT')) throw fsFailure('remove the lease file', this.leasePath, error);
      });
      const { owner, expiresAt, token } = current;
      return { owner, runId: current.runId, expiresAt, token };
    });
  }

  private async writeLease(doc: LeaseDoc): Promise<void> {
    await writeFileAtomic(this.leasePath, leaseDocumentText(doc), this.dir).catch((error: unknown) => {
      throw fsFailure('write the lease file', this.leasePath, error);
    });
  }

  /**
   * The lease document, or null when absent. One that cannot be read (torn, empty, another version's format) counts as
   * held until its mtime plus `ttlMs` (lease-document.ts), under the run id it names if any ('unknown' otherwise).
   */
  private async readLease(ttlMs: number): Promise<LeaseDoc | null> {
    let text: string;
    let modifiedMs: number;
    try {
      // One open file for both: the mtime is that of the bytes read, even if the file is replaced meanwhile. A FIFO or
      // a device there is refused, never waited on (it would hold lease.json.lock for good).
      const handle = await openRegularFile(this.leasePath);
      try {
        modifiedMs = (await handle.stat()).mtimeMs;
        text = await handle.readFile('utf8');
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return null;
      throw fsFailure('read', this.leasePath, error, 'read');
    }
    return this.leaseFromText(text, modifiedMs, ttlMs);
  }

  /** readLease(0) without awaiting: the same open, fstat, read and close (a FIFO refused as there), done at once. */
  private readLeaseSync(): LeaseDoc | null {
    let text: string;
    let modifiedMs: number;
    try {
      const fd = openRegularFileSync(this.leasePath);
      try {
        modifiedMs = fstatSync(fd).mtimeMs;
        text = readFileSync(fd, 'utf8');
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return null;
      throw fsFailure('read', this.leasePath, error, 'read');
    }
    return this.leaseFromText(text, modifiedMs, 0);
  }

  /** The lease document read from `text` (see readLease), `modifiedMs` being the file's mtime. */
  private leaseFromText(text: string, modifiedMs: number, ttlMs: number): LeaseDoc {
    const reading = readLeaseDocument(text, true);
    if (reading.readable) {
      const { owner, runId, expiresAt, token } = reading.lease;
      return { owner, runId, expiresAt, token: token as string };
    }
    const heldUntil = unreadableLeaseExpiry(modifiedMs, ttlMs);
    const wayOut =
      reading.runId === undefined
        ? `delete ${this.leasePath}`
        : `remove it with \`opsman-gitops unlock ${reading.runId}\` (same --state-dir), or delete ${this.leasePath}`;
    return {
      owner: 'unreadable lease',
      runId: reading.runId ?? 'unknown',
      expiresAt: heldUntil,
      token: '',
      unreadable: unreadableLeaseNotice(this.leasePath, reading, heldUntil, wayOut),
    };
  }

  /** Runs `fn` holding a short O_EXCL lock file; an abandoned lock (older than staleLockMs) is removed. */
  private withLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
    return withLockFile(path, fn, this.options);
  }
}
