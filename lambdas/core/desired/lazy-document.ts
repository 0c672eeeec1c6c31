/**
 * Parsed documents without their syntax trees: a document keeps its plain value and the positions the model needs
 * (its start, each alert config's), not its tree (about 15 times the size of the text). The trees come back, by
 * re-parsing that one file with the same options, only when an issue has to be located in it.
 */
import { type Document, LineCounter, parseAllDocuments } from 'yaml';
import { asArray, asRecord } from './issue.ts';
import { type LocatedDocument, locate, type PathSegment, type Position, positionKey } from './locate.ts';
import type { ParsedDocument } from './parse.ts';
import { secretPlaces } from './secret-places.ts';
import { withoutYamlDebugVariables } from './yaml-env.ts';

/** The syntax trees of one file's documents and the line counter of its text. */
export interface Trees {
  docs: Document.Parsed[];
  lineCounter: LineCounter;
}

/** Parses every document of a file's text (the options of every parse: the first one and any re-parse). */
export function parseTrees(text: string): Trees {
  const lineCounter = new LineCounter();
  // Same options on the first parse and on a re-parse, so both give the same documents and offsets.
  const docs = withoutYamlDebugVariables(() =>
    parseAllDocuments(text, { lineCounter, uniqueKeys: true, prettyErrors: false, schema: 'core' }),
  );
  return { docs: Array.isArray(docs) ? docs : [], lineCounter };
}

/** A file's syntax trees, rebuilt from its text on first use and shared by its documents. */
export class LazyTrees {
  private trees: Trees | undefined;
  /** @param text the file's text, kept (not its trees) until the documents are dropped. */
  constructor(private readonly text: string) {}
  /** The trees, parsed on the first call. */
  get(): Trees {
    this.trees ??= parseTrees(this.text);
    return this.trees;
  }
}

/** A parsed document that holds its value and known positions; its tree comes back only when asked for. */
export class LazyDocument implements ParsedDocument {
  constructor(
    readonly file: string,
    readonly index: number,
    readonly value: unknown,
    readonly positions: ReadonlyMap<string, Position>,
    private readonly trees: LazyTrees,
  ) {}
  /** The document's syntax tree (re-parses its file on first use). */
  get doc(): Document.Parsed {
    const doc = this.trees.get().docs[this.index - 1];
    if (!doc) throw new Error(`document ${this.index} of ${this.file} is gone on re-parse`);
    return doc;
  }
  /** The line counter of the document's file (re-parses it on first use). */
  get lineCounter(): LineCounter {
    return this.trees.get().lineCounter;
  }
}

/**
 * The positions read on the happy path (build.ts): the document's start, each `spec.alertConfigs` item, and each
 * secret reference's string (secret-places.ts).
 */
export function knownPositions(located: LocatedDocument, value: unknown): Map<string, Position> {
  const positions = new Map<string, Position>();
  const remember = (segments: PathSegment[]) => positions.set(positionKey(segments), locate(located, segments));
  remember([]);
  const count = asArray(asRecord(asRecord(value)?.spec)?.alertConfigs).length;
  for (let i = 0; i < count; i++) remember(['spec', 'alertConfigs', i]);
  for (const place of secretPlaces(value)) remember(place.path);
  return positions;
}
