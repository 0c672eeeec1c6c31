/**
 * The template of an alert-config change: a template edit changes every project listing the template, and each of
 * those changes says where it came from (`Change.template`, shown as `from template baseline (templates/b.yaml:9)`).
 */
import type { Change, ChangeTemplate, DesiredAlertConfig } from './model.ts';

/**
 * Sets `template` on each change of a declared config the loader merged in from a template. A delete or a release is
 * of a key no longer declared, so it has none.
 */
export function markTemplates(changes: readonly Change[], configs: readonly DesiredAlertConfig[]): void {
  const fromTemplate = new Map<string, ChangeTemplate>();
  for (const c of configs) {
    if (c.template !== undefined)
      fromTemplate.set(c.key, { name: c.template, file: c.source.file, line: c.source.line });
  }
  if (fromTemplate.size === 0) return;
  for (const change of changes) {
    const template = fromTemplate.get(change.key);
    if (template !== undefined && change.action !== 'delete' && change.action !== 'release') change.template = template;
  }
}
