/**
 * What `export --json` prints on stdout: one document, the export's result per project (docs/cli.md, "export --json").
 * Built only from what the human output says too: the YAML (secret fields are references, never values: Ops Manager
 * redacts them and the export never writes a redacted value), keys and ids, reasons and warnings that name members and
 * paths, never values. A failure prints the failure document of every `--json` command instead (json-failure.ts).
 */
import type { ProjectExport } from '../../core/export/export-run.ts';
import { renderJson } from '../../core/render/json.ts';

/** The format of the document; raised when a field changes meaning or goes away. */
export const EXPORT_FORMAT_VERSION = 1;

/** One project of the document. */
export interface ExportedProjectDocument {
  projectId: string;
  /** With --out: the file written. */
  file?: string;
  /** Without --out: the Project document as YAML (what stdout carries without --json). */
  yaml?: string;
  /** The alert configs exported: their key in the YAML and their Ops Manager id, in the YAML's order. */
  exported: { key: string; id: string }[];
  /** The alert configs left out (they stay in Ops Manager, unmanaged), by key. */
  skipped: { id: string; key: string; reason: string }[];
  /** The secret references the YAML holds, in order: the secrets to create before `plan` (names only). */
  secretRefs: string[];
  /** What else was left out or should be known (a singleton the key may not read, members this version does not model). */
  warnings: string[];
}

/** The document of a successful export. */
export interface ExportDocument {
  formatVersion: number;
  ok: true;
  projects: ExportedProjectDocument[];
}

/**
 * The document for `exports`; `readWarnings[i]` are the warnings met while reading project i, `written[i]` the file it
 * was written to (undefined: no --out, the YAML is in the document).
 */
export function exportDocument(
  exports: readonly ProjectExport[],
  readWarnings: readonly (readonly string[])[],
  written: readonly string[] | undefined,
): ExportDocument {
  return {
    formatVersion: EXPORT_FORMAT_VERSION,
    ok: true,
    projects: exports.map((e, i) => ({
      projectId: e.projectId,
      ...(written === undefined ? { yaml: e.text } : { file: written[i] as string }),
      exported: e.configs.map(({ key, id }) => ({ key, id })),
      skipped: e.skipped.map(({ id, key, reason }) => ({ id, key, reason })),
      secretRefs: [...e.secretRefs],
      warnings: [...(readWarnings[i] ?? []), ...e.warnings],
    })),
  };
}

/** The document as stable JSON (keys in the order the other `--json` outputs use). */
export function renderExportJson(doc: ExportDocument): string {
  return renderJson(doc);
}
