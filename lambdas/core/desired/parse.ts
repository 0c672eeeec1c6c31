/**
 * One file's text to YAML documents, refusing hostile input with issues (decode-text.ts refuses the bytes first):
 * syntax errors, duplicate keys, explicit tags (custom types), collection and alias keys, alias bombs and empty documents.
 *
 * Memory: documents keep their plain values and a few positions, not their syntax trees (see lazy-document.ts).
 * Speed: plain block YAML takes a fast path (simple-yaml.ts) with the same values and positions.
 */
import { type Document, isAlias, isCollection, isMap, isNode, isPair, isScalar, isSeq, LineCounter, visit } from 'yaml';
import { printable } from '../printable.ts';
import { unresolvedAliases } from './aliases.ts';
import { fileColumn } from './column-shifts.ts';
import { findIndentation } from './indentation.ts';
import { invisibleBreakage } from './invisible-breakage.ts';
import { knownPositions, LazyDocument, LazyTrees, parseTrees } from './lazy-document.ts';
import { formatPath, type LocatedDocument, type PathSegment, positionAt } from './locate.ts';
import { findMissingItemDashes } from './missing-dash.ts';
import { findMissingSeparators } from './missing-separator.ts';
import { findExcessiveNesting } from './nesting.ts';
import { parseSimpleYaml } from './simple-yaml.ts';
import { meantTemplateName } from './template-name.ts';
import type { LoadOptions, ValidationIssue } from './types.ts';

/** One document of a file that parsed cleanly, with its plain value. */
export interface ParsedDocument extends LocatedDocument {
  /** 1-based index of the document within its file. */
  index: number;
  value: unknown;
}

function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '');
}

/** One file's documents that parsed cleanly, and the issues of the others. */
export interface ParsedFile {
  documents: ParsedDocument[];
  issues: ValidationIssue[];
  /** Names of AlertTemplate documents left out of `documents` for their YAML (their issues are in `issues`). */
  refusedTemplates?: string[];
}

/** The `kind` and `metadata.name` of a document yaml read with errors, as far as it could be read. */
function templateNameOf(doc: Document.Parsed): string | undefined {
  return meantTemplateName(doc.get('kind'), doc.getIn(['metadata', 'name']));
}

/** Parses every document of one file. Documents with any issue are left out of `documents`. */
export function parseYamlFile(file: string, text: string, options: Pick<LoadOptions, 'maxAliasCount'>): ParsedFile {
  const invisible = invisibleBreakage(file, text);
  if (invisible !== undefined) return { documents: [], issues: [invisible] };
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
  // The two filters below look at the whole file once, not once per document: a file of thousands of documents
  // scanned its whole text for each of them (5,000 documents of 45 KB: about 1.3 s).
  const mayHaveCollectionKeys = /[?[{*]/.test(text);
  const mayHaveUnclearNumber = MAY_HAVE_UNCLEAR_NUMBER.test(text);
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
  const readDocument = (parsedDoc: (typeof all)[number], i: number): void => {
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
      const column = fileColumn(indentation?.shifts, position.line, position.column);
      return { line: position.line, column: Math.max(1, column) };
    };
    // Only a document with duplicate keys can be two documents missing their `---`.
    const duplicates = doc.errors.some((error) => error.code === 'DUPLICATE_KEY');
    const separators = duplicates ? findMissingSeparators(file, doc, lines) : undefined;
    if (separators !== undefined) issues.push(...separators.issues);
    // Nor, within a list, is a later item that lost its "-" (its keys repeat the item's above).
    const dashes = duplicates ? findMissingItemDashes(file, doc, lines) : undefined;
    if (dashes !== undefined) issues.push(...dashes.issues);
    for (const error of doc.errors) {
      const offset = error.pos[0];
      if (error.code === 'DUPLICATE_KEY' && (separators?.explained.has(offset) || dashes?.explained.has(offset))) {
        continue;
      }
      const message =
        error.code === 'DUPLICATE_KEY'
          ? duplicateKeyMessage(source, doc, error.pos[0], at)
          : `YAML syntax error: ${firstLine(error.message)}`;
      issues.push({ file, ...at(error.pos[0]), path: '', message });
    }
    // A document whose only YAML fault is a repeated key (neither two documents run together nor an item missing its
    // "-") goes on to the schema and the semantic rules with each key's first copy, as one with an unclear number does,
    // so one run lists the file's other issues too instead of one more per fix.
    const onlyDuplicates =
      indentation === undefined &&
      (separators?.issues.length ?? 0) === 0 &&
      (dashes?.issues.length ?? 0) === 0 &&
      doc.errors.every((error) => error.code === 'DUPLICATE_KEY');
    if (issues.length > before && !onlyDuplicates) return;
    // The value read on is the first copy's, the one the issue names first and issues elsewhere are located at.
    if (issues.length > before) keepFirstCopies(doc);
    const read = issues.length;
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
    if (issues.length > read) return;
    // A list or mapping used as a key (`? [a]`, `{a: 1}: x`, an alias of one) has no JSON form: yaml would turn it into
    // text and print a process warning quoting it. Such keys need `?` or a flow bracket, so plain files skip the walk.
    const keys = mayHaveCollectionKeys ? collectionKeys(file, doc, counter) : { collections: [], aliases: [] };
    issues.push(...keys.collections);
    if (issues.length > read) return;
    // An alias key or an unclear number is refused, but the document reads as YAML 1.2 reads it (as earlier releases
    // loaded it): it goes on to the schema and the semantic rules, so every issue of the file is listed in one run, and
    // a template refused for `intervalMin: 015` is not also "unknown" to every project that uses it.
    issues.push(...keys.aliases);
    if (mayHaveUnclearNumber) issues.push(...unclearNumbers(file, doc, counter));
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
  };
  const refusedTemplates: string[] = [];
  all.forEach((parsedDoc, i) => {
    const kept = documents.length;
    readDocument(parsedDoc, i);
    // A template left out for its YAML (a duplicate key, a syntax error: every document left out has an issue) is
    // reported there; projects naming it must not also be told it is unknown (load.ts), as for one refused at its
    // header. A document kept needs no name here: it is read as a template, or refused at its header, by load.ts.
    const name = documents.length === kept ? templateNameOf(parsedDoc) : undefined;
    if (name !== undefined) refusedTemplates.push(name);
  });
  return refusedTemplates.length > 0 ? { documents, issues, refusedTemplates } : { documents, issues };
}

/**
 * Removes every later copy of a repeated key from the mappings of `doc` (yaml's value would be the last copy's, while
 * positions are looked up at the first), so a document read on past its duplicate-key issues has one value per key.
 */
function keepFirstCopies(doc: Document.Parsed): void {
  visit(doc, {
    Map(_key, map) {
      const seen = new Set<unknown>();
      map.items = map.items.filter((pair) => {
        const name = isScalar(pair.key) ? pair.key.value : pair.key;
        if (seen.has(name)) return false;
        seen.add(name);
        return true;
      });
    },
  });
}

/**
 * An issue for each mapping key of `doc` that is a list or a mapping (`collections`: the document has no JSON form), or
 * an alias of text (`aliases`: the document reads as the key the alias names).
 */
function collectionKeys(
  file: string,
  doc: Document.Parsed,
  counter: LineCounter,
): { collections: ValidationIssue[]; aliases: ValidationIssue[] } {
  const collections: ValidationIssue[] = [];
  const aliases: ValidationIssue[] = [];
  visit(doc, {
    Pair(_key, pair, ancestors) {
      if (!isNode(pair.key) || !pair.key.range) return;
      const key = isAlias(pair.key) ? pair.key.resolve(doc) : pair.key;
      const at = positionAt(counter, pair.key.range[0]);
      if (isCollection(key)) {
        const found = isSeq(key) ? 'a list' : 'a mapping';
        const message = `a mapping key must be plain text; found ${found} used as a key`;
        collections.push({ file, ...at, path: '', message, found });
      } else if (isAlias(pair.key)) {
        // yaml's duplicate-key check compares key nodes, not what an alias resolves to: `&m mode: plan` then
        // `*m : apply` reads as mode: apply, the first value silently dropped. No key needs an alias: refuse them all.
        const found = `the alias "*${printable(pair.key.source)}"`;
        // Name the key it stands for, so the fix needs no search for its anchor, and the key it repeats in its mapping
        // (the file's second copy of it, so "write the key itself" would only meet the duplicate-key check next run).
        const name = isScalar(key) ? `"${printable(String(key.value))}"` : undefined;
        const twin = isScalar(key) ? repeatedKey(ancestors[ancestors.length - 1], pair, key.value, doc) : undefined;
        const fix =
          twin !== undefined
            ? `it repeats the key ${name} of line ${positionAt(counter, twin).line}, and YAML read only this one's value: keep one ${name} with the value you mean`
            : `write the key itself${name === undefined ? '' : `, ${name},`} (an alias key can repeat another key unseen)`;
        const message = `a mapping key must be plain text; found ${found} used as a key: ${fix}`;
        aliases.push({ file, ...at, path: '', message, found });
      }
    },
  });
  return { collections, aliases };
}

/** Where another key of `map` (an alias resolved) reads as `value`, the offset of the first; undefined when none does. */
function repeatedKey(map: unknown, pair: unknown, value: unknown, doc: Document.Parsed): number | undefined {
  if (!isMap(map)) return undefined;
  for (const other of map.items) {
    if (other === pair || !isNode(other.key) || !other.key.range) continue;
    const key = isAlias(other.key) ? other.key.resolve(doc) : other.key;
    if (isScalar(key) && key.value === value) return other.key.range[0];
  }
  return undefined;
}

/**
 * Text that may hold a number unclearNumbers refuses (a leading 0, 16 digits, a negative exponent): a filter only,
 * so that files without one skip the walk; it may match more.
 */
const MAY_HAVE_UNCLEAR_NUMBER = /\b0[0-9oxX]|[0-9]{16}|[eE]-/;

/** The issues unclearNumbers made (load.ts leaves one out where the schema wants text, not a number, at its place). */
const UNCLEAR_NUMBER_ISSUES = new WeakSet<ValidationIssue>();

/** Whether `issue` is a number refused for how it is written (`010`, `0x10`, `9007199254740993`, `1e-400`). */
export function isUnclearNumberIssue(issue: ValidationIssue): boolean {
  return UNCLEAR_NUMBER_ISSUES.has(issue);
}

/**
 * An issue for each number whose value is not plainly what is written: one readers of other YAML versions read
 * otherwise (`010`: 10 in YAML 1.2, 8 in YAML 1.1; `0o10`: 8, text in YAML 1.1), one written in hexadecimal, one a
 * double cannot hold (`9007199254740993` reads as ...992, `1e-400` as 0). Each would be a silent change (`-0` is not:
 * it is sent, compared and stored as 0).
 */
function unclearNumbers(file: string, doc: Document.Parsed, counter: LineCounter): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  visit(doc, {
    Scalar(key, node, ancestors) {
      if (key === 'key' || typeof node.value !== 'number' || typeof node.source !== 'string' || !node.range) return;
      const why = unclearNumber(node.source, node.value);
      if (why === undefined) return;
      const found = printable(node.source);
      // A phone number or an id written bare is text YAML read as a number: the way out is quotes, not arithmetic.
      const message = `the number ${found} ${why} (or, if it is text, put it in quotes)`;
      // The path lets a caller tell which entry holds the number (export leaves out that entry alone).
      const path = formatPath(pathOf(ancestors, node));
      const issue: ValidationIssue = { file, ...positionAt(counter, node.range[0]), path, message, found };
      UNCLEAR_NUMBER_ISSUES.add(issue);
      issues.push(issue);
    },
  });
  return issues;
}

/** The document path of `node` from the ancestors `visit` hands over (mapping keys and list indexes). */
function pathOf(ancestors: readonly unknown[], node: unknown): PathSegment[] {
  const segments: PathSegment[] = [];
  ancestors.forEach((ancestor, i) => {
    const child = ancestors[i + 1] ?? node;
    if (isSeq(ancestor)) segments.push(ancestor.items.indexOf(child as never));
    else if (isPair(ancestor) && ancestor.value === child) {
      segments.push(isScalar(ancestor.key) ? String(ancestor.key.value) : String(ancestor.key));
    }
  });
  return segments;
}

/** Whether the integer `digits` (an optional "-", then digits) is `value` exactly or is the way `value` prints. */
function integerAsWritten(digits: string, value: number): boolean {
  return String(value) === digits || BigInt(digits) === BigInt(value);
}

/** Why the number written `source`, read as `value`, is unclear, or undefined when it is plain. */
function unclearNumber(source: string, value: number): string | undefined {
  // 05 or 007 is the same number to every reader (octal 7 is 7): only 010 and up, 08 and 09 are read otherwise. A
  // leading zero before a decimal point or an exponent (05.5, 010.5, 00.5) is decimal in YAML 1.1 as in 1.2.
  if (/^[-+]?0[0-9]+$/.test(source) && !/^[-+]?0+[0-7]$/.test(source)) {
    const octal = /^[-+]?[0-7]+$/.test(source) ? `, YAML 1.1 tools as the octal ${Number.parseInt(source, 8)}` : '';
    return `has a leading zero: YAML 1.2 reads it as ${value}${octal}; write it without the leading zero`;
  }
  if (/^[-+]?0[oxX]/.test(source)) return `is not written in decimal (YAML reads it as ${value}); write ${value}`;
  // Only digits that are neither held exactly nor the number's own shortest text: 9007199254740992 (2^53) and 1e20
  // written out are exact, 341005196264649000 is how the double nearest to it prints (both read back the same),
  // 9007199254740993 is neither (it reads as ...992).
  if (/^[-+]?[0-9]+$/.test(source) && Number.isFinite(value) && !integerAsWritten(source.replace(/^\+/, ''), value)) {
    return `is too large to be held exactly (YAML reads it as ${value}); write a number up to ${Number.MAX_SAFE_INTEGER}, or one a double holds`;
  }
  if (value === 0 && /^[-+]?[0-9.]*[1-9]/.test(source)) return 'is too small to be held (YAML reads it as 0); write 0';
  return undefined;
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
