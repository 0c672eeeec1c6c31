/**
 * From a path inside a parsed YAML document to a source position: the node at the path, its key, 1-based line and
 * column. Aliases are followed, so a value reached through `*anchor` points at the anchored node.
 */
import { type Document, isAlias, isMap, isPair, isScalar, isSeq, type LineCounter, type Node } from 'yaml';

/** One step of a path inside a document: a mapping key or a sequence index. */
export type PathSegment = string | number;

/** A 1-based source position. */
export interface Position {
  line: number;
  column: number;
}

/**
 * A parsed document with what is needed to point into it. `doc` and `lineCounter` may be computed on first use (the
 * loader re-parses a file only when an issue must be located in it); `positions` holds value positions located in
 * advance, by `positionKey`, so the happy path never needs the syntax tree again.
 */
export interface LocatedDocument {
  file: string;
  readonly doc: Document.Parsed;
  readonly lineCounter: LineCounter;
  readonly positions?: ReadonlyMap<string, Position>;
}

/** Key of a path in `LocatedDocument.positions` (unambiguous, unlike formatPath: a key may contain a dot). */
export function positionKey(segments: readonly PathSegment[]): string {
  // Length-prefixed names and bracketed indexes: no two paths share a key (cheaper than JSON.stringify per lookup).
  let key = '';
  for (const segment of segments) key += typeof segment === 'number' ? `[${segment}]` : `.${segment.length}:${segment}`;
  return key;
}

/** `spec.alertConfigs[2].notifications[0]` from its segments. */
export function formatPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}

/** 1-based line and column of a character offset. */
export function positionAt(lineCounter: LineCounter, offset: number): { line: number; column: number } {
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

function deref(doc: Document.Parsed, node: unknown): unknown {
  // A bounded walk: an alias chain cannot be longer than the document's anchors, and resolve() never loops.
  return isAlias(node) ? node.resolve(doc) : node;
}

/** The node at `segments`, and the key node that holds it when its parent is a mapping. */
export function findNode(
  located: LocatedDocument,
  segments: readonly PathSegment[],
): { node: Node | null; key: Node | null } {
  let node: unknown = located.doc.contents;
  let key: Node | null = null;
  for (const segment of segments) {
    node = deref(located.doc, node);
    if (isMap(node)) {
      // An empty or null key (`: 1`, `~: 1`) is "" in the value, as yaml turns it into a JavaScript key.
      const pair = node.items.find(
        (item) => isPair(item) && isScalar(item.key) && String(item.key.value ?? '') === segment,
      );
      if (!pair) return { node: null, key: null };
      key = pair.key as Node;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment];
      key = null;
    } else {
      return { node: null, key: null };
    }
  }
  return { node: (deref(located.doc, node) as Node | null) ?? null, key };
}

/**
 * Position of the value at `segments` (or of its key with `at: 'key'`). When the path does not exist (a missing
 * field), the closest existing ancestor's position is used.
 */
export function locate(
  located: LocatedDocument,
  segments: readonly PathSegment[],
  at: 'value' | 'key' = 'value',
): Position {
  if (at === 'value' && located.positions) {
    const known = located.positions.get(positionKey(segments));
    if (known) return { line: known.line, column: known.column };
  }
  for (let length = segments.length; length >= 0; length--) {
    const { node, key } = findNode(located, segments.slice(0, length));
    const target = at === 'key' && length === segments.length && key ? key : (node ?? key);
    const offset = target?.range?.[0];
    if (offset !== undefined) return positionAt(located.lineCounter, offset);
  }
  const start = located.doc.range[0];
  return positionAt(located.lineCounter, start);
}
