/**
 * Template merge: a project's alert configs are its own entries plus those of each template it lists, by alert key.
 * The project's own entry wins over a template's; two templates giving the same key is a conflict.
 */
import { asArray, asRecord, asString } from './issue.ts';
import type { PathSegment } from './locate.ts';
import type { ParsedDocument } from './parse.ts';

/** One alert config of a project after merging, with where it is written. */
export interface MergedEntry {
  key: string;
  value: Record<string, unknown>;
  document: ParsedDocument;
  path: PathSegment[];
  /** Name of the template it came from. */
  template?: string;
}

/** A key given by two templates a project lists. */
export interface MergeConflict {
  key: string;
  first: MergedEntry;
  second: MergedEntry;
}

/** The alert configs written in a document's `spec.alertConfigs`, with their paths. */
export function ownEntries(document: ParsedDocument, template?: string): MergedEntry[] {
  const spec = asRecord(asRecord(document.value)?.spec);
  const entries: MergedEntry[] = [];
  asArray(spec?.alertConfigs).forEach((raw, i) => {
    const value = asRecord(raw);
    const key = asString(value?.key);
    if (value && key !== undefined) {
      entries.push({ key, value, document, path: ['spec', 'alertConfigs', i], ...(template ? { template } : {}) });
    }
  });
  return entries;
}

/** Names a template document declares. */
export function templateName(document: ParsedDocument): string | undefined {
  return asString(asRecord(asRecord(document.value)?.metadata)?.name);
}

/**
 * Merges a project's own entries with its templates' (unknown template names are skipped: reported elsewhere).
 * Own entries keep their order and come first; template entries follow in template order.
 */
export function mergeProject(
  project: ParsedDocument,
  templates: ReadonlyMap<string, ParsedDocument>,
): { entries: MergedEntry[]; conflicts: MergeConflict[] } {
  const own = ownEntries(project);
  const byKey = new Map<string, MergedEntry>();
  for (const entry of own) if (!byKey.has(entry.key)) byKey.set(entry.key, entry);
  const ownKeys = new Set(byKey.keys());
  const entries = [...own];
  const conflicts: MergeConflict[] = [];
  const names = asArray(asRecord(asRecord(project.value)?.spec)?.alertTemplates);
  for (const name of new Set(names.filter((n): n is string => typeof n === 'string'))) {
    const template = templates.get(name);
    if (!template) continue;
    for (const entry of ownEntries(template, name)) {
      if (ownKeys.has(entry.key)) continue;
      const first = byKey.get(entry.key);
      if (first) {
        if (first.template !== name) conflicts.push({ key: entry.key, first, second: entry });
        continue;
      }
      byKey.set(entry.key, entry);
      entries.push(entry);
    }
  }
  return { entries, conflicts };
}
