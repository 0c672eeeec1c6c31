/**
 * One desired-state cache entry as text, three lines: a header (JSON: format, key, loader, summary, pinned manifest),
 * the DesiredState as JSON, and a trailer with the body's sha256 (last, so the entry can be written piece by piece
 * without ever holding the whole text). Decoding trusts nothing: a wrong format or key, a checksum mismatch, bad JSON
 * or a state of the wrong shape all decode to undefined (a miss), never to an exception.
 */
import { createHash } from 'node:crypto';
import { type DesiredState, MODES } from '../model.ts';
import { CACHE_FORMAT_VERSION, loaderFingerprint } from './cache.ts';
import { isJsonSafe } from './json-safe.ts';

/** The `format` field of every entry. */
export const CACHE_ENTRY_FORMAT = 'opsman-gitops/desired-state-cache';

/** What an entry holds once decoded. */
export interface CacheEntry {
  state: DesiredState;
  summary: string;
  /** The pinned version manifest the state embeds: a hit is valid only while it still has this sha256. */
  pin?: { path: string; sha256: string };
}

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

/** The body of a state as JSON text in pieces (one per element of a top-level array): JSON.stringify(state), split. */
function* bodyPieces(state: DesiredState): Generator<string> {
  let first = true;
  for (const [name, value] of Object.entries(state)) {
    yield `${first ? '{' : ','}${JSON.stringify(name)}:`;
    first = false;
    if (Array.isArray(value)) {
      yield '[';
      for (let i = 0; i < value.length; i++) yield `${i === 0 ? '' : ','}${JSON.stringify(value[i])}`;
      yield ']';
    } else yield JSON.stringify(value);
  }
  yield first ? '{}' : '}';
}

/**
 * The entry of a loaded state as pieces of text to write in order (their concatenation is the entry), or undefined
 * when the state would not survive JSON unchanged. Lazy: each piece is made when it is asked for.
 */
export function encodeCacheEntryPieces(
  key: string,
  state: DesiredState,
  summary: string,
): Iterable<string> | undefined {
  if (!isJsonSafe(state)) return undefined; // also refuses cycles
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
    yield `${JSON.stringify(header)}\n`;
    const hash = createHash('sha256');
    for (const piece of bodyPieces(state)) {
      hash.update(piece);
      yield piece;
    }
    yield `\n${JSON.stringify({ stateSha256: hash.digest('hex') })}`;
  })();
}

/** The entry of a loaded state as one text (encodeCacheEntryPieces joined), or undefined. */
export function encodeCacheEntry(key: string, state: DesiredState, summary: string): string | undefined {
  const pieces = encodeCacheEntryPieces(key, state, summary);
  return pieces === undefined ? undefined : [...pieces].join('');
}

/** sha256 of a long string's UTF-8, fed in slices: never one native copy of the whole text (about 7 MB). */
function sha256Of(text: string): string {
  const hash = createHash('sha256');
  for (let i = 0; i < text.length; i += HASH_SLICE) hash.update(text.slice(i, i + HASH_SLICE));
  return hash.digest('hex');
}

/** The entry stored under `key`, or undefined when `text` is not a sound entry for that key. */
export function decodeCacheEntry(text: string, key: string): CacheEntry | undefined {
  try {
    const first = text.indexOf('\n');
    const last = text.lastIndexOf('\n');
    if (first < 0 || last <= first) return undefined;
    const header = JSON.parse(text.slice(0, first)) as Partial<Header> | null;
    if (!isHeader(header) || header.key !== key || header.loader !== loaderFingerprint()) return undefined;
    const trailer = JSON.parse(text.slice(last + 1)) as { stateSha256?: unknown } | null;
    const body = text.slice(first + 1, last);
    if (sha256Of(body) !== trailer?.stateSha256) return undefined;
    const state: unknown = JSON.parse(body);
    if (!isDesiredState(state)) return undefined;
    const pin = state.settings.versionManifest?.pin;
    if ((pin === undefined) !== (header.pin === null)) return undefined;
    if (pin && header.pin && (pin.path !== header.pin.path || pin.sha256 !== header.pin.sha256)) return undefined;
    return { state, summary: header.summary, ...(header.pin ? { pin: header.pin } : {}) };
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
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === 'string';
const isBool = (v: unknown): v is boolean => typeof v === 'boolean';
const optional = (v: unknown, check: (x: unknown) => boolean) => v === undefined || check(v);
const isMode = (v: unknown) => (MODES as readonly unknown[]).includes(v);
const isSource = (v: unknown) => isRec(v) && isStr(v.file) && Number.isInteger(v.line) && Number.isInteger(v.column);
const arrayOf = (v: unknown, check: (x: unknown) => boolean) => Array.isArray(v) && v.every(check);

function isAlertConfig(v: unknown): boolean {
  return (
    isRec(v) &&
    isStr(v.key) &&
    isStr(v.eventTypeName) &&
    isBool(v.enabled) &&
    arrayOf(v.matchers, isRec) &&
    arrayOf(v.notifications, isRec) &&
    optional(v.metricThreshold, isRec) &&
    optional(v.threshold, isRec) &&
    optional(v.template, isStr) &&
    isSource(v.source)
  );
}

function isProject(v: unknown): boolean {
  return (
    isRec(v) &&
    isStr(v.name) &&
    isStr(v.projectId) &&
    optional(v.orgId, isStr) &&
    optional(v.mode, isMode) &&
    optional(v.defaultServerType, isStr) &&
    optional(v.auditLogRotation, (r) => isRec(r) && isBool(r.enforce)) &&
    arrayOf(v.alertConfigs, isAlertConfig) &&
    isBool(v.prune) &&
    arrayOf(v.protect, isStr) &&
    isSource(v.source)
  );
}

function isOrganization(v: unknown): boolean {
  return (
    isRec(v) &&
    isStr(v.name) &&
    isStr(v.orgId) &&
    optional(v.mode, isMode) &&
    optional(v.defaultServerType, isStr) &&
    isSource(v.source)
  );
}

function isSettings(v: unknown): boolean {
  if (!isRec(v) || !isMode(v.mode) || !isRec(v.prune) || !isRec(v.archive)) return false;
  if (!Number.isInteger(v.prune.maxDeletes) || !isBool(v.prune.allowEmpty)) return false;
  if (!isBool(v.archive.versionManifest) || !isBool(v.archive.usage)) return false;
  const manifest = v.versionManifest;
  if (manifest === undefined) return true;
  if (!isRec(manifest)) return false;
  const pin = manifest.pin;
  return optional(pin, (p) => isRec(p) && isStr(p.path) && isStr(p.text) && isStr(p.sha256) && HEX64.test(p.sha256));
}

/** A structural check of a parsed state: the fields the pipeline relies on have the types it expects. */
function isDesiredState(v: unknown): v is DesiredState {
  return (
    isRec(v) &&
    arrayOf(v.projects, isProject) &&
    arrayOf(v.organizations, isOrganization) &&
    isSettings(v.settings) &&
    arrayOf(v.files, (f) => isRec(f) && isStr(f.path) && isStr(f.sha256) && optional(f.version, isStr)) &&
    isStr(v.digest) &&
    HEX64.test(v.digest)
  );
}
