/**
 * `opsman-gitops export`: the brownfield on-ramp (Terraform's `import -generate-config-out`). Reads each --project's
 * alert configs and singletons and writes Project YAML that `validate` accepts and that `plan` adopts config by config.
 * Read-only towards Ops Manager. Nothing is written unless every project was read and exported: to stdout, or to one
 * new file per project under --out (an existing file, or a project a file there already declares, is refused before
 * any request is made; the files are written all or none: export-write.ts). `--json` prints the result as one document
 * (export-json.ts); Ctrl-C stops it with nothing printed or left behind (export-interrupt.ts).
 */
import { lstat, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { errorCode, errorMessage } from '../../core/concurrency.ts';
import { readProjectForExport } from '../../core/export/export-read.ts';
import { exportProject, type ProjectExport } from '../../core/export/export-run.ts';
import { printable } from '../../core/printable.ts';
import { type CommandContext, openApiClient } from '../context.ts';
import { CliError, EXIT, UsageError } from '../errors.ts';
import { EXPORT_READING_NOTICES, EXPORT_WRITING_NOTICES, exportReadInterrupted } from '../export-interrupt.ts';
import { type InterruptNotices, interruptible } from '../interruptible.ts';
import type { ApiClient } from '../wiring.ts';
import { declaredIn } from './export-declared.ts';
import { exportDocument, renderExportJson } from './export-json.ts';
import { exportFileName, writeFiles } from './export-write.ts';

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

/** The summary on stderr: per project what was exported and skipped, then the secrets to create (names only). */
function summary(exports: readonly ProjectExport[], written: readonly string[] | undefined): string[] {
  const lines: string[] = [];
  exports.forEach((e, i) => {
    const skipped = e.skipped.length === 0 ? '' : `, ${e.skipped.length} skipped`;
    const where = written === undefined ? '' : ` -> ${written[i]}`;
    lines.push(`Exported project ${e.projectId}: ${e.configs.length} alert config(s)${skipped}${where}`);
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

/** The exports read, and the warnings met while reading each project (in the same order). */
interface ExportsRead {
  exports: ProjectExport[];
  readWarnings: string[][];
}

/**
 * Reads and exports every project through `client`'s view stopped by `signal`; throws EXPORT_FAILED naming the project
 * that failed, or INTERRUPTED when the signal stopped the reads.
 */
async function readAll(ctx: CommandContext, client: ApiClient, signal: AbortSignal): Promise<ExportsRead> {
  const { options, io } = ctx;
  const api = client.withSignal(signal);
  const exports: ProjectExport[] = [];
  const readWarnings: string[][] = [];
  for (const projectId of options.projects) {
    if (signal.aborted) throw exportReadInterrupted(signal);
    const warnings: string[] = [];
    const warn = (message: string) => {
      warnings.push(message);
      io.stderr.write(`warning: ${printable(`project ${projectId}: ${message}`)}\n`);
    };
    try {
      const read = await readProjectForExport(api, projectId, warn);
      exports.push(
        await exportProject(read, { ...(options.orgId === undefined ? {} : { orgId: options.orgId }), api }),
      );
      readWarnings.push(warnings);
    } catch (error) {
      // Reads the signal stopped fail as aborted; the truth is that the export was stopped.
      if (signal.aborted) throw exportReadInterrupted(signal);
      const code = errorCode(error);
      const message = `${errorMessage(error)}${code === undefined || errorMessage(error).includes(code) ? '' : ` (${code})`}`;
      throw new CliError(
        'EXPORT_FAILED',
        `export of project ${projectId} failed: ${message}; nothing was written`,
        EXIT.error,
        {
          cause: error,
        },
      );
    }
  }
  return { exports, readWarnings };
}

/**
 * Runs export; resolves to the exit code (0 also when some configs were skipped: they are listed as warnings). The
 * first Ctrl-C (SIGTERM, SIGHUP, a closed output) abandons the reads in flight, or removes the --out files written so
 * far, and ends the run with INTERRUPTED (exit 130) having printed and written nothing (export-interrupt.ts).
 */
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
  let notices: InterruptNotices = EXPORT_READING_NOTICES;
  const { exports, readWarnings, written } = await interruptible(
    io,
    () => notices,
    async (signal) => {
      let read: ExportsRead;
      try {
        read = await readAll(ctx, client, signal);
      } finally {
        await client.close();
      }
      if (signal.aborted) throw exportReadInterrupted(signal);
      if (options.out === undefined) return { ...read, written: undefined };
      notices = EXPORT_WRITING_NOTICES;
      return { ...read, written: await writeFiles(options.out, read.exports, { signal }) };
    },
  );
  for (const e of exports)
    for (const w of e.warnings) io.stderr.write(`warning: ${printable(`project ${e.projectId}: ${w}`)}\n`);
  if (options.json) io.stdout.write(renderExportJson(exportDocument(exports, readWarnings, written)));
  else if (written === undefined) io.stdout.write(exports.map((e) => e.text).join('---\n'));
  for (const line of summary(exports, written)) io.stderr.write(`${printable(line)}\n`);
  return EXIT.ok;
}
