/**
 * loadDesiredState: list -> read -> decode -> parse -> header -> schema -> cross-document rules -> pinned manifest ->
 * build. Every problem of every file is collected in one pass; bad input never throws, it becomes issues.
 */
import { createHash } from 'node:crypto';
import type { DesiredFileInfo } from '../model.ts';
import type { DesiredFileRef, DesiredStateSource } from '../ports.ts';
import { buildState, summarize } from './build.ts';
import { checkDocuments, type DocumentsByKind } from './cross-checks.ts';
import { sortIssues } from './format.ts';
import { checkHeader } from './headers.ts';
import { asRecord, asString } from './issue.ts';
import { type PinnedManifest, readPinnedManifest } from './manifest-pin.ts';
import { decodeText, type ParsedDocument, parseYamlFile } from './parse.ts';
import { checkSchema } from './schema-check.ts';
import { DEFAULT_LOAD_OPTIONS, type LoadOptions, type LoadResult, type ValidationIssue } from './types.ts';

const READ_CONCURRENCY = 8;

function rootIssue(source: DesiredStateSource, message: string): ValidationIssue {
  return { file: source.describe(), line: 1, column: 1, path: '', message };
}

async function readFile(
  source: DesiredStateSource,
  ref: DesiredFileRef,
  options: LoadOptions,
): Promise<{ info?: DesiredFileInfo; documents: ParsedDocument[]; issues: ValidationIssue[] }> {
  const at = { file: ref.path, line: 1, column: 1, path: '' };
  const tooBig = (size: number) => ({
    documents: [],
    issues: [
      {
        ...at,
        message: `file is ${size} bytes, over the limit of ${options.maxFileBytes} bytes`,
        found: `${size} bytes`,
      },
    ],
  });
  if (ref.size > options.maxFileBytes) return tooBig(ref.size);
  let read: { bytes: Uint8Array; version?: string };
  try {
    read = await source.read(ref.path);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { documents: [], issues: [{ ...at, message: `cannot read file: ${reason}` }] };
  }
  if (read.bytes.length > options.maxFileBytes) return tooBig(read.bytes.length);
  const version = read.version ?? ref.version;
  const info: DesiredFileInfo = {
    path: ref.path,
    sha256: createHash('sha256').update(read.bytes).digest('hex'),
    ...(version ? { version } : {}),
  };
  const decoded = decodeText(ref.path, read.bytes);
  if ('issue' in decoded) return { info, documents: [], issues: [decoded.issue] };
  return { info, ...parseYamlFile(ref.path, decoded.text, options) };
}

async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function capIssues(issues: ValidationIssue[], max: number): ValidationIssue[] {
  if (issues.length <= max) return issues;
  const shown = issues.slice(0, max);
  const last = shown[shown.length - 1] as ValidationIssue;
  const message = `... and ${issues.length - max} more issues not shown (the first ${max} are above); fix those and validate again`;
  return [...shown, { file: last.file, line: last.line, column: last.column, path: '', message }];
}

/**
 * Loads and validates the desired state of a source. Resolves to the state and a one-line summary, or to every
 * issue found, sorted by file, line and column. Never rejects: even an unexpected failure becomes an issue.
 */
export async function loadDesiredState(
  source: DesiredStateSource,
  overrides: Partial<LoadOptions> = {},
): Promise<LoadResult> {
  try {
    return await load(source, { ...DEFAULT_LOAD_OPTIONS, ...overrides });
  } catch (error) {
    // A bug of this module, not of the input: reported (without a stack, which could quote file contents), never thrown.
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { ok: false, issues: [rootIssue(source, `internal error while loading the desired state: ${reason}`)] };
  }
}

async function load(source: DesiredStateSource, options: LoadOptions): Promise<LoadResult> {
  let refs: DesiredFileRef[];
  try {
    refs = (await source.list()).filter((ref) => /\.ya?ml$/i.test(ref.path));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, issues: [rootIssue(source, `cannot list the desired-state files: ${reason}`)] };
  }
  refs.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if (refs.length > options.maxFiles) {
    return {
      ok: false,
      issues: [rootIssue(source, `${refs.length} YAML files, over the limit of ${options.maxFiles}`)],
    };
  }
  const read = await mapLimited(refs, READ_CONCURRENCY, (ref) => readFile(source, ref, options));
  const issues: ValidationIssue[] = read.flatMap((r) => r.issues);
  const docs: DocumentsByKind = { Project: [], AlertTemplate: [], Organization: [], Settings: [] };
  for (const document of read.flatMap((r) => r.documents)) {
    const header = checkHeader(document);
    if ('issue' in header) {
      issues.push(header.issue);
      continue;
    }
    issues.push(...checkSchema(document, document.value));
    docs[header.kind].push(document);
  }
  const documentCount = read.reduce((n, r) => n + r.documents.length, 0);
  if (refs.length === 0 || (issues.length === 0 && documentCount === 0)) {
    const message = `no desired-state documents under ${source.describe()}: an empty desired state is refused (it would manage nothing, and could read as "delete everything"); add Project or Organization documents`;
    issues.push(rootIssue(source, message));
  } else if (issues.length === 0 && docs.Project.length === 0 && docs.Organization.length === 0) {
    issues.push(
      rootIssue(source, `no Project or Organization documents under ${source.describe()}: nothing to manage`),
    );
  }
  issues.push(...checkDocuments(docs));
  let pin: PinnedManifest | undefined;
  const settings = docs.Settings[0];
  const pinPath = asString(asRecord(asRecord(asRecord(settings?.value)?.spec)?.versionManifest)?.pin);
  if (settings && pinPath !== undefined && /^[^/].*\.json$/.test(pinPath) && !pinPath.split('/').includes('..')) {
    const pinned = await readPinnedManifest(settings, pinPath, source, options);
    if ('issue' in pinned) issues.push(pinned.issue);
    else pin = pinned.pin;
  }
  if (issues.length > 0) return { ok: false, issues: capIssues(sortIssues(issues), options.maxIssues) };
  const files = read.flatMap((r) => (r.info ? [r.info] : []));
  const state = buildState(docs, files, pin);
  return { ok: true, state, summary: summarize(state, docs.AlertTemplate.length, files.length) };
}
