/**
 * `opsman-gitops export`: the brownfield on-ramp (Terraform's `import -generate-config-out`). Reads each --project's
 * alert configs and singletons and writes Project YAML that `validate` accepts and that `plan` adopts config by config.
 * Read-only towards Ops Manager. Nothing is written unless every project was read and exported: to stdout, or to one
 * new file per project under --out (an existing file, or a project a file there already declares, is refused before
 * any request is made; a failed write removes the files written before it).
 */
import { lstat, mkdir, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errorCode, errorMessage } from '../../core/concurrency.ts';
import { exportedProjectName } from '../../core/export/export-project.ts';
import { readProjectForExport } from '../../core/export/export-read.ts';
import { exportProject, type ProjectExport } from '../../core/export/export-run.ts';
import { printable } from '../../core/printable.ts';
import { type CommandContext, openApiClient } from '../context.ts';
import { CliError, EXIT, UsageError } from '../errors.ts';
import { declaredIn } from './export-declared.ts';

/** The file a project is written to under --out. */
export function exportFileName(projectId: string): string {
  return `${exportedProjectName(projectId)}.yaml`;
}

/**
 * Refuses --out files that exist (before any request, so nothing is read for an export that cannot be written). lstat,
 * not stat: a symbolic link whose target is missing is there too, and 'wx' would refuse it only after reading.
 */
async function refuseExisting(paths: readonly string[]): Promise<void> {
  const existing: string[] = [];
  for (const path of paths) if ((await lstat(path).catch(() => null)) !== null) existing.push(path);
  if (existing.length > 0) {
    throw new CliError(
      'CLI_FILE_EXISTS',
      `export does not overwrite: ${existing.join(', ')} already exist${existing.length === 1 ? 's' : ''}; move ${existing.length === 1 ? 'it' : 'them'} away or choose another --out; nothing was read or written`,
    );
  }
}

/**
 * Refuses an --out that is a file (not a directory, nor a link to one), and a project that a YAML file under --out
 * already declares: the desired state would then declare it twice, which `validate` refuses. Checked before any
 * request, like an existing file.
 */
async function refuseDeclared(dir: string, projectIds: readonly string[]): Promise<void> {
  const info = await lstat(dir).catch(() => null);
  if (info !== null && !info.isDirectory() && !(await stat(dir).catch(() => null))?.isDirectory()) {
    throw new CliError(
      'CLI_FILE_EXISTS',
      `--out ${dir} is there and is not a directory; choose a directory (it is created when missing); nothing was read or written`,
    );
  }
  const declared = await declaredIn(dir, projectIds);
  if (declared.size === 0) return;
  const where = [...declared].map(([id, files]) => `project ${id} in ${files.map((f) => join(dir, f)).join(', ')}`);
  throw new CliError(
    'CLI_PROJECT_DECLARED',
    `export would declare a project a second time, which validate refuses: --out already declares ${where.join('; ')}; export to another directory and merge by hand, or remove that declaration first; nothing was read or written`,
  );
}

/** Removes files this run created; returns those that could not be removed (one already gone is not left). */
async function removeWritten(paths: readonly string[]): Promise<string[]> {
  const left: string[] = [];
  for (const path of paths) {
    await unlink(path).catch((error: unknown) => {
      if (errorCode(error) !== 'ENOENT') left.push(path);
    });
  }
  return left;
}

/**
 * Writes each export to its own new file ('wx': a file that appeared since the check is refused, not replaced). All or
 * nothing: when one write fails, the files already written by this call are removed again (they are new files, made by
 * it moments before), so a failed export never leaves part of a desired state behind.
 */
export async function writeFiles(dir: string, exports: readonly ProjectExport[]): Promise<string[]> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw new CliError('CLI_WRITE_FAILED', `cannot create --out directory ${dir}: ${errorMessage(error)}`);
  }
  const written: string[] = [];
  for (const exported of exports) {
    const path = join(dir, exportFileName(exported.projectId));
    try {
      await writeFile(path, exported.text, { flag: 'wx' });
    } catch (error) {
      // 'wx' fails with EEXIST before creating anything; any other failure came after the path was free, so what may
      // be there now (a partial file) is this write's own.
      if (errorCode(error) !== 'EEXIST') written.push(path);
      const left = await removeWritten(written);
      const done = left.length === 0 ? 'nothing was written' : `these could not be removed again: ${left.join(', ')}`;
      const why = errorCode(error) === 'EEXIST' ? 'it already exists (export does not overwrite)' : errorMessage(error);
      throw new CliError('CLI_WRITE_FAILED', `cannot write ${path}: ${why}; ${done}`, EXIT.error, { cause: error });
    }
    written.push(path);
  }
  return written;
}

/** The summary on stderr: per project what was exported and skipped, then the secrets to create (names only). */
function summary(exports: readonly ProjectExport[], written: readonly string[] | undefined): string[] {
  const lines: string[] = [];
  exports.forEach((e, i) => {
    const skipped = e.skipped.length === 0 ? '' : `, ${e.skipped.length} skipped`;
    const where = written === undefined ? '' : ` -> ${written[i]}`;
    lines.push(`Exported project ${e.projectId}: ${e.exported} alert config(s)${skipped}${where}`);
    for (const s of e.skipped) lines.push(`  skipped alert config ${s.id} (would be key "${s.key}"): ${s.reason}`);
  });
  const refs = exports.flatMap((e) => e.secretRefs);
  if (refs.length > 0) {
    lines.push(
      `${refs.length} secret reference(s) to create before plan (Ops Manager never shows secret values; put the real ones in --secrets-file or OPSMAN_SECRET_*):`,
      ...refs.map((ref) => `  ${ref}`),
    );
  }
  const skipped = exports.reduce((n, e) => n + e.skipped.length, 0);
  if (skipped > 0) {
    lines.push(`${skipped} alert config(s) not exported (listed above): they stay in Ops Manager, unmanaged`);
  }
  return lines;
}

/** Runs export; resolves to the exit code (0 also when some configs were skipped: they are listed as warnings). */
export async function runExport(ctx: CommandContext): Promise<number> {
  const { options, io } = ctx;
  if (options.projects.length === 0) {
    throw new UsageError('export needs at least one --project ID (the 24-hex id of an Ops Manager project)', 'export');
  }
  const paths =
    options.out === undefined
      ? undefined
      : options.projects.map((id) => join(options.out as string, exportFileName(id)));
  if (paths !== undefined) {
    await refuseExisting(paths);
    await refuseDeclared(options.out as string, options.projects);
  }
  const { client } = await openApiClient(ctx, 'export');
  const warn = (message: string) => io.stderr.write(`warning: ${printable(message)}\n`);
  const exports: ProjectExport[] = [];
  try {
    for (const projectId of options.projects) {
      try {
        const read = await readProjectForExport(client, projectId, warn);
        exports.push(
          await exportProject(read, { ...(options.orgId === undefined ? {} : { orgId: options.orgId }), api: client }),
        );
      } catch (error) {
        const code = errorCode(error);
        const message = `${errorMessage(error)}${code === undefined || errorMessage(error).includes(code) ? '' : ` (${code})`}`;
        throw new CliError(
          'EXPORT_FAILED',
          `export of project ${projectId} failed: ${message}; nothing was written`,
          EXIT.error,
          { cause: error },
        );
      }
    }
  } finally {
    await client.close();
  }
  for (const e of exports) for (const w of e.warnings) warn(`project ${e.projectId}: ${w}`);
  let written: string[] | undefined;
  if (options.out === undefined) io.stdout.write(exports.map((e) => e.text).join('---\n'));
  else written = await writeFiles(options.out, exports);
  for (const line of summary(exports, written)) io.stderr.write(`${printable(line)}\n`);
  return EXIT.ok;
}
