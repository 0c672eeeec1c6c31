/**
 * A fast path for the plain YAML desired-state files are made of: block mappings and sequences of one-line scalars,
 * comments, `---` between documents. It gives exactly the values (and the known positions) that yaml's
 * parse and toJS give, or `undefined` as soon as anything falls outside that subset (tabs, CR, a BOM, flow
 * collections, anchors, aliases, tags, block or multi-line scalars, escapes, duplicate keys, empty values,
 * non-ASCII plain scalars, numbers other than plain decimals, ...): the caller then parses the file with yaml.
 *
 * Why: yaml lexes into tokens, builds a node tree and converts it, about 2.5 ms per 6 KB project file; this reads the
 * same lines in a fraction of that. Every issue, message and position of a file with a problem still comes from yaml,
 * because a file with anything unusual, or anything wrong, takes yaml's path.
 */
import { asArray, asRecord } from './issue.ts';
import { type Position, positionKey } from './locate.ts';
import { MAX_INDENT_COLUMNS } from './nesting.ts';
import { secretPlaces } from './secret-places.ts';

/** One document read by the fast path: its value and the positions knownPositions (lazy-document.ts) would give. */
export interface SimpleDocument {
  value: Record<string, unknown>;
  positions: Map<string, Position>;
}

interface Line {
  /** Offset of the line's first character in the text. */
  start: number;
  /** Leading spaces. */
  indent: number;
  /** The line after its indentation, trailing spaces removed; '' for blank and comment-only lines. */
  text: string;
}

/** Thrown, and caught in parseSimpleYaml, to leave the fast path. */
class NotSimple extends Error {}

/**
 * Deepest indentation read here, in columns: a line's spaces, and for a sequence item its `- ` and the spaces after
 * it (what nesting.ts counts; a second indicator on one line is refused anyway). Deeper files go to nesting.ts.
 */
export const MAX_SIMPLE_INDENT = MAX_INDENT_COLUMNS / 2;

/** The column (0-based) where a line's content starts, past its indentation and a sequence item's `- `. */
function contentColumn(line: Line): number {
  if (!isItem(line.text)) return line.indent;
  let column = 1;
  while (line.text.charCodeAt(column) === 32) column++;
  return line.indent + column;
}

// Plain names up to 256 characters (yaml refuses an implicit key whose `:` is more than 1,024 characters on).
const KEY = /^([A-Za-z_][A-Za-z0-9_-]{0,255}):(?: +(.*))?$/;
// The core schema's tests of plain scalars (yaml's schema/core), in yaml's order: null, bool, int, then the numbers
// this path leaves to yaml (octal, hex, NaN and infinities, exponents), then float.
const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT = /^[-+]?[0-9]+$/;
const LEFT_TO_YAML =
  /^(?:0o[0-7]+|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+)$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;
/** One-line plain scalars: words of these ASCII characters (no `:`, no word opening with `#`), single spaces. */
const PLAIN = /^[A-Za-z0-9_/.+-][A-Za-z0-9_./@+#-]*(?: [A-Za-z0-9_./@+-][A-Za-z0-9_./@+#-]*)*$/;
/** Quoted scalars of printable ASCII with no escape and no inner quote. */
const QUOTED = /^(?:"([ !#-[\]-~]*)"|'([ -&(-~]*)')$/;

function scalar(text: string): unknown {
  const quoted = QUOTED.exec(text);
  if (quoted) return quoted[1] ?? quoted[2];
  if (!PLAIN.test(text) || isItem(text)) throw new NotSimple();
  if (NULL.test(text)) return null;
  if (BOOL.test(text)) return text[0] === 't' || text[0] === 'T';
  if (INT.test(text)) {
    // A leading zero and long integers may be refused by parse.ts (which sees yaml's nodes): left to yaml's path.
    const value = Number.parseInt(text, 10);
    if (/^[-+]?0./.test(text) || !Number.isSafeInteger(value)) throw new NotSimple();
    return value;
  }
  if (LEFT_TO_YAML.test(text)) throw new NotSimple();
  if (FLOAT.test(text)) {
    const value = Number.parseFloat(text);
    // A leading zero (05.5: accepted by parse.ts, read the same there) and a non-zero decimal too small for a double
    // (0.000…1 reads as 0: refused by parse.ts) are left to yaml's path, which sees the text as written.
    if (/^[-+]?0[0-9]/.test(text) || (value === 0 && /[1-9]/.test(text))) throw new NotSimple();
    return value;
  }
  return text;
}

/** A value without its trailing comment (` # ...`): '' when the whole value is a comment. */
function withoutComment(text: string): string {
  let end: number;
  if (text.startsWith('"') || text.startsWith("'")) {
    const close = text.indexOf(text[0] as string, 1);
    // An unclosed or escaped quote is left whole, for scalar() to refuse.
    end = close < 0 || !/^ +#/.test(text.slice(close + 1)) ? text.length : close + 1;
  } else {
    end = text.startsWith('#') ? 0 : text.indexOf(' #');
    if (end < 0) end = text.length;
  }
  // Spaces only: other whitespace (VT, FF, NBSP, a BOM...) is content to yaml, and scalar() refuses it.
  while (end > 0 && text.charCodeAt(end - 1) === 32) end--;
  return text.slice(0, end);
}

function isItem(text: string): boolean {
  return text === '-' || text.startsWith('- ');
}

function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  for (let start = 0; start <= text.length; ) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    let from = start;
    while (from < end && text.charCodeAt(from) === 32) from++;
    let to = end;
    while (to > from && text.charCodeAt(to - 1) === 32) to--;
    const body = text.charCodeAt(from) === 35 ? '' : text.slice(from, to);
    lines.push({ start, indent: from - start, text: body });
    start = end + 1;
  }
  return lines;
}

/** Reads one document's lines (blank and comment lines included) into its value. */
class DocumentReader {
  private i = 0;
  /** Where each item of each sequence read starts (offsets), by sequence. */
  readonly itemStarts = new Map<unknown[], number[]>();
  /** Where the value of each mapping's `secretRef` key starts (offset), by mapping: the known secret positions. */
  readonly secretRefStarts = new Map<Record<string, unknown>, number>();

  constructor(private readonly lines: Line[]) {}

  private next(): Line | undefined {
    while (this.i < this.lines.length && (this.lines[this.i] as Line).text === '') this.i++;
    return this.lines[this.i];
  }

  /** Nothing may follow a block at `indent` more deeply indented (a continuation line, or a stray one). */
  private endOfBlock(indent: number): void {
    const after = this.next();
    if (after !== undefined && after.indent > indent) throw new NotSimple();
  }

  /** The document: one mapping at column 0, every line consumed; `start` is the offset of its first key. */
  read(): { value: Record<string, unknown>; start: number } {
    const first = this.next();
    if (first === undefined || first.indent !== 0) throw new NotSimple();
    const value = this.mapping(0);
    if (this.next() !== undefined) throw new NotSimple();
    return { value, start: first.start };
  }

  /** A block mapping whose keys sit at `indent`. */
  private mapping(indent: number): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    for (let line = this.next(); line !== undefined && line.indent === indent; line = this.next()) {
      const match = KEY.exec(line.text);
      if (!match) throw new NotSimple();
      const key = match[1] as string;
      if (Object.hasOwn(map, key) || key === '__proto__' || NULL.test(key) || BOOL.test(key)) throw new NotSimple();
      this.i++;
      const inline = withoutComment(match[2] ?? '');
      if (inline !== '') {
        map[key] = scalar(inline);
        // The value starts where the rest of the line (match[2], to the end of the trimmed text) starts.
        if (key === 'secretRef')
          this.secretRefStarts.set(map, line.start + line.indent + line.text.length - (match[2] as string).length);
        this.endOfBlock(indent);
        continue;
      }
      const child = this.next();
      if (child !== undefined && child.indent > indent) {
        map[key] = isItem(child.text) ? this.sequence(child.indent) : this.mapping(child.indent);
      } else if (child !== undefined && child.indent === indent && isItem(child.text)) {
        map[key] = this.sequence(indent);
      } else {
        throw new NotSimple();
      }
    }
    this.endOfBlock(indent);
    return map;
  }

  /** A block sequence whose dashes sit at `indent`. */
  private sequence(indent: number): unknown[] {
    const list: unknown[] = [];
    const starts: number[] = [];
    for (
      let line = this.next();
      line !== undefined && line.indent === indent && isItem(line.text);
      line = this.next()
    ) {
      const column = contentColumn(line);
      const content = line.text.slice(column - indent);
      if (content === '' || isItem(content)) throw new NotSimple();
      starts.push(line.start + column);
      if (KEY.test(content)) {
        // `- key: value`: a mapping whose keys sit at the column of this first key.
        this.lines[this.i] = { start: line.start, indent: column, text: content };
        list.push(this.mapping(column));
      } else {
        this.i++;
        const value = withoutComment(content);
        if (value === '') throw new NotSimple();
        list.push(scalar(value));
        this.endOfBlock(indent);
      }
    }
    this.endOfBlock(indent);
    this.itemStarts.set(list, starts);
    return list;
  }
}

/** 1-based line and column of `offset`, given the offsets where lines start (ascending). */
function positionOf(lineStarts: readonly number[], offset: number): Position {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((lineStarts[mid] as number) <= offset) low = mid;
    else high = mid - 1;
  }
  return { line: low + 1, column: offset - (lineStarts[low] as number) + 1 };
}

/** Lines grouped by document (`---` lines between them), or undefined for markers this path leaves to yaml. */
function documentsOf(lines: Line[]): Line[][] | undefined {
  const groups: Line[][] = [[]];
  for (const line of lines) {
    const marker = line.indent === 0 && /^(?:---|\.\.\.|%)/.test(line.text);
    if (!marker) (groups[groups.length - 1] as Line[]).push(line);
    else if (line.text === '---') groups.push([]);
    else return undefined;
  }
  // A `---` with only comments before it opens the first document.
  if (groups.length > 1 && (groups[0] as Line[]).every((line) => line.text === '')) groups.shift();
  return groups;
}

/**
 * The documents of `text` with the positions knownPositions records (the document's mapping, each item of
 * `spec.alertConfigs` and each secret reference's string), or undefined when the text is not plain block YAML (the caller then parses it with yaml).
 */
export function parseSimpleYaml(text: string): SimpleDocument[] | undefined {
  // No flow brackets at all (not even quoted): nesting.ts's flow-depth guard then has nothing to count, and the
  // indentation limit below keeps its indentation guard silent too, so this path may run before that guard.
  if (/[\t\r[{]/.test(text) || text.charCodeAt(0) === 0xfeff) return undefined;
  const lines = splitLines(text);
  if (lines.some((line) => contentColumn(line) > MAX_SIMPLE_INDENT)) return undefined;
  const groups = documentsOf(lines);
  if (groups === undefined) return undefined;
  const lineStarts = lines.map((line) => line.start);
  const documents: SimpleDocument[] = [];
  try {
    for (const group of groups) {
      const reader = new DocumentReader(group);
      const { value, start } = reader.read();
      const positions = new Map<string, Position>([[positionKey([]), positionOf(lineStarts, start)]]);
      const configs = asArray(asRecord(value.spec)?.alertConfigs);
      reader.itemStarts.get(configs)?.forEach((offset, i) => {
        positions.set(positionKey(['spec', 'alertConfigs', i]), positionOf(lineStarts, offset));
      });
      for (const place of secretPlaces(value)) {
        const offset = reader.secretRefStarts.get(place.holder);
        if (offset !== undefined) positions.set(positionKey(place.path), positionOf(lineStarts, offset));
      }
      documents.push({ value, positions });
    }
  } catch (error) {
    if (error instanceof NotSimple) return undefined;
    throw error;
  }
  return documents;
}
