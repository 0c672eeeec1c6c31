/**
 * Bytes of one file to YAML documents, refusing hostile input with issues: oversized and binary files, invalid UTF-8,
 * syntax errors, duplicate keys, explicit tags (custom types), alias bombs and empty documents.
 *
 * Memory: documents keep their plain values and a few positions, not their syntax trees (see lazy-document.ts).
 * Speed: plain block YAML takes a fast path (simple-yaml.ts) with the same values and positions.
 */
import { type Document, isAlias, isCollection, isNode, isScalar, isSeq, LineCounter, visit } from 'yaml';
import { printable } from '../printable.ts';
import { unresolvedAliases } from './aliases.ts';
import { findIndentation } from './indentation.ts';
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
  const wide = wideEncoding(bytes);
  if (wide !== undefined) {
    // Windows PowerShell's `>` and Out-File write UTF-16 with a BOM: say so, rather than "binary" or "not UTF-8".
    const message = `file is ${wide.name} text (it starts with the byte order mark ${wide.bom}); save it as UTF-8`;
    return { issue: { ...at, message, found: wide.name } };
  }
  if (bytes.includes(0)) {
    return {
      issue: { ...at, message: 'binary file (it contains NUL bytes); expected UTF-8 YAML text', found: 'binary' },
    };
  }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return { issue: invalidUtf8Issue(file, bytes) };
  }
}

/** Where the first byte that is not UTF-8 is (a Latin-1 `é` in an address, say), by line and column, and its value. */
function invalidUtf8Issue(file: string, bytes: Uint8Array): ValidationIssue {
  const offset = firstInvalidUtf8(bytes);
  // The valid text before it gives the position, counted as every other column is (UTF-16 units of the line).
  const before = new TextDecoder('utf-8').decode(bytes.subarray(0, offset)).replace(/^\uFEFF/, '');
  const lineStart = before.lastIndexOf('\n') + 1;
  const line = before.slice(0, lineStart).split('\n').length;
  const column = before.length - lineStart + 1;
  const byte = (bytes[offset] ?? 0).toString(16).toUpperCase().padStart(2, '0');
  const message = `file is not valid UTF-8: byte 0x${byte} here is not part of a UTF-8 character (text saved as Latin-1 or Windows-1252?); save it as UTF-8 text`;
  return { file, line, column, path: '', message, found: 'invalid UTF-8' };
}

/** Offset of the first byte of `bytes` that does not start a well-formed UTF-8 sequence (a stray or cut-short one). */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] ?? 0;
    const length =
      lead < 0x80
        ? 1
        : lead >= 0xc2 && lead <= 0xdf
          ? 2
          : lead >= 0xe0 && lead <= 0xef
            ? 3
            : lead >= 0xf0 && lead <= 0xf4
              ? 4
              : 0;
    if (length === 0) return i;
    // The second byte's range excludes overlong forms and surrogates (E0, ED, F0, F4), as the Unicode table 3-7 does.
    const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k];
      if (next === undefined || next < (k === 1 ? low : 0x80) || next > (k === 1 ? high : 0xbf)) return i;
    }
    i += length;
  }
  return bytes.length;
}

/** The UTF-16 or UTF-32 encoding whose byte order mark `bytes` starts with (UTF-32 LE first: it begins as UTF-16 LE's). */
function wideEncoding(bytes: Uint8Array): { name: string; bom: string } | undefined {
  const [a, b, c, d] = bytes;
  if (a === 0xff && b === 0xfe && c === 0 && d === 0) return { name: 'UTF-32', bom: 'FF FE 00 00' };
  if (a === 0 && b === 0 && c === 0xfe && d === 0xff) return { name: 'UTF-32', bom: '00 00 FE FF' };
  if (a === 0xff && b === 0xfe) return { name: 'UTF-16', bom: 'FF FE' };
  if (a === 0xfe && b === 0xff) return { name: 'UTF-16', bom: 'FE FF' };
  return undefined;
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
  const invisible = invisibleBreakage(file, text);
  if (invisible !== undefined) return { documents: [], issues: [invisible] };
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
  all.forEach((parsedDoc, i) => {
    const before = issues.length;
    const index = i + 1;
    // A syntax error may be one wrongly indented line and the cascade it causes: that line is reported once, and the
    // document is read on with it re-indented, so only the errors that remain are reported as YAML gives them.
    const indentation = parsedDoc.errors.some((error) => error.code !== 'DUPLICATE_KEY')
      ? findIndentation(text, lineStart(text, parsedDoc.range[0]), all[i + 1]?.range[0] ?? text.length)
      : undefined;
    for (const finding of indentation?.findings ?? []) issues.push({ file, ...finding, path: '' });
    const doc = indentation?.doc ?? parsedDoc;
    const source = indentation?.text ?? text;
    const lines = indentation?.lineCounter ?? counter;
    const at = (offset: number) => {
      const position = positionAt(lines, offset);
      // A position inside the indentation added to a re-indented line is the start of that line in the file.
      const column = position.column + (indentation?.shifts.get(position.line) ?? 0);
      return { line: position.line, column: Math.max(1, column) };
    };
    // Only a document with duplicate keys can be two documents missing their `---`.
    const separators = doc.errors.some((error) => error.code === 'DUPLICATE_KEY')
      ? findMissingSeparators(file, doc, lines)
      : undefined;
    if (separators !== undefined) issues.push(...separators.issues);
    for (const error of doc.errors) {
      if (error.code === 'DUPLICATE_KEY' && separators?.explained.has(error.pos[0])) continue;
      const message =
        error.code === 'DUPLICATE_KEY'
          ? duplicateKeyMessage(source, doc, error.pos[0], at)
          : `YAML syntax error: ${firstLine(error.message)}`;
      issues.push({ file, ...at(error.pos[0]), path: '', message });
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
    // A list or mapping used as a key (`? [a]`, `{a: 1}: x`, an alias of one) has no JSON form: yaml would turn it into
    // text and print a process warning quoting it. Such keys need `?` or a flow bracket, so plain files skip the walk.
    if (/[?[{*]/.test(text)) issues.push(...collectionKeys(file, doc, counter));
    if (issues.length > before) return;
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: options.maxAliasCount });
    } catch {
      // yaml throws for an alias naming no earlier anchor as for an alias bomb: tell the two apart.
      const unresolved = unresolvedAliases(file, doc, counter, all.length > 1);
      if (unresolved.length > 0) {
        issues.push(...unresolved);
        return;
      }
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

/**
 * The first of two invisible faults that make YAML's own errors point at the wrong place, as one issue: a lone CR
 * line end (YAML 1.2 counts it as a line break, the parser does not: a file with classic Mac OS line ends read as one
 * line, with one error per line of the file, all "on line 1"), and a byte order mark after the start (left where files
 * were joined: `\uFEFFapiVersion` is another key, so the document it starts was "missing apiVersion").
 */
function invisibleBreakage(file: string, text: string): ValidationIssue | undefined {
  const loneCr = text.includes('\r') ? /\r(?!\n)/.exec(text)?.index : undefined;
  // The decoder drops a BOM at the start of the file, so any left is inside it.
  const bom = text.indexOf('\uFEFF');
  const offsets = [loneCr, bom].filter((at): at is number => at !== undefined && at >= 0);
  if (offsets.length === 0) return undefined;
  const offset = Math.min(...offsets);
  const before = text.slice(0, offset);
  const at = { file, line: before.split('\n').length, column: offset - before.lastIndexOf('\n'), path: '' };
  if (offset === loneCr) {
    const message =
      'a line ends with a lone carriage return (CR, as classic Mac OS wrote line ends): save the file with LF (or CRLF) line ends';
    return { ...at, message, found: 'CR' };
  }
  const message =
    'an invisible byte order mark (U+FEFF) inside the file, as joining files (cat a.yaml b.yaml) leaves: delete it (only the start of a file may hold one)';
  return { ...at, message, found: 'U+FEFF' };
}

/** An issue for each mapping key of `doc` that is a list or a mapping (or an alias of one). */
function collectionKeys(file: string, doc: Document.Parsed, counter: LineCounter): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  visit(doc, {
    Pair(_key, pair) {
      const key = isAlias(pair.key) ? pair.key.resolve(doc) : pair.key;
      if (!isCollection(key) || !isNode(pair.key) || !pair.key.range) return;
      const found = isSeq(key) ? 'a list' : 'a mapping';
      const message = `a mapping key must be plain text; found ${found} used as a key`;
      issues.push({ file, ...positionAt(counter, pair.key.range[0]), path: '', message, found });
    },
  });
  return issues;
}

function tagLabel(tag: string): string {
  const core = 'tag:yaml.org,2002:';
  return tag.startsWith(core) ? `!!${tag.slice(core.length)}` : tag;
}

/** Offset of the line start at or before `offset`. */
function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** The duplicate key's message, saying where its first copy is (when it can be found in the tree). */
function duplicateKeyMessage(
  text: string,
  doc: Document.Parsed,
  offset: number,
  at: (offset: number) => { line: number; column: number },
): string {
  const { repeated, first } = copiesOf(doc, offset);
  // The key as written, else as read (`a#b`), printable: a key may hold an escape sequence; an empty key has no text.
  const written = keyText(text, offset) ?? (isScalar(repeated) ? String(repeated.value ?? '') : '');
  const key = written === '' ? 'empty key' : `"${printable(written)}"`;
  const where =
    first === undefined ? '' : `; the first ${key} is on line ${at(first).line}, column ${at(first).column}`;
  return `duplicate ${written === '' ? key : `key ${key}`}: each key may appear once in a mapping${where}`;
}

/** The key node written at `offset`, and the offset of the first key equal to it in the same mapping. */
function copiesOf(doc: Document.Parsed, offset: number): { repeated?: unknown; first?: number } {
  let found: { repeated?: unknown; first?: number } = {};
  visit(doc, {
    Map(_key, map) {
      const index = map.items.findIndex((pair) => isNode(pair.key) && pair.key.range?.[0] === offset);
      if (index < 0) return undefined;
      const repeated = map.items[index]?.key;
      const first = map.items.find(
        (pair) => isScalar(pair.key) && isScalar(repeated) && pair.key.value === repeated.value,
      );
      found = { repeated, ...(isNode(first?.key) && first.key.range ? { first: first.key.range[0] } : {}) };
      return visit.BREAK;
    },
  });
  return found;
}

/** The key as written at `offset` (quotes dropped), when it reads as one (not for an empty key, nor one with `#`). */
function keyText(text: string, offset: number): string | undefined {
  const match = /^("[^"\n]*"|'[^'\n]*'|[^:#\n]+?)\s*:/.exec(text.slice(offset, offset + 200));
  return match?.[1]?.replace(/^["']|["']$/g, '');
}
