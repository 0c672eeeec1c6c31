/**
 * A DesiredStateSource over a local directory: every *.yaml / *.yml file under the root, recursively, sorted, with
 * `/` separators. Dot entries are skipped; symbolic links are followed only while they stay under the root; a
 * YAML-named entry that is not a readable regular file there is listed with its `problem`; `read` refuses any path
 * that would leave the root.
 */
import {
  type BigIntStats,
  closeSync,
  constants,
  type Dirent,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  type Stats,
  statSync,
} from 'node:fs';
import path from 'node:path';
import { byPath } from '../../core/order.ts';
import type { DesiredFileRef, DesiredStateSource } from '../../core/ports.ts';
import {
  BAD_NAME,
  LINK_OUTSIDE,
  LINKED_DIRECTORY_OUTSIDE,
  notRegular,
  notUtf8,
  unexaminable,
  unlistable,
  unresolvable,
} from './desired-entry-problems.ts';
import { SyncPacer } from './sync-pacer.ts';

/** Errors of the directory source. Messages carry paths relative to the root, never file contents. */
export class DesiredSourceError extends Error {
  override readonly name = 'DesiredSourceError';
  /** NOT_FOUND, OUTSIDE_ROOT, NOT_A_FILE, NOT_A_DIRECTORY or IO. */
  readonly code: string;
  /** The relative path concerned. */
  readonly path: string;
  constructor(code: string, relativePath: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.path = relativePath;
  }
}

const YAML_FILE = /\.ya?ml$/i;

/** Error codes that mean "no file there" (not: the file could not be read). */
const ABSENT = new Set(['ENOENT', 'ENOTDIR']);

/**
 * A file gets a content tag only when its mtime and ctime are at least this old when listed. A write in the same clock
 * tick as the times a tag recorded would leave them unchanged (coarse kernel timestamps, or a file system that keeps
 * whole seconds); no write can happen in a tick this far back once the file is listed, and ctime never goes back.
 */
export const SETTLED_MS = 3_000;

/**
 * The content tag of a listed file (ports.ts DesiredFileRef.contentTag): device, inode, size, and mtime and ctime in
 * nanoseconds, when the file has been unchanged for SETTLED_MS; undefined for a file changed more recently.
 */
export function settledContentTag(info: BigIntStats, nowMs: number): string | undefined {
  const newest = info.mtimeMs > info.ctimeMs ? info.mtimeMs : info.ctimeMs;
  if (Number(newest) > nowMs - SETTLED_MS) return undefined;
  return `stat:${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
}
/** Opening a FIFO or device must not block: regular files ignore O_NONBLOCK (absent on Windows). */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
/**
 * A listed file is opened at the real path `list()` found, without following a final symbolic link: one put there
 * since (ELOOP) sends the read through realpath and the inside-the-root check again.
 */
const LISTED_FLAGS = OPEN_FLAGS | (constants.O_NOFOLLOW ?? 0);

/**
 * Reads a desired-state directory. File-system calls are synchronous but paced (sync-pacer.ts): one open, fstat,
 * read and close per file, on files of at most a few hundred KB, with a yield to the event loop every few
 * milliseconds. Through fs.promises the same reads cost a FileHandle and four thread-pool round trips each.
 */
export class FsDesiredStateSource implements DesiredStateSource {
  readonly root: string;
  /** The root's real path as of the last `list()` (or first `read()`): one realpath + stat per load, not per file. */
  private realRootCache: string | undefined;
  /** Real path of every file the last `list()` returned: `read` of a listed file needs no realpath. */
  private listed = new Map<string, string>();
  private readonly pacer = new SyncPacer();

  /** @param root the desired-state directory (relative to the working directory or absolute). */
  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /** `dir:<root as given, relative when under the working directory>/`. */
  describe(): string {
    const relative = path.relative(process.cwd(), this.root);
    const shown = relative === '' ? '.' : relative.startsWith('..') ? this.root : relative;
    return `dir:${shown}/`;
  }

  /** Every YAML file under the root, sorted by path. */
  async list(): Promise<DesiredFileRef[]> {
    const realRoot = this.realRoot();
    this.realRootCache = realRoot;
    const found: Listed[] = [];
    const visited = new Set([realRoot]);
    const linked: LinkedDirectory[] = [];
    await this.walk(realRoot, realRoot, '', found, visited, linked);
    // Directories reached through a link are walked after every plain one, so a directory that is also reachable
    // directly is listed under its own path, whatever order readdir gives.
    for (let next = linked.shift(); next !== undefined; next = linked.shift()) {
      if (visited.has(next.real)) continue;
      visited.add(next.real);
      await this.walk(realRoot, next.real, next.relative, found, visited, linked);
    }
    found.sort(byPath);
    this.listed = new Map(found.flatMap((f) => (f.real === undefined ? [] : [[f.path, f.real]])));
    return found.map((f) => {
      if (f.problem !== undefined) return { path: f.path, size: f.size, problem: f.problem };
      return f.contentTag ? { path: f.path, size: f.size, contentTag: f.contentTag } : { path: f.path, size: f.size };
    });
  }

  /** The bytes of a file under the root (`a/b.yaml`). */
  async read(relativePath: string, options: { maxBytes?: number } = {}): Promise<{ bytes: Uint8Array; size?: number }> {
    const paced = this.pacer.pace();
    if (paced) await paced;
    this.realRootCache ??= this.realRoot();
    const realRoot = this.realRootCache;
    const normalised = relativePath.split('\\').join('/');
    if (path.isAbsolute(normalised) || normalised.split('/').includes('..')) {
      throw new DesiredSourceError(
        'OUTSIDE_ROOT',
        relativePath,
        `path "${relativePath}" leaves the desired-state root`,
      );
    }
    const listed = this.listed.get(normalised);
    if (listed !== undefined) {
      const read = readRegularFile(listed, relativePath, LISTED_FLAGS, options.maxBytes);
      if (read !== 'link') return read;
    }
    let real: string;
    try {
      real = realpathSync(path.join(realRoot, normalised));
    } catch (error) {
      // NOT_FOUND means gone (the loader takes it for a file pruned mid-upload); a link loop or a denied directory is
      // an I/O failure, reported as such rather than as a torn upload retried forever.
      const errno = (error as NodeJS.ErrnoException).code;
      const gone = errno === 'ENOENT' || errno === 'ENOTDIR';
      // A link whose target is missing is there (`ls` shows it): "no file" would send its author looking for nothing.
      const dangling = gone && isLink(path.join(realRoot, normalised));
      throw new DesiredSourceError(
        gone ? 'NOT_FOUND' : 'IO',
        relativePath,
        dangling
          ? `"${relativePath}" is ${unresolvable(relativePath, error)}`
          : gone
            ? `no file "${relativePath}" under the desired-state root`
            : `cannot resolve "${relativePath}" under the desired-state root (${errno ?? 'error'})`,
        { cause: error },
      );
    }
    if (!isInside(realRoot, real)) {
      throw new DesiredSourceError(
        'OUTSIDE_ROOT',
        relativePath,
        `"${relativePath}" links outside the desired-state root`,
      );
    }
    const read = readRegularFile(real, relativePath, OPEN_FLAGS, options.maxBytes);
    if (read === 'link') throw new DesiredSourceError('IO', relativePath, `cannot open "${relativePath}": ELOOP`);
    return read;
  }

  /**
   * The bytes of a file under the root, or undefined when nothing is at that path (ENOENT, or ENOTDIR: a file where a
   * directory of the path should be). A path leaving the root, a directory, or an unreadable file still rejects.
   */
  async readIfPresent(
    relativePath: string,
    options: { maxBytes?: number } = {},
  ): Promise<{ bytes: Uint8Array; size?: number } | undefined> {
    try {
      return await this.read(relativePath, options);
    } catch (error) {
      const cause =
        error instanceof DesiredSourceError ? (error.cause as NodeJS.ErrnoException | undefined) : undefined;
      if (error instanceof DesiredSourceError && error.code === 'NOT_FOUND' && ABSENT.has(cause?.code ?? '')) {
        return undefined;
      }
      throw error;
    }
  }

  private realRoot(): string {
    try {
      const real = realpathSync(this.root);
      if (!statSync(real).isDirectory()) throw new Error('not a directory');
      return real;
    } catch (error) {
      throw new DesiredSourceError(
        'NOT_A_DIRECTORY',
        '.',
        `desired-state root ${this.root} is not a readable directory`,
        { cause: error },
      );
    }
  }

  /** Walks the real directory `realDir` (shown as `relativeDir`); plain entries need no realpath, links do. */
  private async walk(
    realRoot: string,
    realDir: string,
    relativeDir: string,
    out: Listed[],
    visited: Set<string>,
    linked: LinkedDirectory[],
  ): Promise<void> {
    const paced = this.pacer.pace();
    if (paced) await paced;
    let entries: Dirent[];
    try {
      // Sorted: readdir's order is the file system's, and the order links are met in must not depend on it.
      entries = readdirSync(realDir, { withFileTypes: true }).sort((a, b) =>
        a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
      );
    } catch (error) {
      const shown = relativeDir === '' ? '.' : relativeDir;
      throw new DesiredSourceError('IO', shown, unlistable(relativeDir, error), { cause: error });
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const relative = relativeDir === '' ? entry.name : `${relativeDir}/${entry.name}`;
      const full = path.join(realDir, entry.name);
      const yamlNamed = YAML_FILE.test(entry.name);
      // A YAML-named entry that cannot be read as a file is listed with its problem (the loader reports it): skipped,
      // its documents would silently leave the desired state.
      const refuse = (problem: string) => {
        if (yamlNamed) out.push({ path: relative, size: 0, problem });
      };
      const plain = entry.isFile() || entry.isDirectory();
      let target = full;
      if (!plain) {
        // A link, or a file system that does not report types: resolve it; links may not leave the root.
        try {
          target = realpathSync(full);
        } catch (error) {
          refuse(unresolvable(entry.name, error));
          continue;
        }
        if (entry.isSymbolicLink() && !isInside(realRoot, target)) {
          // A directory: whatever YAML it holds would be left out unseen (the walk never leaves the root), so it is
          // said whatever its name.
          if (statOrNull(target)?.isDirectory())
            out.push({ path: relative, size: 0, problem: LINKED_DIRECTORY_OUTSIDE });
          else refuse(LINK_OUTSIDE);
          continue;
        }
      }
      const isDirectory = plain ? entry.isDirectory() : statOrNull(target)?.isDirectory() === true;
      if (isDirectory && !plain) {
        linked.push({ real: target, relative });
      } else if (isDirectory) {
        // A link back to a parent would loop forever: each real directory is walked once.
        if (visited.has(target)) continue;
        visited.add(target);
        await this.walk(realRoot, target, relative, out, visited, linked);
      } else if (yamlNamed) {
        const info = bigStatOrCode(target);
        if (typeof info !== 'string' && info.isFile()) {
          const contentTag = settledContentTag(info, Date.now());
          out.push({ path: relative, real: target, size: Number(info.size), ...(contentTag ? { contentTag } : {}) });
        } else if (typeof info !== 'string') {
          refuse(notRegular(info));
        } else if (!ABSENT.has(info)) {
          refuse(unexaminable(info));
        } else if (notUtf8(entry.name)) {
          refuse(BAD_NAME);
        }
        // Otherwise it was deleted since readdir: as if listed a moment later.
      }
    }
  }
}

/** A directory met through a link inside the root: its real path and the path it is listed under. */
interface LinkedDirectory {
  real: string;
  relative: string;
}

interface Listed {
  path: string;
  /** Absent for an entry listed with its problem. */
  real?: string;
  size: number;
  contentTag?: string;
  problem?: string;
}

/** The file's stats, or the system's code when stat failed. */
function bigStatOrCode(real: string): BigIntStats | string {
  try {
    return statSync(real, { bigint: true });
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? 'error';
  }
}

function statOrNull(real: string): Stats | null {
  try {
    return statSync(real);
  } catch {
    return null;
  }
}

/**
 * The whole content of a regular file: one open, fstat, read (more only if it grew) and close; `link` when `flags`
 * has O_NOFOLLOW and the path is a symbolic link. A file over `maxBytes` is not read (its `size` says why), and one
 * growing past it while read is cut there.
 */
function readRegularFile(
  real: string,
  relativePath: string,
  flags: number,
  maxBytes = Number.POSITIVE_INFINITY,
): { bytes: Uint8Array; size?: number } | 'link' {
  let fd: number;
  try {
    fd = openSync(real, flags);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') return 'link';
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new DesiredSourceError(
      missing ? 'NOT_FOUND' : 'IO',
      relativePath,
      missing
        ? `no file "${relativePath}" under the desired-state root`
        : `cannot open "${relativePath}": ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      { cause: error },
    );
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) {
      throw new DesiredSourceError('NOT_A_FILE', relativePath, `"${relativePath}" is not a regular file`);
    }
    if (info.size > maxBytes) return { bytes: new Uint8Array(), size: info.size };
    // One byte more than the size: reading 0 there proves the end was reached in a single read.
    let bytes = new Uint8Array(info.size + 1);
    let length = 0;
    for (;;) {
      if (length === bytes.length) {
        const grown = new Uint8Array(bytes.length * 2);
        grown.set(bytes);
        bytes = grown;
      }
      const n = readSync(fd, bytes, length, bytes.length - length, null);
      if (n === 0) break;
      length += n;
      if (length > maxBytes) break;
    }
    return { bytes: bytes.subarray(0, length) };
  } catch (error) {
    if (error instanceof DesiredSourceError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new DesiredSourceError('IO', relativePath, `cannot read "${relativePath}": ${code}`, { cause: error });
  } finally {
    closeSync(fd);
  }
}

/** True when `absolute` itself is a symbolic link (whatever its target); false when nothing is there. */
function isLink(absolute: string): boolean {
  try {
    return lstatSync(absolute).isSymbolicLink();
  } catch {
    return false;
  }
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
