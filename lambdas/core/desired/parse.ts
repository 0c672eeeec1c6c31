/**
 * Bytes of one file to YAML documents, refusing hostile input with issues: oversized and binary files, invalid UTF-8,
 * syntax errors, duplicate keys, explicit tags (custom types), alias bombs and empty documents.
 *
 * Memory: documents keep their plain values and a few positions, not their syntax trees (see lazy-document.ts).
 * Speed: plain block YAML takes a fast path (simple-yaml.ts) with the same values and positions.
 */
import { isNode, LineCounter, visit } from 'yaml';
import { knownPositions, LazyDocument, LazyTrees, parseTrees } from './lazy-document.ts';
import { type LocatedDocument, positionAt } from './locate.ts';
import { findMissingSeparators } from './missing-separator.ts';
import { findExcessiveNesting } from './nesting.ts';
import { parseSimpleYaml } from './simple-yaml.ts';
import type { LoadOptions, ValidationIssue } from './types.ts';

/** One document of a file that parsed cleanly, with its plain value. */
export interface ParsedDocument extends LocatedDocument {
  /** 1-based index of the document within its file. */
  index: number;
  value: unknown;
}

/** Bytes to text: refuses binary content and invalid UTF-8 (a leading BOM is dropped). */
export function decodeText(file: string, bytes: Uint8Array): { text: string } | { issue: ValidationIssue } {
  const at = { file, line: 1, column: 1, path: '' };
  if (bytes.includes(0)) {
    return {
      issue: { ...at, message: 'binary file (it contains NUL bytes); expected UTF-8 YAML text', found: 'binary' },
    };
  }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return { issue: { ...at, message: 'file is not valid UTF-8; save it as UTF-8 text', found: 'invalid UTF-8' } };
  }
}

function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '');
}

/** Parses every document of one file. Documents with any issue are left out of `documents`. */
export function parseYamlFile(
  file: string,
  text: string,
  options: Pick<LoadOptions, 'maxAliasCount'>,
): { documents: ParsedDocument[]; issues: ValidationIssue[] } {
  // Plain block YAML (every generated or hand-written file without flow collections, anchors and the like) is read
  // directly (it is never deep enough for the nesting guard); anything else, and anything wrong, goes through the
  // guard and yaml below, which find every issue.
  const simple = parseSimpleYaml(text);
  if (simple !== undefined) {
    const trees = new LazyTrees(text);
    const documents = simple.map((d, i) => new LazyDocument(file, i + 1, d.value, d.positions, trees));
    return { documents, issues: [] };
  }
  const deep = findExcessiveNesting(text);
  if (deep) {
    const lineCounter = new LineCounter();
    lineCounter.addNewLine(0);
    for (const match of text.matchAll(/\n/g)) lineCounter.addNewLine((match.index ?? 0) + 1);
    const at = positionAt(lineCounter, deep.offset);
    const message = `nesting too deep (${deep.reason}): refusing a document built to exhaust the parser`;
    return { documents: [], issues: [{ file, ...at, path: '', message }] };
  }
  const trees = new LazyTrees(text);
  const { docs: all, lineCounter: counter } = parseTrees(text);
  const issues: ValidationIssue[] = [];
  const documents: ParsedDocument[] = [];
  // Every explicit tag is written with "!" (`!foo`, `!!str`, `!<uri>`, `!h!x`): without one in the text, no node can
  // carry a tag, and the walk over every node is skipped.
  const mayHaveTags = text.includes('!');
  if (all.length === 0) {
    issues.push({
      file,
      line: 1,
      column: 1,
      path: '',
      message: 'file holds no YAML documents (only comments or whitespace); add a document or remove the file',
      expected: 'a document',
    });
  }
  all.forEach((doc, i) => {
    const before = issues.length;
    const index = i + 1;
    // Only a document with duplicate keys can be two documents missing their `---`.
    const separators = doc.errors.some((error) => error.code === 'DUPLICATE_KEY')
      ? findMissingSeparators(file, doc, counter)
      : undefined;
    if (separators !== undefined) issues.push(...separators.issues);
    for (const error of doc.errors) {
      if (error.code === 'DUPLICATE_KEY' && separators?.explained.has(error.pos[0])) continue;
      const at = positionAt(counter, error.pos[0]);
      const message =
        error.code === 'DUPLICATE_KEY'
          ? `duplicate key "${keyText(text, error.pos[0])}": each key may appear once in a mapping`
          : `YAML syntax error: ${firstLine(error.message)}`;
      issues.push({ file, ...at, path: '', message });
    }
    if (issues.length > before) return;
    if (mayHaveTags) {
      visit(doc, (_key, node) => {
        if (isNode(node) && node.tag !== undefined && node.range) {
          const at = positionAt(counter, node.range[0]);
          issues.push({
            file,
            ...at,
            path: '',
            message: `YAML tags are not allowed (found "${tagLabel(node.tag)}"); write plain values`,
          });
        }
      });
    }
    if (issues.length > before) return;
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: options.maxAliasCount });
    } catch {
      const at = positionAt(counter, doc.range[0]);
      issues.push({
        file,
        ...at,
        path: '',
        message: `too many alias expansions (more than ${options.maxAliasCount}): refusing a possible alias bomb`,
      });
      return;
    }
    if (value === null || value === undefined) {
      const at = positionAt(counter, doc.range[0]);
      const message = `document ${index} is empty; remove the extra "---" or give it content`;
      issues.push({ file, ...at, path: '', message, expected: 'a mapping with apiVersion, kind, metadata, spec' });
      return;
    }
    const positions = knownPositions({ file, doc, lineCounter: counter }, value);
    documents.push(new LazyDocument(file, index, value, positions, trees));
  });
  return { documents, issues };
}

function tagLabel(tag: string): string {
  const core = 'tag:yaml.org,2002:';
  return tag.startsWith(core) ? `!!${tag.slice(core.length)}` : tag;
}

function keyText(text: string, offset: number): string {
  const match = /^("[^"\n]*"|'[^'\n]*'|[^:#\n]+?)\s*:/.exec(text.slice(offset, offset + 200));
  return (match?.[1] ?? text.slice(offset, offset + 1)).replace(/^["']|["']$/g, '');
}
