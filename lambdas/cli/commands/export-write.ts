/**
 * The files of `export --out`, all or none. Each project's YAML is first written whole to a hidden temp file in --out
 * (`.<12 hex>-<n>.tmp`, fsynced), then committed: linked to its name (a link never replaces, so a file that appeared
 * since the check is refused, as 'wx' refuses it), the temp files removed and the directory fsynced. A file therefore
 * never shows under its name half-written. A failed step, or an interrupt (the run's signal) seen at any step before
 * the last, removes what this call made: the temp files, the files committed so far (new files it made moments
 * before) and the --out directories it created. While it runs, an exit of the process (a second Ctrl-C ends it at
 * once) removes them too, synchronously. Only a kill the process cannot see (SIGKILL, a power cut) can leave a hidden
 * temp file or part of the files.
 */
import { rmdirSync, unlinkSync } from 'node:fs';
import { lstat, mkdir, rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { linkFile, tempPathIn, unlinkQuietly, writeSyncedTemp } from '../../adapters/local/atomic-file.ts';
import { syncDirectory } from '../../adapters/local/dir-sync.ts';
import { errorCode, errorMessage } from '../../core/concurrency.ts';
import { exportedProjectName } from '../../core/export/export-project.ts';
import type { ProjectExport } from '../../core/export/export-run.ts';
import { CliError, EXIT } from '../errors.ts';
import { exportWriteInterrupted } from '../export-interrupt.ts';

/** The file a project is written to under --out. */
export function exportFileName(projectId: string): string {
  return `${exportedProjectName(projectId)}.yaml`;
}

/** Mode of the exported files before the umask, as a plain `writeFile` makes them (the YAML holds no secret). */
const FILE_MODE = 0o666;

/** Options of writeFiles. */
export interface WriteFilesOptions {
  /** Once aborted, the next step stops: what was made is removed and the call rejects with code INTERRUPTED. */
  signal?: AbortSignal;
  /**
   * Called after each step (a temp file written, a file committed) with the path it made. For tests that stop a run
   * at a chosen step; a rejection is a failed step.
   */
  onStep?: (step: { stage: 'staged' | 'committed'; path: string }) => void | Promise<void>;
}

/** What a call has made so far, to remove again. */
interface Made {
  temps: string[];
  committed: string[];
  /** The outermost directory mkdir created (undefined: --out was there). */
  createdDir: string | undefined;
}

/** The directories to remove, innermost first: `dir` up to the one mkdir created. */
function createdDirs(dir: string, created: string | undefined): string[] {
  if (created === undefined) return [];
  const dirs = [dir];
  for (let at = dir; at !== created && dirname(at) !== at; ) {
    at = dirname(at);
    dirs.push(at);
  }
  return dirs;
}

/** Removes what was made; returns the files that could not be removed (one already gone is not left). */
async function removeMade(dir: string, made: Made): Promise<string[]> {
  const left: string[] = [];
  for (const path of [...made.committed, ...made.temps]) {
    await unlinkQuietly(path);
    // unlinkQuietly ignores every error; a file still there is one that could not be removed.
    if (await stillThere(path)) left.push(path);
  }
  for (const d of createdDirs(dir, made.createdDir)) {
    if (
      (await rmdir(d).then(
        () => true,
        () => false,
      )) === false
    )
      break;
  }
  return left;
}

/** True when `path` exists (a link to nothing included). */
function stillThere(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** The same, synchronously: run by the process's 'exit' event, where nothing asynchronous runs any more. */
function removeMadeSync(dir: string, made: Made): void {
  for (const path of [...made.committed, ...made.temps]) {
    try {
      unlinkSync(path);
    } catch {
      // Gone already, or not ours to remove: nothing else can be done while the process exits.
    }
  }
  for (const d of createdDirs(dir, made.createdDir)) {
    try {
      rmdirSync(d);
    } catch {
      break;
    }
  }
}

/**
 * Writes each export to its own new file under `dir`, all or none (see the module comment); resolves to the paths
 * written, in the order of `exports`. Rejects with CLI_WRITE_FAILED naming the file and the cause, or INTERRUPTED.
 */
export async function writeFiles(
  dir: string,
  exports: readonly ProjectExport[],
  options: WriteFilesOptions = {},
): Promise<string[]> {
  const { signal, onStep } = options;
  const made: Made = { temps: [], committed: [], createdDir: undefined };
  const onExit = () => removeMadeSync(dir, made);
  process.on('exit', onExit);
  let path = dir;
  try {
    try {
      made.createdDir = await mkdir(dir, { recursive: true });
    } catch (error) {
      throw new CliError('CLI_WRITE_FAILED', `cannot create --out directory ${dir}: ${errorMessage(error)}`);
    }
    const stopIfAsked = async () => {
      if (signal?.aborted) throw exportWriteInterrupted(signal, await removeMade(dir, made));
    };
    const failed = async (error: unknown) => {
      if (error instanceof CliError) return error;
      const left = await removeMade(dir, made);
      const done = left.length === 0 ? 'nothing was written' : `these could not be removed again: ${left.join(', ')}`;
      const why = errorCode(error) === 'EEXIST' ? 'it already exists (export does not overwrite)' : errorMessage(error);
      return new CliError('CLI_WRITE_FAILED', `cannot write ${path}: ${why}; ${done}`, EXIT.error, { cause: error });
    };
    try {
      await stopIfAsked();
      const temps: string[] = [];
      for (const exported of exports) {
        path = join(dir, exportFileName(exported.projectId));
        const temp = tempPathIn(dir);
        // Recorded before it exists: the exit hook removes it even when the process ends while it is written.
        made.temps.push(temp);
        await writeSyncedTemp(temp, exported.text, FILE_MODE);
        temps.push(temp);
        await onStep?.({ stage: 'staged', path: temp });
        await stopIfAsked();
      }
      const written: string[] = [];
      for (const [i, exported] of exports.entries()) {
        path = join(dir, exportFileName(exported.projectId));
        await linkFile(temps[i] as string, path);
        made.committed.push(path);
        written.push(path);
        await onStep?.({ stage: 'committed', path });
        await stopIfAsked();
      }
      for (const temp of temps) await unlinkQuietly(temp);
      made.temps = [];
      await syncDirectory(dir);
      // The last check: an interrupt seen here still means none. After it, nothing asynchronous runs before the caller
      // stops listening, so an interrupt cannot land between a "done" and the files.
      await stopIfAsked();
      return written;
    } catch (error) {
      throw await failed(error);
    }
  } finally {
    process.off('exit', onExit);
  }
}
