/**
 * File-system failures of the local stores as one precise sentence: the operation, the path, and the cause in words
 * (shared/fs-cause.ts: `/srv/opsman is a file, not a directory`, `no space left on the device`), ending with the
 * system's code.
 */
import { describeFsCause, type FsAccess } from '../../../shared/fs-cause.ts';
import { ReconcileError } from '../../core/errors.ts';

export { describeFsCause, type FsAccess } from '../../../shared/fs-cause.ts';

/** A local store could not read or write its files. */
export class FsStoreError extends ReconcileError {
  override name = 'FsStoreError';
  readonly path: string;
  /** The system's error code (ENOTDIR, EACCES, ENOSPC, ...), when a system call failed. */
  readonly errno: string | undefined;

  constructor(message: string, path: string, options?: { cause?: unknown }) {
    super('FS_STORE_ERROR', message, options);
    this.path = path;
    const code = (options?.cause as NodeJS.ErrnoException | undefined)?.code;
    this.errno = typeof code === 'string' ? code : undefined;
  }
}

/**
 * `cannot <operation> <path>: <cause> (<CODE>)` as an FsStoreError; a ReconcileError (already precise: a conflict, a
 * held lease, a store error) is returned as it is.
 */
export function fsFailure(operation: string, path: string, error: unknown, access: FsAccess = 'write'): ReconcileError {
  if (error instanceof ReconcileError) return error;
  return new FsStoreError(`cannot ${operation} ${path}: ${describeFsCause(path, error, access)}`, path, {
    cause: error,
  });
}
