/**
 * A DesiredStateSource over a local directory: every *.yaml / *.yml file under the root, recursively, sorted, with
 * `/` separators. Dot-directories are skipped; symbolic links are followed only while they stay under the root;
 * `read` refuses any path that would leave the root.
 */
import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { DesiredFileRef, DesiredStateSource } from '../../core/ports.ts';

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

/** Reads desired-state files from a directory. */
export class FsDesiredStateSource implements DesiredStateSource {
  readonly root: string;
  /** The root's real path as of the last `list()` (or first `read()`): one realpath + stat per load, not per file. */
  private realRootCache: string | undefined;

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
    const realRoot = await this.realRoot();
    this.realRootCache = realRoot;
    const found: DesiredFileRef[] = [];
    await this.walk(realRoot, '', found, new Set([realRoot]));
    return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** The bytes of a file under the root (`a/b.yaml`). */
  async read(relativePath: string): Promise<{ bytes: Uint8Array }> {
    this.realRootCache ??= await this.realRoot();
    const realRoot = this.realRootCache;
    const normalised = relativePath.split('\\').join('/');
    if (path.isAbsolute(normalised) || normalised.split('/').includes('..')) {
      throw new DesiredSourceError(
        'OUTSIDE_ROOT',
        relativePath,
        `path "${relativePath}" leaves the desired-state root`,
      );
    }
    const full = path.join(realRoot, normalised);
    let real: string;
    try {
      real = await realpath(full);
    } catch (error) {
      throw new DesiredSourceError(
        'NOT_FOUND',
        relativePath,
        `no file "${relativePath}" under the desired-state root`,
        {
          cause: error,
        },
      );
    }
    if (!isInside(realRoot, real)) {
      throw new DesiredSourceError(
        'OUTSIDE_ROOT',
        relativePath,
        `"${relativePath}" links outside the desired-state root`,
      );
    }
    if (!(await stat(real)).isFile()) {
      throw new DesiredSourceError('NOT_A_FILE', relativePath, `"${relativePath}" is not a regular file`);
    }
    return { bytes: new Uint8Array(await readFile(real)) };
  }

  private async realRoot(): Promise<string> {
    try {
      const real = await realpath(this.root);
      if (!(await stat(real)).isDirectory()) throw new Error('not a directory');
      return real;
    } catch (error) {
      throw new DesiredSourceError(
        'NOT_A_DIRECTORY',
        '.',
        `desired-state root ${this.root} is not a readable directory`,
        {
          cause: error,
        },
      );
    }
  }

  private async walk(
    realRoot: string,
    relativeDir: string,
    out: DesiredFileRef[],
    visited: Set<string>,
  ): Promise<void> {
    const dir = path.join(realRoot, relativeDir);
    const entries = await readdir(dir, { withFileTypes: true });
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const relative = relativeDir === '' ? entry.name : `${relativeDir}/${entry.name}`;
      const full = path.join(dir, entry.name);
      const target = await realpath(full).catch(() => null);
      if (target === null || (entry.isSymbolicLink() && !isInside(realRoot, target))) continue;
      const info = await lstat(target);
      if (info.isDirectory()) {
        // A link back to a parent would loop forever: each real directory is walked once.
        if (visited.has(target)) continue;
        visited.add(target);
        await this.walk(realRoot, relative, out, visited);
      } else if (info.isFile() && YAML_FILE.test(entry.name)) {
        out.push({ path: relative, size: info.size });
      }
    }
  }
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
