/**
 * Two documents written without the `---` line between them parse as one mapping whose top-level keys repeat
 * (`apiVersion`, `kind`, ... again). YAML reports each repeat as a duplicate key, which says neither why nor how to fix
 * it; this finds where the next document seems to start and says to put `---` there, once per missing separator.
 */
import { type Document, isMap, isScalar, type LineCounter } from 'yaml';
import { positionAt } from './locate.ts';
import type { ValidationIssue } from './types.ts';

/** Keys that start a document: a run of top-level keys holding one of them again reads as a document of its own. */
const DOCUMENT_KEYS: ReadonlySet<string> = new Set(['apiVersion', 'kind']);

/** One top-level key of the mapping and where it is written. */
interface TopKey {
  name: string;
  offset: number;
}

/** The issues about missing `---` lines, and the offsets of the duplicate-key errors they explain (to leave out). */
export interface SeparatorFindings {
  issues: ValidationIssue[];
  explained: ReadonlySet<number>;
}

function topKeys(doc: Document.Parsed): TopKey[] {
  if (!isMap(doc.contents)) return [];
  const keys: TopKey[] = [];
  for (const pair of doc.contents.items) {
    if (isScalar(pair.key) && typeof pair.key.value === 'string' && pair.key.range)
      keys.push({ name: pair.key.value, offset: pair.key.range[0] });
  }
  return keys;
}

/**
 * Splits the top-level keys into runs at each key already seen in the current run; a later run holding apiVersion or
 * kind again (written before it too) is reported as a document that lacks its `---`, and every duplicate-key error
 * inside it is explained by that.
 */
export function findMissingSeparators(file: string, doc: Document.Parsed, lineCounter: LineCounter): SeparatorFindings {
  const issues: ValidationIssue[] = [];
  const explained = new Set<number>();
  const keys = topKeys(doc);
  let run: TopKey[] = [];
  const runs: TopKey[][] = [];
  for (const key of keys) {
    if (run.some((k) => k.name === key.name)) {
      runs.push(run);
      run = [];
    }
    run.push(key);
  }
  runs.push(run);
  for (let i = 1; i < runs.length; i++) {
    const current = runs[i] ?? [];
    const start = current[0];
    const earlier = runs.slice(0, i).flat();
    // The document key must repeat: a `kind` written once, after some other repeated key, is one document's own.
    const again = (k: TopKey) => DOCUMENT_KEYS.has(k.name) && earlier.some((e) => e.name === k.name);
    if (start === undefined || !current.some(again)) continue;
    const first = [...earlier].reverse().find((k) => k.name === start.name) ?? start;
    const at = positionAt(lineCounter, start.offset);
    const firstLine = positionAt(lineCounter, first.offset).line;
    for (const key of current) if (earlier.some((k) => k.name === key.name)) explained.add(key.offset);
    // A separator written with more dashes (`----`) is no separator: YAML reads it and the next line as one key, so
    // the repeat starts a line later. The fix is that line, not a new "---" before the repeat.
    const broken = (runs[i - 1] ?? []).at(-1);
    const dashes = broken === undefined ? null : /^-{3,}\S*/.exec(broken.name);
    if (broken !== undefined && dashes !== null) {
      const line = positionAt(lineCounter, broken.offset);
      issues.push({
        file,
        ...line,
        path: '',
        message:
          `line ${line.line} starts with "${dashes[0]}", which does not separate documents: another document seems ` +
          `to start there ("${start.name}" appears again on line ${at.line}, first on line ${firstLine}); a separator ` +
          'is a line of exactly "---"',
        hint: `make line ${line.line} exactly "---"`,
      });
      continue;
    }
    issues.push({
      file,
      ...at,
      path: '',
      message:
        `"${start.name}" appears again at the top level (first on line ${firstLine}): another document seems to ` +
        `start here without its separator; put a line "---" before line ${at.line} (or, if this is one document, ` +
        `keep one "${start.name}")`,
      hint: `put "---" on its own line before line ${at.line}`,
    });
  }
  return { issues, explained };
}
