/**
 * Removes the temp files a killed run left in a directory the tool owns (the state directory, the desired-state cache).
 * A write removes its own temp file when it fails; only a kill (SIGKILL, a power cut) between the temp file's creation
 * and its rename leaves one: hidden, never read, but never removed either. The next write there sweeps them.
 *
 * Safe because all of these hold: the name is one this tool gives its temp files and nothing else (`.<12 hex>-<n>.tmp`
 * from atomic-file.ts, and the `.<uuid>.tmp` / `.fingerprint.key.<uuid>.tmp` of earlier releases and of the key
 * file); it is a regular file (not a link, not a directory); it is in that directory itself (no walk); and it was last
 * written over an hour ago, when a live write keeps its temp file for milliseconds. Not done in an archive directory:
 * it can be large and is the user's own tree (README, "Ctrl-C").
 */
import { lstat, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** Temp files untouched this long are a killed run's. */
export const STALE_TEMP_AGE_MS = 60 * 60_000;

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/** The names this tool gives its temp files, and only those. */
export const OWN_TEMP_NAME = new RegExp(`^\\.(?:[0-9a-f]{12}-[0-9a-z]+|(?:fingerprint\\.key\\.)?${UUID})\\.tmp$`);

/**
 * Removes from `dir` (not below it) the regular files named OWN_TEMP_NAME last modified more than `ageMs` before `now`.
 * Best effort: a directory or file that cannot be read or removed is left as it is, and nothing is thrown. Resolves to
 * the names removed.
 */
export async function sweepStaleTemps(dir: string, now: number, ageMs = STALE_TEMP_AGE_MS): Promise<string[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => OWN_TEMP_NAME.test(name));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      const info = await lstat(path);
      if (!info.isFile() || now - info.mtimeMs <= ageMs) continue;
      await unlink(path);
      removed.push(name);
    } catch {
      // Gone meanwhile (another run swept it) or not ours to remove: left alone.
    }
  }
  return removed;
}
