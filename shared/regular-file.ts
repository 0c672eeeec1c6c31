/**
 * Reads of a file a user names (a secrets file, a CA file, a saved plan, a state directory's files) that refuse
 * anything but a regular file instead of hanging on it: opening a FIFO for reading waits for a writer, forever when
 * none comes, and reading a device such as /dev/zero never ends. The path is opened with O_NONBLOCK (a FIFO then opens
 * at once), checked with fstat on the descriptor opened (no window between check and read), and refused with
 * NotRegularFileError unless it is a regular file (a directory: EISDIR, as before). O_NONBLOCK changes nothing for
 * a regular file's reads.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { constants as osConstants } from 'node:os';

/** What the path is, when it is not a regular file: the words of the refusal. */
function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'a special file';
}

/** The refusal of a path that is not a regular file; a directory fails as reading one always did (EISDIR). */
function refusal(path: string, info: Stats): Error {
  if (!info.isDirectory()) return new NotRegularFileError(path, info);
  return Object.assign(new Error('EISDIR: illegal operation on a directory, read'), {
    code: 'EISDIR',
    errno: -osConstants.errno.EISDIR,
    syscall: 'read',
  });
}

/** The path is a FIFO, a socket or a device: it was not read. `message` names no path (callers do). */
export class NotRegularFileError extends Error {
  override name = 'NotRegularFileError';
  /** Stable code (no system call failed, so it is not an errno). */
  readonly code = 'NOT_A_REGULAR_FILE';
  readonly path: string;

  constructor(path: string, info: Stats) {
    super(`it is ${kindOf(info)}, not a regular file`);
    this.path = path;
  }
}

const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/** Opens `path` for reading; NotRegularFileError (closed again) unless it is a regular file. */
export async function openRegularFile(path: string): Promise<FileHandle> {
  const handle = await open(path, READ_FLAGS);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw refusal(path, info);
    return handle;
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

/** openRegularFile, synchronously: the descriptor. */
export function openRegularFileSync(path: string): number {
  const fd = openSync(path, READ_FLAGS);
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw refusal(path, info);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** The whole of a regular file (readFile's result); NotRegularFileError for anything else, never a hang. */
export async function readRegularFile(path: string): Promise<Buffer>;
export async function readRegularFile(path: string, encoding: 'utf8'): Promise<string>;
export async function readRegularFile(path: string, encoding?: 'utf8'): Promise<Buffer | string> {
  const handle = await openRegularFile(path);
  try {
    return encoding === undefined ? await handle.readFile() : await handle.readFile(encoding);
  } finally {
    await handle.close();
  }
}

/** readRegularFile, synchronously. */
export function readRegularFileSync(path: string, encoding: 'utf8'): string {
  const fd = openRegularFileSync(path);
  try {
    return readFileSync(fd, encoding);
  } finally {
    closeSync(fd);
  }
}
