/**
 * The cause of a failed file-system operation as words: which part of the path is wrong and how (`/srv/opsman is a
 * file, not a directory`, `permission denied: /srv is not writable by this user`, `no space left on the device`), ending
 * with the system's code. Node's own text (`ENOTDIR: not a directory, mkdir '/a/b/c'`) names neither what was being done
 * nor which part of the path is wrong. Used by the local stores and by the emulator's data file alike.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { NotRegularFileError } from './regular-file.ts';

/** Whether the failed operation wanted to read or to write (decides what a permission problem is about). */
export type FsAccess = 'read' | 'write';

function errnoOf(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function statOf(path: string): ReturnType<typeof statSync> {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** The nearest existing path at or above `path` (the part of it that is really there). */
function nearestExisting(path: string): { path: string; isDirectory: boolean } | undefined {
  for (let current = path; ; current = dirname(current)) {
    const info = statOf(current);
    if (info !== undefined) return { path: current, isDirectory: info.isDirectory() };
    if (dirname(current) === current) return undefined;
  }
}

/** The first part of `path` that is not there (`/srv/new` of `/srv/new/plan.json` when /srv exists): what ENOENT means. */
function firstMissing(path: string): string {
  let missing = path;
  while (dirname(missing) !== missing && statOf(dirname(missing)) === undefined) missing = dirname(missing);
  return missing;
}

function notADirectory(path: string): string {
  const info = statOf(path);
  return info?.isFile() === true ? `${path} is a file, not a directory` : `${path} is not a directory`;
}

/** Node's text without its `CODE: ` prefix and its `, syscall 'path'` suffix (both said better around it). */
function nodeText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^[A-Z0-9_]+: /, '').replace(/, [a-z_]+ '[^']*'( -> '[^']*')?$/, '');
}

/** The cause of a failed operation on `path`, in words, with the system's code at the end when there is one. */
export function describeFsCause(path: string, error: unknown, access: FsAccess = 'write'): string {
  // Not a system call's failure: its own words (`it is a FIFO (named pipe), not a regular file`), no errno.
  if (error instanceof NotRegularFileError) return error.message;
  const code = errnoOf(error);
  const words = ((): string => {
    switch (code) {
      case 'ENOTDIR': {
        const blocker = nearestExisting(path);
        return blocker !== undefined && !blocker.isDirectory
          ? notADirectory(blocker.path)
          : 'a part of the path is not a directory';
      }
      case 'EEXIST':
        return statOf(path)?.isDirectory() === false ? notADirectory(path) : `${path} already exists`;
      case 'EACCES': {
        if (access === 'read') return 'permission denied (no read permission)';
        // Creating, renaming or removing an entry needs write permission on the directory that holds it.
        const dir = nearestExisting(statOf(path)?.isDirectory() === true ? path : dirname(path));
        if (dir?.isDirectory !== true) return 'permission denied';
        try {
          accessSync(dir.path, constants.W_OK | constants.X_OK);
          return 'permission denied';
        } catch {
          return `permission denied: ${dir.path} is not writable by this user`;
        }
      }
      case 'EPERM':
        return 'operation not permitted';
      case 'EROFS':
        return 'the file system is read-only';
      case 'ENOSPC':
        return 'no space left on the device';
      case 'EDQUOT':
        return 'the disk quota is used up';
      case 'EISDIR':
        return `${path} is a directory`;
      case 'ENOENT':
        // Writing a file into a missing directory fails with ENOENT too: the directory is what is missing.
        return `${firstMissing(path)} does not exist`;
      case 'ELOOP':
        return 'too many levels of symbolic links';
      case 'ENAMETOOLONG':
        return 'the path is too long';
      case 'EMFILE':
      case 'ENFILE':
        return 'too many open files';
      case 'EIO':
        return 'input/output error (a failing disk or network file system)';
      default:
        return nodeText(error);
    }
  })();
  return code === undefined ? words : `${words} (${code})`;
}
