/**
 * Why an entry of a desired-state directory cannot be read, in words: the `problem` of a listed entry
 * (ports.ts DesiredFileRef.problem), or why a directory cannot be listed. Each says what is wrong and what to do.
 */
import type { BigIntStats } from 'node:fs';

/** What readdir gives for each byte of a name that is not UTF-8: such a name cannot be opened by that string. */
const REPLACEMENT = '\uFFFD';

/** True for a name readdir could not decode (it holds U+FFFD, the stand-in for each byte that is not UTF-8). */
export function notUtf8(name: string): boolean {
  return name.includes(REPLACEMENT);
}

/** A file whose name is not UTF-8. */
export const BAD_NAME = 'the file name is not valid UTF-8, so the file cannot be opened by name: rename it';

/** A file link leaving the root. */
export const LINK_OUTSIDE =
  'a symbolic link that leaves the desired-state root: it is not read; copy the file in, or remove the link';

/** A directory link leaving the root. */
export const LINKED_DIRECTORY_OUTSIDE =
  'a symbolic link to a directory outside the desired-state root: its files are not read; copy them in, or remove the link';

/**
 * Why the directory `relativeDir` (relative to the root; `''` is the root) cannot be listed: a name that is not
 * UTF-8, a path too long for the system, or the system's code.
 */
export function unlistable(relativeDir: string, error: unknown): string {
  const errno = (error as NodeJS.ErrnoException).code ?? 'error';
  const shown = relativeDir === '' ? '.' : relativeDir;
  const short = shown.length > 120 ? `${shown.slice(0, 60)}...${shown.slice(-40)}` : shown;
  if (errno === 'ENOENT' && notUtf8(relativeDir)) {
    return `the directory "${short}" has a name that is not valid UTF-8, so it cannot be opened by name: rename it`;
  }
  if (errno === 'ENAMETOOLONG') {
    return `the directory "${short}" is nested too deep: its path (${shown.length} characters under the root) is longer than the system allows (ENAMETOOLONG)`;
  }
  return `the directory "${short}" cannot be listed (${errno})`;
}

/** Why a link (or an entry of unknown type) named `name` could not be resolved. */
export function unresolvable(name: string, error: unknown): string {
  const errno = (error as NodeJS.ErrnoException).code ?? 'error';
  if (errno === 'ENOENT' && notUtf8(name)) return BAD_NAME;
  if (errno === 'ENOENT' || errno === 'ENOTDIR') {
    return 'a symbolic link to a file that does not exist: it is not read; restore its target, or remove the link';
  }
  if (errno === 'ELOOP') return 'a symbolic link loop (ELOOP): it is not read; remove the link';
  return `a symbolic link that cannot be resolved (${errno}): it is not read`;
}

/** A file stat refused with `errno` (EACCES: a directory that can be listed but not searched). */
export function unexaminable(errno: string): string {
  return `cannot be examined (${errno}): it is not read`;
}

/** A FIFO, socket or device where a YAML file was expected. */
export function notRegular(info: BigIntStats): string {
  const kind = info.isFIFO()
    ? 'a FIFO (named pipe)'
    : info.isSocket()
      ? 'a socket'
      : info.isCharacterDevice() || info.isBlockDevice()
        ? 'a device'
        : 'a special file';
  return `${kind}, not a regular file: it is not read; remove it, or replace it with the file itself`;
}
