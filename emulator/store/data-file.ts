/**
 * Durability: the whole state is written atomically (temp file, fsync, rename, directory fsync) before a mutation is
 * answered. Concurrent mutations share one write (group commit). A data file that cannot be read is refused, never
 * overwritten.
 */
import { randomBytes } from 'node:crypto';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describeFsCause } from '../../shared/fs-cause.ts';
import { whereJsonBroke } from '../../shared/json-position.ts';
import { DataFileError, EmulatorError, SeedError } from '../errors.ts';
import { buildState } from './seed-build.ts';
import { toSeedDocument } from './snapshot.ts';
import type { State } from './state.ts';

/** The `format` marker of a data file. */
export const DATA_FILE_FORMAT = 'opsman-gitops-emulator-data';

/**
 * Reads a data file: null when it does not exist; throws DataFileError when it exists but is unusable, and an
 * EmulatorError (DATA_FILE_PATH_INVALID) when no file can exist at the path (a part of it is a file).
 */
export async function loadDataFile(file: string): Promise<State | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    // No data file can exist at such a path (a part of it is a file, it is too long, or it names a directory): there is
    // nothing to refuse or to leave untouched, the path itself is wrong.
    if (code === 'ENOTDIR' || code === 'ENAMETOOLONG' || code === 'ELOOP' || code === 'EISDIR') {
      const message = `cannot use data file ${file}: ${describeFsCause(file, err, 'read')}`;
      throw new EmulatorError('DATA_FILE_PATH_INVALID', message, { file }, { cause: err });
    }
    throw new DataFileError(file, `cannot read it: ${describeFsCause(file, err, 'read')}`, { cause: err });
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    // Where, never V8's message: it may quote the text, and the data file holds secrets in clear.
    throw new DataFileError(file, `it is not valid JSON${whereJsonBroke(text, err)}`);
  }
  const record = doc as { format?: unknown; formatVersion?: unknown; state?: unknown } | null;
  if (typeof record !== 'object' || record === null || record.format !== DATA_FILE_FORMAT) {
    throw new DataFileError(file, `it is not an emulator data file (no "format": "${DATA_FILE_FORMAT}")`);
  }
  if (record.formatVersion !== 1)
    throw new DataFileError(file, `unsupported formatVersion ${String(record.formatVersion)}`);
  try {
    return buildState(record.state, file);
  } catch (err) {
    if (err instanceof SeedError)
      throw new DataFileError(file, `its state is invalid: ${err.issues.slice(0, 5).join('; ')}`);
    throw err;
  }
}

/** Serialises the state as the data file's text. */
export function dataFileText(state: State): string {
  return `${JSON.stringify({ format: DATA_FILE_FORMAT, formatVersion: 1, savedAt: new Date().toISOString(), state: toSeedDocument(state) })}\n`;
}

/** Writes `text` to `file` atomically and durably. */
export async function writeAtomic(file: string, text: string): Promise<void> {
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, file);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
  const dir = await open(dirname(file), 'r').catch(() => null);
  if (dir)
    await dir
      .sync()
      .catch(() => undefined)
      .finally(() => dir.close());
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

function deferred(): Deferred {
  let resolve: () => void = () => undefined;
  let reject: (err: unknown) => void = () => undefined;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Saves the state after mutations; `save()` resolves once a snapshot taken after the call is on disk. */
export class DataFileWriter {
  private writing = false;
  private pending: Deferred | null = null;

  constructor(
    private readonly file: string,
    private readonly state: () => State,
  ) {}

  /** Schedules a write and waits for it. */
  save(): Promise<void> {
    if (!this.pending) this.pending = deferred();
    const { promise } = this.pending;
    if (!this.writing) void this.drain();
    return promise;
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.pending) {
      const batch = this.pending;
      this.pending = null;
      try {
        await writeAtomic(this.file, dataFileText(this.state()));
        batch.resolve();
      } catch (err) {
        batch.reject(err);
      }
    }
    this.writing = false;
  }
}
