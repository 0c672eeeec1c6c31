/**
 * Local DesiredStateCache: one file per entry, `<dir>/<key>.json` (the CLI uses `<stateDir>/cache/desired/`). Written
 * atomically (temp file, rename) so a reader never sees half an entry; no fsync, since a lost entry only costs a
 * re-parse. Only the `maxEntries` most recently used entries are kept (a hit refreshes the entry's mtime).
 */
import { randomUUID } from 'node:crypto';
import { closeSync, readSync } from 'node:fs';
import { open, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { makeDirectories, PRIVATE_DIRECTORY_MODE } from '../../../shared/make-directories.ts';
import { openRegularFileSync } from '../../../shared/regular-file.ts';
import { isCacheKey } from '../../core/desired/cache.ts';
import { desiredCacheSwitch } from '../../core/desired/cache-switch.ts';
import { ReconcileError } from '../../core/errors.ts';
import type { DesiredStateCache } from '../../core/ports.ts';
import { sweepStaleTemps } from './stale-temps.ts';
import { SyncPacer } from './sync-pacer.ts';

/** Options of FsDesiredStateCache. */
export interface FsDesiredCacheOptions {
  /**
   * Entries kept after a write; older ones (by last use) are deleted. Default 8: the current revision and a few, each
   * a state entry and its small tag entry.
   */
  maxEntries: number;
}

/** Defaults of FsDesiredCacheOptions. */
export const DEFAULT_FS_DESIRED_CACHE_OPTIONS: FsDesiredCacheOptions = { maxEntries: 8 };

/** The cache directory under a CLI state directory. */
export function desiredCacheDir(stateDir: string): string {
  return join(stateDir, 'cache', 'desired');
}

/**
 * True when OPSMAN_DESIRED_CACHE turns the desired-state cache off (core/desired/cache-switch.ts); throws a
 * ReconcileError (DESIRED_CACHE_SETTING) for a value that is neither on nor off.
 */
export function desiredCacheOff(env: Record<string, string | undefined>): boolean {
  const cache = desiredCacheSwitch(env);
  if (cache.problem !== undefined) throw new ReconcileError('DESIRED_CACHE_SETTING', cache.problem);
  return !cache.on;
}

const WRITE_BATCH_CHARS = 32 * 1024;

const ENTRY = /^[0-9a-f]{64}\.json$/;

function isErrno(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === code;
}

/** DesiredStateCache in a directory. */
export class FsDesiredStateCache implements DesiredStateCache {
  readonly dir: string;
  readonly #options: FsDesiredCacheOptions;

  constructor(dir: string, options: Partial<FsDesiredCacheOptions> = {}) {
    this.dir = dir;
    this.#options = { ...DEFAULT_FS_DESIRED_CACHE_OPTIONS, ...options };
    if (!Number.isInteger(this.#options.maxEntries) || this.#options.maxEntries < 1) {
      throw new RangeError('FsDesiredStateCache maxEntries must be a positive integer');
    }
  }

  async get(key: string): Promise<string | undefined> {
    if (!isCacheKey(key)) return undefined;
    const path = join(this.dir, `${key}.json`);
    let text: string;
    try {
      text = await readInSlices(path);
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return undefined;
      throw error;
    }
    const now = new Date();
    await utimes(path, now, now).catch(() => undefined); // recency for pruning; best effort
    return text;
  }

  async put(key: string, text: string): Promise<void> {
    await this.putPieces(key, [text]);
  }

  /** Writes the pieces to a temp file in batches of about 32 KB (small native buffers, as readInSlices), then renames it over the entry. */
  async putPieces(key: string, pieces: Iterable<string>): Promise<void> {
    if (!isCacheKey(key)) throw new RangeError('desired-state cache key must be 64 lowercase hex characters');
    await makeDirectories(this.dir, PRIVATE_DIRECTORY_MODE);
    const temp = join(this.dir, `.${randomUUID()}.tmp`);
    try {
      const handle = await open(temp, 'wx', 0o600);
      try {
        let batch: string[] = [];
        let size = 0;
        for (const piece of pieces) {
          batch.push(piece);
          size += piece.length;
          if (size >= WRITE_BATCH_CHARS) {
            // writeFile, not write: it continues after a short write (a disk filling up writes part, then fails),
            // where write would return the short count and leave the entry cut short.
            await handle.writeFile(batch.join(''));
            batch = [];
            size = 0;
          }
        }
        if (batch.length > 0) await handle.writeFile(batch.join(''));
      } catch (error) {
        // The write's own failure is the one reported, not a close failing after it.
        await handle.close().catch(() => undefined);
        throw error;
      }
      await handle.close();
      await rename(temp, join(this.dir, `${key}.json`));
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined);
      throw error;
    }
    await this.#prune(key);
  }

  /**
   * Deletes all but the newest `maxEntries` entries (never `keep`, the one just written), and the temp files a killed
   * run left here over an hour ago (stale-temps.ts).
   */
  async #prune(keep: string): Promise<void> {
    await sweepStaleTemps(this.dir, Date.now());
    const names = (await readdir(this.dir).catch(() => [] as string[])).filter((n) => ENTRY.test(n));
    if (names.length <= this.#options.maxEntries) return;
    const dated = await Promise.all(
      names.map(async (name) => ({
        name,
        mtime: name === `${keep}.json` ? Number.POSITIVE_INFINITY : await mtimeOf(join(this.dir, name)),
      })),
    );
    dated.sort((a, b) => b.mtime - a.mtime);
    for (const { name } of dated.slice(this.#options.maxEntries)) {
      await rm(join(this.dir, name), { force: true }).catch(() => undefined);
    }
  }
}

/** Bytes read at once: small native buffers (see readInSlices). */
const READ_SLICE = 64 * 1024;

/**
 * Reads a UTF-8 file in 64 KB slices into one string. An entry is several MB: read whole, it would be one native
 * buffer of that size, and freeing it raises glibc's mmap threshold, so the run's later allocations stay in the
 * process after they are freed (a higher peak RSS). Slices keep every native buffer small. The reads are synchronous
 * but paced (sync-pacer.ts): a stream costs a thread-pool round trip and a stream chunk per slice, about 40 ms of
 * main-thread CPU for a 7 MB entry, against a few ms here.
 */
async function readInSlices(path: string): Promise<string> {
  // A FIFO in the entry's place is refused (a miss), not waited on: openSync would block the whole process.
  const fd = openRegularFileSync(path);
  try {
    const pacer = new SyncPacer();
    const block = Buffer.allocUnsafeSlow(READ_SLICE);
    const decoder = new StringDecoder('utf8');
    let text = '';
    for (;;) {
      const n = readSync(fd, block, 0, block.length, null);
      if (n === 0) break;
      text += decoder.write(n === block.length ? block : block.subarray(0, n));
      const paced = pacer.pace();
      if (paced) await paced;
    }
    return text + decoder.end();
  } finally {
    closeSync(fd);
  }
}

async function mtimeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).mtimeMs;
  } catch {
    return 0;
  }
}
