/**
 * loadDesiredState: list -> read -> [cache lookup] -> decode -> parse -> header -> schema -> cross-document rules ->
 * pinned manifest -> build [-> cache store]. Every problem of every file is collected in one pass; bad input never
 * throws, it becomes issues. With a DesiredStateCache, unchanged bytes skip everything from decode on (cache.ts).
 */
import { hash } from 'node:crypto';
import type { DesiredFileInfo } from '../model.ts';
import { byPath } from '../order.ts';
import type { DesiredFileRef, DesiredStateCache, DesiredStateSource } from '../ports.ts';
import { buildState, summarize } from './build.ts';
import { desiredCacheKey, desiredTagKey } from './cache.ts';
import { lookupCachedState, lookupTaggedState, storeCachedState, storeTagEntry } from './cache-lookup.ts';
import { checkDocuments, type DocumentsByKind } from './cross-checks.ts';
import { decodeText } from './decode-text.ts';
import { printableIssue, sortIssues } from './format.ts';
import { checkHeader, refusedTemplateName } from './headers.ts';
import { asRecord, asString } from './issue.ts';
import { type PinnedManifest, readPinnedManifest } from './manifest-pin.ts';
import { isUnclearNumberIssue, type ParsedFile, parseYamlFile } from './parse.ts';
import { checkSchema } from './schema-check.ts';
import type { UnhashedFile } from './snapshot-manifest.ts';
import { DEFAULT_LOAD_OPTIONS, type LoadOptions, type LoadResult, type ValidationIssue } from './types.ts';

const READ_CONCURRENCY = 8;

/** Whether a load used the cache: served from it, parsed (and stored when valid), or no cache was given. */
export type DesiredCacheStatus = 'hit' | 'miss' | 'off';

/** One file read: its digest and bytes, or the issue that kept it from being read. */
interface ReadFile {
  ref: DesiredFileRef;
  info?: DesiredFileInfo;
  bytes?: Uint8Array;
  issues: ValidationIssue[];
  /** Set once parsed (then `bytes` is dropped). */
  parsed?: ParsedFile;
  /** Why the file has no digest (no `info`): over the size limit, or its read failed. */
  unhashed?: UnhashedFile;
  /** The source's error when the read failed. */
  error?: unknown;
}

function rootIssue(source: DesiredStateSource, message: string): ValidationIssue {
  return { file: source.describe(), line: 1, column: 1, path: '', message };
}

/**
 * True for a read that failed because the file is not there (any more): the sources say so as S3's 404 (status) or a
 * directory's NOT_FOUND / ENOENT (code). Any other failure is not a sign of a torn upload.
 */
function isAbsent(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { status?: unknown; code?: unknown };
  return e.status === 404 || e.code === 'NOT_FOUND' || e.code === 'ENOENT';
}

async function readFile(source: DesiredStateSource, ref: DesiredFileRef, options: LoadOptions): Promise<ReadFile> {
  const at = { file: ref.path, line: 1, column: 1, path: '' };
  const tooBig = (size: number): ReadFile => ({
    ref,
    unhashed: { path: ref.path, size, reason: 'too big' },
    issues: [
      {
        ...at,
        message: `file is ${size} bytes, over the limit of ${options.maxFileBytes} bytes`,
        found: `${size} bytes`,
      },
    ],
  });
  // Invalid as it stands (not a source failure): an issue of the file, like a syntax error, never retried.
  if (ref.problem !== undefined) {
    return {
      ref,
      unhashed: { path: ref.path, size: ref.size, reason: 'unreadable' },
      issues: [{ ...at, message: ref.problem }],
    };
  }
  if (ref.size > options.maxFileBytes) return tooBig(ref.size);
  let read: { bytes: Uint8Array; version?: string; size?: number };
  try {
    // The listed size was within the limit, but the file may have been replaced since: never load a huge one.
    read = await source.read(ref.path, { maxBytes: options.maxFileBytes });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      ref,
      error,
      unhashed: { path: ref.path, size: ref.size, reason: isAbsent(error) ? 'absent' : 'unreadable' },
      issues: [{ ...at, message: `cannot read file: ${reason}` }],
    };
  }
  if (read.size !== undefined && read.size > options.maxFileBytes) return tooBig(read.size);
  if (read.bytes.length > options.maxFileBytes) return tooBig(read.bytes.length);
  const version = read.version ?? ref.version;
  const info: DesiredFileInfo = {
    path: ref.path,
    sha256: hash('sha256', read.bytes, 'hex'), // one-shot: no Hash object per file
    ...(version ? { version } : {}),
  };
  return { ref, info, bytes: read.bytes, issues: [] };
}

function parseFile(file: ReadFile, options: LoadOptions): ParsedFile {
  if (file.bytes === undefined) return { documents: [], issues: file.issues };
  const decoded = decodeText(file.ref.path, file.bytes);
  if ('issue' in decoded) return { documents: [], issues: [decoded.issue] };
  return parseYamlFile(file.ref.path, decoded.text, options);
}

/** Parses a file once, dropping its bytes (no longer needed: let them go while the next file parses). */
function parseInPlace(file: ReadFile, options: LoadOptions): ParsedFile {
  if (file.parsed === undefined) {
    file.parsed = parseFile(file, options);
    file.bytes = undefined;
  }
  return file.parsed;
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

/**
 * Leaves out a number's "has a leading zero" or "too large" issue where the schema says text belongs at the same place
 * (an all-digit id written bare: `projectId: 012345678901234567890123`): the schema's issue already says to put it in
 * quotes, and the number's own would first suggest writing another number.
 */
function dropNumbersWhereTextBelongs(issues: ValidationIssue[]): void {
  const at = (i: ValidationIssue) => `${i.file}\0${i.line}\0${i.column}`;
  const text = new Set(issues.filter((i) => i.expected === 'a string' && !isUnclearNumberIssue(i)).map(at));
  if (text.size === 0) return;
  const kept = issues.filter((i) => !(isUnclearNumberIssue(i) && text.has(at(i))));
  issues.splice(0, issues.length, ...kept);
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
 * With `cache`, a state validated before from the same bytes is reused (identical result; see cache.ts).
 */
export async function loadDesiredState(
  source: DesiredStateSource,
  overrides: Partial<LoadOptions> = {},
  cache?: DesiredStateCache,
): Promise<LoadResult> {
  return (await loadDesiredStateCached(source, overrides, cache)).result;
}

/** What loadDesiredStateCached resolves to. */
export interface CachedLoad {
  result: LoadResult;
  cache: DesiredCacheStatus;
  /**
   * When every file was listed but the state did not validate: the files read (path and SHA-256), so that a run can
   * still tell a torn upload from a broken one (snapshot-check.ts). A valid state has them in `state.files`.
   */
  invalidFiles?: DesiredFileInfo[];
  /** With `invalidFiles`: the listed files that have no digest (over the size limit, or unreadable). */
  unhashedFiles?: UnhashedFile[];
  /**
   * The source's own error when the listing or a file's read failed (S3 throttled, a network error): the desired state
   * could not be read, which says nothing of its validity, so a run reports this error rather than the issues.
   */
  sourceError?: unknown;
}

/**
 * loadDesiredState, also saying whether the cache served the state. Never rejects. `authKey` authenticates the
 * cache's entries (cache.ts deriveCacheAuthKey); without it entries are only checked for integrity.
 */
export async function loadDesiredStateCached(
  source: DesiredStateSource,
  overrides: Partial<LoadOptions> = {},
  cache?: DesiredStateCache,
  authKey?: Uint8Array,
): Promise<CachedLoad> {
  try {
    const loaded = await load(source, { ...DEFAULT_LOAD_OPTIONS, ...overrides }, cache, authKey);
    // One exit for every issue: whatever a check quoted from the files, the issues are printable (format.ts).
    if (!loaded.result.ok) loaded.result = { ok: false, issues: loaded.result.issues.map(printableIssue) };
    return loaded;
  } catch (error) {
    // A bug of this module, not of the input: reported (without a stack, which could quote file contents), never thrown.
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    const issue = rootIssue(source, `internal error while loading the desired state: ${reason}`);
    return {
      result: { ok: false, issues: [printableIssue(issue)] },
      cache: cache ? 'miss' : 'off',
    };
  }
}

async function load(
  source: DesiredStateSource,
  options: LoadOptions,
  cache: DesiredStateCache | undefined,
  authKey: Uint8Array | undefined,
): Promise<CachedLoad> {
  const status: DesiredCacheStatus = cache ? 'miss' : 'off';
  let refs: DesiredFileRef[];
  try {
    refs = (await source.list()).filter((ref) => ref.problem !== undefined || /\.ya?ml$/i.test(ref.path));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      result: { ok: false, issues: [rootIssue(source, `cannot list the desired-state files: ${reason}`)] },
      cache: status,
      sourceError: error,
    };
  }
  refs.sort(byPath);
  if (refs.length > options.maxFiles) {
    const issue = rootIssue(source, `${refs.length} YAML files, over the limit of ${options.maxFiles}`);
    return { result: { ok: false, issues: [issue] }, cache: status };
  }
  // With a content tag on every file (and none over the size limit, whose issue only a read reports), the tag entry
  // may name the state entry outright: a hit without reading any file.
  const tagKey =
    cache && refs.length > 0 && refs.every((r) => r.size <= options.maxFileBytes)
      ? desiredTagKey(options, refs)
      : undefined;
  if (cache && tagKey) {
    const paths = refs.map((r) => r.path);
    const hit = await lookupTaggedState(cache, tagKey, paths, source, options, authKey);
    if (hit) return { result: { ok: true, ...hit }, cache: 'hit' };
  }
  // Without a cache each file is parsed as soon as it is read (parsing overlaps the other reads in flight); with one,
  // every file must be hashed before a hit or miss is known, so parsing waits.
  const read = await mapLimited(refs, READ_CONCURRENCY, async (ref) => {
    const file = await readFile(source, ref, options);
    if (!cache) parseInPlace(file, options);
    return file;
  });
  const files = read.flatMap((r) => (r.info ? [r.info] : []));
  let key: string | undefined;
  const remember = async (contentKey: string) => {
    if (cache && tagKey) await storeTagEntry(cache, tagKey, { contentKey, files }, authKey);
  };
  if (cache && refs.length > 0 && files.length === read.length) {
    key = desiredCacheKey(options, files);
    const hit = await lookupCachedState(cache, key, source, files, options, authKey);
    if (hit) {
      await remember(key);
      return { result: { ok: true, ...hit }, cache: 'hit' };
    }
  }
  const parsed = read.map((r) => parseInPlace(r, options));
  const { result, pinError } = await validate(source, options, refs.length, files, parsed);
  parsed.length = 0; // the documents are garbage once built: not kept alive while the entry is written
  for (const r of read) r.parsed = undefined;
  if (result.ok && cache && key) {
    await storeCachedState(cache, key, result.state, result.summary, authKey);
    await remember(key);
  }
  if (result.ok) return { result, cache: status };
  const unhashedFiles = read.flatMap((r) => (r.unhashed ? [r.unhashed] : []));
  const sourceError = read.find((r) => r.error !== undefined)?.error ?? pinError;
  return {
    result,
    cache: status,
    invalidFiles: files,
    ...(unhashedFiles.length > 0 ? { unhashedFiles } : {}),
    ...(sourceError === undefined ? {} : { sourceError }),
  };
}

async function validate(
  source: DesiredStateSource,
  options: LoadOptions,
  fileCount: number,
  files: DesiredFileInfo[],
  read: ParsedFile[],
): Promise<{ result: LoadResult; pinError?: unknown }> {
  const issues: ValidationIssue[] = read.flatMap((r) => r.issues);
  const docs: DocumentsByKind = { Project: [], AlertTemplate: [], Organization: [], Settings: [] };
  const refusedTemplates = new Set<string>(read.flatMap((r) => r.refusedTemplates ?? []));
  for (const document of read.flatMap((r) => r.documents)) {
    const header = checkHeader(document);
    if ('issue' in header) {
      issues.push(header.issue);
      const refused = refusedTemplateName(document);
      if (refused !== undefined) refusedTemplates.add(refused);
      continue;
    }
    issues.push(...checkSchema(document, document.value));
    docs[header.kind].push(document);
  }
  dropNumbersWhereTextBelongs(issues);
  const documentCount = read.reduce((n, r) => n + r.documents.length, 0);
  if (fileCount === 0 || (issues.length === 0 && documentCount === 0)) {
    const message = `no desired-state documents under ${source.describe()}: an empty desired state is refused (it would manage nothing, and could read as "delete everything"); add Project or Organization documents`;
    issues.push(rootIssue(source, message));
  } else if (issues.length === 0 && docs.Project.length === 0 && docs.Organization.length === 0) {
    issues.push(
      rootIssue(source, `no Project or Organization documents under ${source.describe()}: nothing to manage`),
    );
  }
  issues.push(...checkDocuments(docs, refusedTemplates));
  let pin: PinnedManifest | undefined;
  let pinError: unknown;
  const settings = docs.Settings[0];
  const pinPath = asString(asRecord(asRecord(asRecord(settings?.value)?.spec)?.versionManifest)?.pin);
  if (settings && pinPath !== undefined && /^[^/].*\.json$/.test(pinPath) && !pinPath.split('/').includes('..')) {
    const pinned = await readPinnedManifest(settings, pinPath, source, options);
    if ('issue' in pinned) {
      issues.push(pinned.issue);
      // Not there is an issue of the desired state; not readable now (throttled, refused) is the source's failure.
      if (pinned.readError !== undefined && !isAbsent(pinned.readError)) pinError = pinned.readError;
    } else pin = pinned.pin;
  }
  if (issues.length > 0) {
    const result: LoadResult = { ok: false, issues: capIssues(sortIssues(issues), options.maxIssues) };
    return pinError === undefined ? { result } : { result, pinError };
  }
  const state = buildState(docs, files, pin);
  return { result: { ok: true, state, summary: summarize(state, docs.AlertTemplate.length, files.length) } };
}
