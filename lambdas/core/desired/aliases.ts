/**
 * Aliases that name no anchor before them (`*notfy` for `&notify`, an alias above its anchor, or one whose anchor is
 * in another document of the file): yaml reports none of these while parsing, only when the document is turned into
 * values, and then without a position.
 */
import { type Document, isAlias, isNode, type LineCounter, visit } from 'yaml';
import { printable } from '../printable.ts';
import { suggestion } from './did-you-mean.ts';
import { positionAt } from './locate.ts';
import type { ValidationIssue } from './types.ts';

/** An issue, at the alias, for each alias of `doc` that no earlier anchor of the same document defines. */
export function unresolvedAliases(
  file: string,
  doc: Document.Parsed,
  counter: LineCounter,
  inFileOfSeveral: boolean,
): ValidationIssue[] {
  // One walk in document order: an alias resolves to an anchor written before it (YAML 1.2, 3.2.2.2), so the anchors
  // seen so far are exactly those it may name. Where every anchor is written only makes a better message.
  const seen = new Set<string>();
  const anchors = new Map<string, number>();
  const pending: Array<{ name: string; offset: number; before: string[] }> = [];
  visit(doc, (_key, node) => {
    if (!isNode(node)) return;
    if (isAlias(node)) {
      if (!seen.has(node.source)) pending.push({ name: node.source, offset: node.range?.[0] ?? 0, before: [...seen] });
      return;
    }
    if (node.anchor === undefined) return;
    seen.add(node.anchor);
    if (!anchors.has(node.anchor)) anchors.set(node.anchor, node.range?.[0] ?? 0);
  });
  return pending.map(({ name, offset, before }) => {
    const alias = `"*${printable(name)}"`;
    const anchorAt = anchors.get(name);
    const at = positionAt(counter, offset);
    if (anchorAt !== undefined) {
      const { line } = positionAt(counter, anchorAt);
      const message = `alias ${alias} is used before its anchor "&${printable(name)}" (line ${line}): an anchor must come before every alias of it`;
      return { file, ...at, path: '', message, found: `*${name}` };
    }
    const near = suggestion(name, before);
    const across = inFileOfSeveral ? ' (anchors do not carry across "---")' : '';
    const message = `unknown alias ${alias}: no anchor "&${printable(name)}" comes before it in this document${across}${near.text.replace(/"([^"]+)"/g, '"*$1"')}`;
    return {
      file,
      ...at,
      path: '',
      message,
      found: `*${name}`,
      ...(near.hint === undefined ? {} : { hint: near.hint.replace(/"([^"]+)"/g, '"*$1"') }),
    };
  });
}
