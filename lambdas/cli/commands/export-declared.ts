/**
 * Where the --out directory of `export` already declares a project being exported. Writing another Project document
 * for one of them would leave the user with a desired state that `validate` refuses (a project declared twice), so
 * export refuses first, before any request, naming the files. Only the --out tree is read: a declaration elsewhere in
 * a larger desired state is `validate`'s to report.
 */
import { stat } from 'node:fs/promises';
import { FsDesiredStateSource } from '../../adapters/local/desired-source-fs.ts';
import { decodeText } from '../../core/desired/decode-text.ts';
import { parseYamlFile } from '../../core/desired/parse.ts';
import { DEFAULT_LOAD_OPTIONS } from '../../core/desired/types.ts';

/** The `metadata.projectId` of a Project document, when it is one. */
function declaredProjectId(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const doc = value as { kind?: unknown; metadata?: { projectId?: unknown } | null };
  if (doc.kind !== 'Project' || typeof doc.metadata?.projectId !== 'string') return undefined;
  return doc.metadata.projectId.toLowerCase();
}

/**
 * For each of `projectIds` that a YAML file under `dir` declares, the files (relative to `dir`) that declare it. A
 * directory that does not exist declares nothing; a file that cannot be read or parsed is passed over (`validate`
 * reports it anyway).
 */
export async function declaredIn(dir: string, projectIds: readonly string[]): Promise<Map<string, string[]>> {
  const wanted = new Set(projectIds);
  const found = new Map<string, string[]>();
  if (!(await stat(dir).catch(() => null))?.isDirectory()) return found;
  const source = new FsDesiredStateSource(dir);
  for (const file of await source.list()) {
    if (file.problem !== undefined || file.size > DEFAULT_LOAD_OPTIONS.maxFileBytes) continue;
    const bytes = await source.read(file.path, { maxBytes: DEFAULT_LOAD_OPTIONS.maxFileBytes }).catch(() => undefined);
    if (bytes === undefined) continue;
    const decoded = decodeText(file.path, bytes.bytes);
    if (!('text' in decoded)) continue;
    for (const doc of parseYamlFile(file.path, decoded.text, DEFAULT_LOAD_OPTIONS).documents) {
      const id = declaredProjectId(doc.value);
      if (id === undefined || !wanted.has(id)) continue;
      found.set(id, [...(found.get(id) ?? []), file.path]);
    }
  }
  return found;
}
