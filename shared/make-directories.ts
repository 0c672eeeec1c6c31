/**
 * `mkdir -p` one level at a time, instead of Node's `mkdir(path, { recursive: true })`: under `/proc` (and other
 * pseudo file systems that answer ENOENT to mkdir beneath an existing directory) Node's recursive mkdir never settles
 * (measured on Node 20: `mkdir('/proc/self/foo/bar', { recursive: true })` still pending after minutes), so
 * `--state-dir /proc/x` or `--data-file /proc/x/d.json` hung the command with no output. Here every failing level
 * rejects with the system's error at once. Used by the local stores and by the emulator's data file alike.
 */
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

function codeOf(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Mode of the directories this tool creates for itself to hold what other local users must not read or swap: the
 * state directory (state, lock, the fingerprint key that seals saved plans) and the desired-state cache. 0700 whatever
 * the umask (mkdir's mode is only ever narrowed by it): under umask 000 a 0777 directory would let anyone replace the
 * 0600 files inside by renaming over them.
 */
export const PRIVATE_DIRECTORY_MODE = 0o700;

/**
 * Creates `dir` and its missing parents (each with `mode` when given). Resolves to the first directory it created
 * (as Node's recursive mkdir does), or undefined when `dir` already existed; rejects with the first level's error
 * (EEXIST when the path is a file, ENOTDIR when a part above it is, EACCES, ENOENT where the file system refuses).
 */
export async function makeDirectories(dir: string, mode?: number): Promise<string | undefined> {
  const path = resolve(dir);
  const missing: string[] = [];
  for (let current = path; ; current = dirname(current)) {
    let isDirectory: boolean;
    try {
      isDirectory = (await stat(current)).isDirectory();
    } catch (error) {
      // ENOTDIR: a part above is a file; walking on up finds it and names it.
      const code = codeOf(error);
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || dirname(current) === current) throw error;
      missing.push(current);
      continue;
    }
    if (!isDirectory) {
      // The codes Node's recursive mkdir gives: EEXIST for a file at the path itself, ENOTDIR for one above it.
      const code = current === path ? 'EEXIST' : 'ENOTDIR';
      throw Object.assign(new Error(`${code}: mkdir '${path}'`), { code, path: current });
    }
    break;
  }
  missing.reverse();
  for (const level of missing) {
    try {
      await mkdir(level, mode === undefined ? undefined : { mode });
    } catch (error) {
      // Another process made it meanwhile: fine, as with mkdir -p.
      if (codeOf(error) !== 'EEXIST') throw error;
    }
  }
  return missing[0];
}
