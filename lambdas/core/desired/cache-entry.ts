/**
 * One desired-state cache entry as text, three lines: a header (JSON: format, key, loader, summary, pinned manifest),
 * the body (JSON), and a trailer with the HMAC-SHA-256 of the header line and the body under the cache's auth key
 * (cache.ts deriveCacheAuthKey; last, so the entry can be written piece by piece without ever holding the whole text).
 * Decoding trusts nothing: a wrong format or key, a MAC that does not verify (corruption, or an entry not written by
 * a holder of the key), bad JSON or a body of the wrong shape all decode to undefined (a miss), never to an exception.
 *
 * The body is the DesiredState made smaller, because JSON.parse of it is most of a cache hit (7 MB took ~100 ms at
 * 1,000 projects x 20 alert configs): without `files` (the loader has just read them: the key covers them, and the
 * stored digest must equal theirs), and with each alert config's source as `[line, column]` when it is in its
 * project's file (else `[line, column, file]`). Decoding restores both in one pass over the parsed body, with the
 * same property order, so a hit is identical to a cold load down to JSON.stringify.
 */

import { createHmac, type Hmac, timingSafeEqual } from 'node:crypto';
import { isRecord } from '../../../shared/is-record.ts';
import { changeWindowsProblem } from '../change-window-shape.ts';
import { type DesiredFileInfo, type DesiredProject, type DesiredState, MODES, type SourceLocation } from '../model.ts';
import { CACHE_FORMAT_VERSION, loaderFingerprint, UNKEYED_CACHE_AUTH_KEY } from './cache.ts';
import { isJsonSafe } from './json-safe.ts';

/** The `format` field of every entry. */
export const CACHE_ENTRY_FORMAT = 'opsman-gitops/desired-state-cache';

/** What an entry holds once decoded: everything of the state but its files, which the loader supplies (stateOf). */
export interface CacheEntry {
  body: CachedBody;
  summary: string;
  /** The pinned version manifest the state embeds: a hit is valid only while it still has this sha256. */
  pin?: { path: string; sha256: string };
}

/** A DesiredState without `files`. */
export type CachedBody = Omit<DesiredState, 'files'>;

interface Header {
  format: string;
  formatVersion: number;
  key: string;
  loader: string;
  summary: string;
  pin: { path: string; sha256: string } | null;
}

const HEX64 = /^[0-9a-f]{64}$/;
/** Characters hashed at once: at most 96 KB of UTF-8, under the allocator's 128 KB threshold for a separate mapping. */
const HASH_SLICE = 32 * 1024;

/** The state of a decoded body and the files it was loaded from (sorted by path), in buildState's property order. */
export function stateOf(body: CachedBody, files: DesiredFileInfo[]): DesiredState {
  return {
    projects: body.projects,
    organizations: body.organizations,
    settings: body.settings,
    files,
    digest: body.digest,
  };
}

/** A source exactly `{file, line, column}` in that order: only those compact without loss. */
function isPlainSource(source: SourceLocation): boolean {
  let i = 0;
  for (const key in source) {
    if (key !== (i === 0 ? 'file' : i === 1 ? 'line' : i === 2 ? 'column' : '')) return false;
    i++;
  }
  return i === 3;
}

/** A project with its alert configs' sources compacted, or undefined when one cannot be (then nothing is cached). */
function compactProject(project: DesiredProject): Record<string, unknown> | undefined {
  const file = project.source.file;
  const alertConfigs: Record<string, unknown>[] = [];
  for (const config of project.alertConfigs) {
    const source = config.source;
    if (!isPlainSource(source)) return undefined;
    alertConfigs.push({
      ...config,
      source: source.file === file ? [source.line, source.column] : [source.line, source.column, source.file],
    });
  }
  return { ...project, alertConfigs };
}

/** The body as JSON text in pieces (one per project): never the whole text at once. Undefined when not compactable. */
function bodyPieces(state: DesiredState): string[] | undefined {
  const projects: string[] = [];
  for (const project of state.projects) {
    const compact = compactProject(project);
    if (compact === undefined) return undefined;
    projects.push(JSON.stringify(compact));
  }
  return projects;
}

/**
 * The entry of a loaded state as pieces of text to write in order (their concatenation is the entry), or undefined
 * when the state would not survive JSON unchanged.
 */
export function encodeCacheEntryPieces(
  key: string,
  state: DesiredState,
  summary: string,
  authKey: Uint8Array = UNKEYED_CACHE_AUTH_KEY,
): Iterable<string> | undefined {
  if (!isJsonSafe(state)) return undefined; // also refuses cycles
  const projects = bodyPieces(state);
  if (projects === undefined) return undefined;
  const pin = state.settings.versionManifest?.pin;
  const header: Header = {
    format: CACHE_ENTRY_FORMAT,
    formatVersion: CACHE_FORMAT_VERSION,
    key,
    loader: loaderFingerprint(),
    summary,
    pin: pin ? { path: pin.path, sha256: pin.sha256 } : null,
  };
  return (function* () {
    // JSON.stringify never emits a raw newline, so newlines separate the three lines.
    const mac = createHmac('sha256', authKey);
    const emit = (piece: string) => {
      mac.update(piece);
      return piece;
    };
    yield emit(`${JSON.stringify(header)}\n`);
    yield emit('{"projects":[');
    for (let i = 0; i < projects.length; i++) yield emit(i === 0 ? (projects[i] as string) : `,${projects[i]}`);
    const rest = `],"organizations":${JSON.stringify(state.organizations)},"settings":${JSON.stringify(state.settings)},"digest":${JSON.stringify(state.digest)}}`;
    yield emit(rest);
    yield `\n${JSON.stringify({ mac: mac.digest('hex') })}`;
  })();
}

/** The entry of a loaded state as one text (encodeCacheEntryPieces joined), or undefined. */
export function encodeCacheEntry(
  key: string,
  state: DesiredState,
  summary: string,
  authKey: Uint8Array = UNKEYED_CACHE_AUTH_KEY,
): string | undefined {
  const pieces = encodeCacheEntryPieces(key, state, summary, authKey);
  return pieces === undefined ? undefined : [...pieces].join('');
}

/** Feeds a long string's UTF-8 in slices: never one native copy of the whole text (about 7 MB). */
function updateInSlices(mac: Hmac, text: string, from: number, to: number): Hmac {
  for (let i = from; i < to; i += HASH_SLICE) mac.update(text.slice(i, Math.min(i + HASH_SLICE, to)));
  return mac;
}

/** True when `hex` is the MAC `mac` computed (compared in constant time). */
function macMatches(mac: Hmac, hex: unknown): boolean {
  if (typeof hex !== 'string' || !HEX64.test(hex)) return false;
  return timingSafeEqual(mac.digest(), Buffer.from(hex, 'hex'));
}

/**
 * The header (parsed) and body (text) of a three-line signed entry, the framing of both kinds of cache entry (this
 * file's and cache-tags.ts's): undefined when the framing is wrong, `headerOk` refuses the header (checked first: a
 * foreign entry costs no MAC), or the MAC does not verify under `authKey`. Throws on a header or trailer that is not
 * JSON (callers catch).
 */
export function openSignedEntry(
  text: string,
  authKey: Uint8Array,
  headerOk: (header: unknown) => boolean,
): { header: unknown; body: string } | undefined {
  const first = text.indexOf('\n');
  const last = text.lastIndexOf('\n');
  if (first < 0 || last <= first) return undefined;
  const header: unknown = JSON.parse(text.slice(0, first));
  if (!headerOk(header)) return undefined;
  const trailer = JSON.parse(text.slice(last + 1)) as { mac?: unknown } | null;
  // The MAC covers the header line with its newline, then the body: exactly what was written before the trailer.
  if (!macMatches(updateInSlices(createHmac('sha256', authKey), text, 0, last), trailer?.mac)) return undefined;
  return { header, body: text.slice(first + 1, last) };
}

/** The entry stored under `key`, or undefined when `text` is not a sound entry for that key. */
export function decodeCacheEntry(
  text: string,
  key: string,
  authKey: Uint8Array = UNKEYED_CACHE_AUTH_KEY,
): CacheEntry | undefined {
  try {
    const opened = openSignedEntry(
      text,
      authKey,
      (h) =>
        isHeader(h as Partial<Header> | null) &&
        (h as Header).key === key &&
        (h as Header).loader === loaderFingerprint(),
    );
    if (opened === undefined) return undefined;
    const header = opened.header as Header;
    const parsed: unknown = JSON.parse(opened.body);
    if (!isBody(parsed)) return undefined;
    const pin = parsed.settings.versionManifest?.pin;
    if ((pin === undefined) !== (header.pin === null)) return undefined;
    if (pin && header.pin && (pin.path !== header.pin.path || pin.sha256 !== header.pin.sha256)) return undefined;
    return { body: parsed, summary: header.summary, ...(header.pin ? { pin: header.pin } : {}) };
  } catch {
    return undefined;
  }
}

function isHeader(h: Partial<Header> | null): h is Header {
  if (typeof h !== 'object' || h === null) return false;
  if (h.format !== CACHE_ENTRY_FORMAT || h.formatVersion !== CACHE_FORMAT_VERSION) return false;
  if (typeof h.key !== 'string' || typeof h.loader !== 'string' || typeof h.summary !== 'string') return false;
  if (h.pin === null) return true;
  return typeof h.pin === 'object' && typeof h.pin?.path === 'string' && HEX64.test(String(h.pin?.sha256));
}

type Rec = Record<string, unknown>;
const isStr = (v: unknown): v is string => typeof v === 'string';
const isBool = (v: unknown): v is boolean => typeof v === 'boolean';
const MODE_SET = new Set<unknown>(MODES);
const isMode = (v: unknown) => MODE_SET.has(v);
const isSource = (v: unknown) => isRecord(v) && isStr(v.file) && Number.isInteger(v.line) && Number.isInteger(v.column);

/** A record of full sources (`secretSources`: stored as written, they are few). */
function isSourceRecord(v: unknown): boolean {
  if (!isRecord(v)) return false;
  for (const key in v) if (!isSource(v[key])) return false;
  return true;
}

function isRecArray(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (!isRecord(v[i])) return false;
  return true;
}

function isStrArray(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string') return false;
  return true;
}

/**
 * Checks one stored alert config and restores its source (`[line, column(, file)]` -> `{file, line, column}`, in
 * place: the property keeps its position). False when it has the wrong shape.
 */
function restoreAlertConfig(v: unknown, projectFile: string): boolean {
  if (!isRecord(v)) return false;
  if (!isStr(v.key) || !isStr(v.eventTypeName) || !isBool(v.enabled)) return false;
  if (!isRecArray(v.matchers) || !isRecArray(v.notifications)) return false;
  if (v.metricThreshold !== undefined && !isRecord(v.metricThreshold)) return false;
  if (v.threshold !== undefined && !isRecord(v.threshold)) return false;
  if (v.template !== undefined && !isStr(v.template)) return false;
  if (v.ignoreFields !== undefined && !isStrArray(v.ignoreFields)) return false;
  if (v.renamedFrom !== undefined && !isStrArray(v.renamedFrom)) return false;
  if (v.secretSources !== undefined && !isSourceRecord(v.secretSources)) return false;
  const s = v.source;
  if (!Array.isArray(s) || (s.length !== 2 && s.length !== 3)) return false;
  // Indexed, not destructured: array destructuring goes through the iterator protocol, 20,000 times per hit.
  const line: unknown = s[0];
  const column: unknown = s[1];
  const file: unknown = s.length === 3 ? s[2] : projectFile;
  if (!Number.isInteger(line) || !Number.isInteger(column) || !isStr(file)) return false;
  v.source = { file, line, column };
  return true;
}

function restoreProject(v: unknown): boolean {
  if (!isRecord(v) || !isStr(v.name) || !isStr(v.projectId) || !isSource(v.source)) return false;
  if (v.orgId !== undefined && !isStr(v.orgId)) return false;
  if (v.mode !== undefined && !isMode(v.mode)) return false;
  if (v.defaultServerType !== undefined && !isStr(v.defaultServerType)) return false;
  const rotation = v.auditLogRotation;
  if (rotation !== undefined && !(isRecord(rotation) && isBool(rotation.enforce))) return false;
  if (!isBool(v.prune) || !isStrArray(v.protect) || !isStrArray(v.release) || !Array.isArray(v.alertConfigs))
    return false;
  const file = (v.source as Rec).file as string;
  const configs = v.alertConfigs as unknown[];
  for (let i = 0; i < configs.length; i++) if (!restoreAlertConfig(configs[i], file)) return false;
  return true;
}

function isOrganization(v: unknown): boolean {
  return (
    isRecord(v) &&
    isStr(v.name) &&
    isStr(v.orgId) &&
    (v.mode === undefined || isMode(v.mode)) &&
    (v.defaultServerType === undefined || isStr(v.defaultServerType)) &&
    isSource(v.source)
  );
}

function isSettings(v: unknown): boolean {
  if (!isRecord(v) || !isMode(v.mode) || !isRecord(v.prune) || !isRecord(v.archive)) return false;
  if (!Number.isInteger(v.prune.maxDeletes) || !isBool(v.prune.allowEmpty)) return false;
  if (!isBool(v.archive.versionManifest) || !isBool(v.archive.usage)) return false;
  if (v.changeWindows !== undefined && changeWindowsProblem(v.changeWindows, 'changeWindows') !== undefined)
    return false;
  const manifest = v.versionManifest;
  if (manifest === undefined) return true;
  if (!isRecord(manifest)) return false;
  const pin = manifest.pin;
  return (
    pin === undefined ||
    (isRecord(pin) && isStr(pin.path) && isStr(pin.text) && isStr(pin.sha256) && HEX64.test(pin.sha256))
  );
}

/**
 * One pass over a parsed body: the fields the pipeline relies on have the types it expects, and alert-config sources
 * are restored on the way (a body that fails is dropped whole, so a half-restored one is never used).
 */
function isBody(v: unknown): v is CachedBody {
  if (!isRecord(v) || !Array.isArray(v.projects) || !Array.isArray(v.organizations)) return false;
  if (!isStr(v.digest) || !HEX64.test(v.digest) || !isSettings(v.settings)) return false;
  for (const organization of v.organizations) if (!isOrganization(organization)) return false;
  for (const project of v.projects) if (!restoreProject(project)) return false;
  return true;
}
