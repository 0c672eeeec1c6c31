// Scenario: a load through the desired-state cache returns exactly what a cold load returns, and every change of input, bad entry or failing store falls back to a cold load.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { renderDesiredState } from '../../../bench/desired.ts';
import { buildWorld } from '../../../bench/world.ts';
import { FsDesiredStateSource } from '../../../lambdas/adapters/local/desired-source-fs.ts';
import { deriveCacheAuthKey, desiredCacheKey, UNKEYED_CACHE_AUTH_KEY } from '../../../lambdas/core/desired/cache.ts';
import {
  decodeCacheEntry,
  encodeCacheEntry,
  encodeCacheEntryPieces,
  openSignedEntry,
  stateOf,
} from '../../../lambdas/core/desired/cache-entry.ts';
import {
  DEFAULT_LOAD_OPTIONS,
  type LoadResult,
  loadDesiredState,
  loadDesiredStateCached,
} from '../../../lambdas/core/desired/index.ts';
import type { DesiredStateSource } from '../../../lambdas/core/ports.ts';
import { EXAMPLE_ROOT, filesOf, MapCache, sourceOf } from './cache-fakes.ts';
import { MemorySource } from './memory-source.ts';

const EXAMPLE = filesOf(EXAMPLE_ROOT);
const BENCH = Object.fromEntries(
  renderDesiredState(buildWorld({ projects: 6, alerts: 4 })).map((f) => [f.path, f.text]),
);

function ok(result: LoadResult): Extract<LoadResult, { ok: true }> {
  if (!result.ok) throw new Error(JSON.stringify(result.issues.slice(0, 3)));
  return result;
}

/** Cold load, then two loads through `cache`: statuses, and each result next to the cold one. */
async function coldWarm(source: () => DesiredStateSource, cache = new MapCache()) {
  const cold = await loadDesiredState(source());
  const first = await loadDesiredStateCached(source(), {}, cache);
  const second = await loadDesiredStateCached(source(), {}, cache);
  return { cold, first, second, cache };
}

describe('cold and warm loads are identical', () => {
  it.each([
    ['the example desired state (directory)', () => new FsDesiredStateSource(EXAMPLE_ROOT)],
    ['the example desired state (memory)', () => sourceOf(EXAMPLE)],
    ['the benchmark desired state, small size', () => sourceOf(BENCH)],
  ])('%s', async (_name, source) => {
    // A directory's files older than a few seconds carry content tags: their listing gets a tag entry too.
    const tagged = (await source().list()).every((ref) => ref.contentTag !== undefined);
    const { cold, first, second, cache } = await coldWarm(source);
    expect(first.cache).toBe('miss');
    expect(second.cache).toBe('hit');
    expect(cache.puts).toHaveLength(tagged ? 2 : 1);
    const c = ok(cold);
    for (const warm of [ok(first.result), ok(second.result)]) {
      expect(warm.state).toStrictEqual(c.state);
      expect(warm.summary).toBe(c.summary);
    }
    expect(JSON.stringify(ok(second.result).state)).toBe(JSON.stringify(c.state));
  });

  it('says off without a cache, and never stores an invalid desired state', async () => {
    expect((await loadDesiredStateCached(sourceOf(EXAMPLE))).cache).toBe('off');
    const cache = new MapCache();
    const broken = { ...EXAMPLE, 'projects/search.yaml': 'apiVersion: opsman-gitops/v1\nkind: Project\n' };
    for (let i = 0; i < 2; i++) {
      const { result, cache: status } = await loadDesiredStateCached(sourceOf(broken), {}, cache);
      expect(result.ok).toBe(false);
      expect(status).toBe('miss');
    }
    expect(cache.puts).toEqual([]);
  });
});

describe('every change of input misses', () => {
  const yamlPaths = Object.keys(EXAMPLE).filter((p) => p.endsWith('.yaml'));

  it.each(yamlPaths)('one byte added to %s', async (changed) => {
    const cache = new MapCache();
    await loadDesiredStateCached(sourceOf(EXAMPLE), {}, cache);
    const edited = { ...EXAMPLE, [changed]: `${EXAMPLE[changed]}\n` };
    const warm = await loadDesiredStateCached(sourceOf(edited), {}, cache);
    expect(warm.cache).toBe('miss');
    expect(ok(warm.result).state).toStrictEqual(ok(await loadDesiredState(sourceOf(edited))).state);
  });

  it('a renamed file', async () => {
    const cache = new MapCache();
    await loadDesiredStateCached(sourceOf(EXAMPLE), {}, cache);
    const { 'projects/search.yaml': search, ...rest } = EXAMPLE;
    const renamed = { ...rest, 'projects/search-prod.yaml': search as string };
    const warm = await loadDesiredStateCached(sourceOf(renamed), {}, cache);
    expect(warm.cache).toBe('miss');
    expect(ok(warm.result).state.files.map((f) => f.path)).toContain('projects/search-prod.yaml');
  });

  it('changed load options', async () => {
    const cache = new MapCache();
    await loadDesiredStateCached(sourceOf(EXAMPLE), {}, cache);
    const warm = await loadDesiredStateCached(sourceOf(EXAMPLE), { maxAliasCount: 50 }, cache);
    expect(warm.cache).toBe('miss');
    expect(cache.entries.size).toBe(2);
    const tight = await loadDesiredStateCached(sourceOf(EXAMPLE), { maxFileBytes: 10 }, cache);
    expect(tight.cache).toBe('miss');
    expect(tight.result.ok).toBe(false);
  });

  it('a changed pinned manifest (the YAML unchanged): the new manifest is loaded', async () => {
    const pinPath = 'manifests/approved.json';
    const cache = new MapCache();
    const first = ok((await loadDesiredStateCached(sourceOf(EXAMPLE), {}, cache)).result);
    expect(first.state.settings.versionManifest?.pin?.path).toBe(pinPath);
    const manifest = JSON.parse(EXAMPLE[pinPath] as string) as { versions: unknown[] };
    const edited = { ...EXAMPLE, [pinPath]: JSON.stringify({ ...manifest, versions: manifest.versions.slice(1) }) };
    const warm = await loadDesiredStateCached(sourceOf(edited), {}, cache);
    expect(warm.cache).toBe('miss');
    const cold = ok(await loadDesiredState(sourceOf(edited)));
    expect(ok(warm.result).state).toStrictEqual(cold.state);
    expect(cold.state.settings.versionManifest?.pin?.text).toBe(edited[pinPath]);
    // Same YAML, same key: the entry was replaced by one for the new manifest, which now hits.
    expect(cache.entries.size).toBe(1);
    expect((await loadDesiredStateCached(sourceOf(edited), {}, cache)).cache).toBe('hit');
    expect((await loadDesiredStateCached(sourceOf(EXAMPLE), {}, cache)).cache).toBe('miss');
  });

  it('a pinned manifest that disappeared: a miss, and the cold load reports it', async () => {
    const cache = new MapCache();
    await loadDesiredStateCached(sourceOf(EXAMPLE), {}, cache);
    const { 'manifests/approved.json': _gone, ...rest } = EXAMPLE;
    const warm = await loadDesiredStateCached(sourceOf(rest), {}, cache);
    expect(warm.cache).toBe('miss');
    expect(warm.result.ok).toBe(false);
  });
});

describe('bad entries and failing stores only cost speed', () => {
  const key = () => desiredCacheKey(DEFAULT_LOAD_OPTIONS, []);

  async function primed(): Promise<{ cache: MapCache; key: string; text: string; cold: LoadResult }> {
    const cache = new MapCache();
    const cold = (await loadDesiredStateCached(sourceOf(EXAMPLE), {}, cache)).result;
    const [k, text] = cache.only();
    return { cache, key: k, text, cold };
  }

  const bodyOf = (text: string) => text.slice(text.indexOf('\n') + 1, text.lastIndexOf('\n'));

  /** Header line and body of an entry with its trailer recomputed (unkeyed MAC), so only what was edited is wrong. */
  const remac = (headerAndBody: string) => {
    const mac = createHmac('sha256', UNKEYED_CACHE_AUTH_KEY).update(headerAndBody).digest('hex');
    return `${headerAndBody}\n${JSON.stringify({ mac })}`;
  };

  /** The entry with `edit` applied to its parsed body, and the MAC recomputed (so only the shape is wrong). */
  // biome-ignore lint/suspicious/noExplicitAny: a test pokes at arbitrary fields of the stored body
  type Body = Record<string, any>;
  const rebody = (text: string, edit: (body: Body) => void) => {
    const body = JSON.parse(bodyOf(text)) as Body;
    edit(body);
    return remac(`${text.slice(0, text.indexOf('\n'))}\n${JSON.stringify(body)}`);
  };

  /** The entry with `edit` applied to its header, and the MAC recomputed (so only the header is wrong). */
  const reheader = (text: string, edit: (h: Record<string, unknown>) => void) => {
    const i = text.indexOf('\n');
    const header = JSON.parse(text.slice(0, i)) as Record<string, unknown>;
    edit(header);
    return remac(`${JSON.stringify(header)}${text.slice(i, text.lastIndexOf('\n'))}`);
  };

  it.each<[string, (text: string, key: string) => string]>([
    ['empty', () => ''],
    ['not JSON', () => 'not a cache entry'],
    ['truncated', (t) => t.slice(0, Math.floor(t.length / 2))],
    ['a header only', (t) => t.slice(0, t.indexOf('\n') + 1)],
    ['without its trailer', (t) => t.slice(0, t.lastIndexOf('\n'))],
    ['a trailer with another MAC', (t) => `${t.slice(0, t.lastIndexOf('\n'))}\n{"mac":"${'0'.repeat(64)}"}`],
    ['another format', (t) => reheader(t, (h) => (h.format = 'someone-else/cache'))],
    ['another format version', (t) => reheader(t, (h) => (h.formatVersion = 99))],
    ['another loader', (t) => reheader(t, (h) => (h.loader = '0'.repeat(64)))],
    ['another key', (t) => reheader(t, (h) => (h.key = key()))],
    ['a body that does not match its MAC', (t) => t.replace('"projects":[', '"projects":[ ')],
    [
      'a state of the wrong shape (MAC recomputed)',
      (t) => rebody(t, (b) => (b.projects[0].alertConfigs[0].enabled = 'yes')),
    ],
    [
      'a compact source of the wrong shape (MAC recomputed)',
      (t) => rebody(t, (b) => (b.projects[0].alertConfigs[0].source = [1])),
    ],
    [
      'a full source object where a compact one belongs',
      (t) => rebody(t, (b) => (b.projects[0].alertConfigs[0].source = { file: 'x.yaml', line: 1, column: 1 })),
    ],
    [
      'a digest that is not the digest of the files read (MAC recomputed)',
      (t) => rebody(t, (b) => (b.digest = '0'.repeat(64))),
    ],
    ['a body without projects (MAC recomputed)', (t) => rebody(t, (b) => delete b.projects)],
    [
      // The header's pin is what a hit re-reads; the body's is what it uses: a stale manifest text must never pass.
      'a state whose pinned manifest is not the one its pin record names (MAC recomputed)',
      (t) =>
        rebody(t, (b) => {
          b.settings.versionManifest.pin.text = '{"versions":[]}';
          b.settings.versionManifest.pin.sha256 = '0'.repeat(64);
        }),
    ],
    [
      'a state without the pinned manifest its pin record names (MAC recomputed)',
      (t) => rebody(t, (b) => delete b.settings.versionManifest.pin),
    ],
    [
      'a pin record that disagrees with the state',
      (t) => reheader(t, (h) => (h.pin = { path: 'manifests/other.json', sha256: '0'.repeat(64) })),
    ],
  ])('an entry that is %s is ignored and replaced', async (_name, corrupt) => {
    const { cache, key: k, text, cold } = await primed();
    cache.entries.set(k, corrupt(text, k));
    const again = await loadDesiredStateCached(sourceOf(EXAMPLE), {}, cache);
    expect(again.cache).toBe('miss');
    expect(ok(again.result).state).toStrictEqual(ok(cold).state);
    expect(cache.entries.get(k)).toBe(text);
    expect((await loadDesiredStateCached(sourceOf(EXAMPLE), {}, cache)).cache).toBe('hit');
  });

  // Each field the pipeline relies on, given the wrong type in a body whose MAC is recomputed: decoding refuses it.
  it.each<[string, (b: Body) => void]>([
    ['a digest that is not hex', (b) => (b.digest = 'z'.repeat(64))],
    ['an organization without its orgId', (b) => delete b.organizations[0].orgId],
    ['an organization with an unknown mode', (b) => (b.organizations[0].mode = 'sometimes')],
    ['an organization whose source line is text', (b) => (b.organizations[0].source.line = '3')],
    ['a project with an unknown mode', (b) => (b.projects[1].mode = 'sometimes')],
    ['a project whose protect list holds a number', (b) => (b.projects[0].protect = [1])],
    ['an audit-log rotation without enforce', (b) => delete b.projects[1].auditLogRotation.enforce],
    ['an alert config whose metricThreshold is text', (b) => (b.projects[0].alertConfigs[0].metricThreshold = 'x')],
    ['an alert config whose ignoreFields holds a number', (b) => (b.projects[0].alertConfigs[0].ignoreFields = [1])],
    [
      'an alert config whose secretSources are not sources',
      (b) => (b.projects[0].alertConfigs[0].secretSources = { 'notifications[0].serviceKey': 'x' }),
    ],
    ['a compact source of four parts', (b) => b.projects[0].alertConfigs[0].source.push('x.yaml', 1)],
    ['settings whose prune.maxDeletes is text', (b) => (b.settings.prune.maxDeletes = '5')],
    ['a pinned manifest without its text', (b) => delete b.settings.versionManifest.pin.text],
  ])('decoding refuses a body with %s (MAC recomputed)', async (_name, edit) => {
    const { key: k, text } = await primed();
    expect(decodeCacheEntry(text, k)).toBeDefined();
    expect(decodeCacheEntry(rebody(text, edit), k)).toBeUndefined();
  });

  // The load survives the pin cases through its re-read of the pin's path; decoding must refuse them on its own.
  it.each<[string, (h: Record<string, unknown>) => void]>([
    [
      'whose pin record names another path with the same digest',
      (h) => (h.pin = { ...(h.pin as object), path: 'manifests/other.json' }),
    ],
    ['without its pin record (not even null)', (h) => delete h.pin],
    ['whose summary is not text', (h) => (h.summary = 42)],
  ])('decoding refuses a header %s (MAC recomputed)', async (_name, edit) => {
    const { key: k, text } = await primed();
    expect(decodeCacheEntry(reheader(text, edit), k)).toBeUndefined();
  });

  it('a get that rejects or returns a non-string is a miss', async () => {
    const { cache, cold } = await primed();
    cache.failGet = true;
    const failed = await loadDesiredStateCached(sourceOf(EXAMPLE), {}, cache);
    expect(failed.cache).toBe('miss');
    expect(ok(failed.result).state).toStrictEqual(ok(cold).state);
    const odd = { get: async () => 42 as unknown as string, put: async () => {} };
    expect((await loadDesiredStateCached(sourceOf(EXAMPLE), {}, odd)).cache).toBe('miss');
  });

  it('a put that rejects leaves the load intact', async () => {
    const cache = new MapCache();
    cache.failPut = true;
    const loaded = await loadDesiredStateCached(sourceOf(EXAMPLE), {}, cache);
    expect(loaded.cache).toBe('miss');
    expect(ok(loaded.result).state).toStrictEqual(ok(await loadDesiredState(sourceOf(EXAMPLE))).state);
    expect(cache.puts).toHaveLength(1);
  });

  it('the pieces of an entry join to the entry; its body is the state without files, sources compacted', async () => {
    const { key: k, text, cold } = await primed();
    const state = ok(cold).state;
    const pieces = [...(encodeCacheEntryPieces(k, state, ok(cold).summary) ?? [])];
    expect(pieces.length).toBeGreaterThan(3);
    expect(pieces.join('')).toBe(text);
    expect(text.split('\n')).toHaveLength(3);
    const body = JSON.parse(bodyOf(text));
    expect(Object.keys(body)).toEqual(['projects', 'organizations', 'settings', 'digest']);
    const project = state.projects[0];
    const config = project?.alertConfigs[0];
    expect(body.projects[0].alertConfigs[0].source).toEqual([config?.source.line, config?.source.column]);
    const decoded = decodeCacheEntry(text, k);
    expect(JSON.stringify(decoded && stateOf(decoded.body, state.files))).toBe(JSON.stringify(state));
    expect(bodyOf(text).length).toBeLessThan(JSON.stringify(state).length);
  });

  it('an alert config from a template keeps its file in the compact source, and decodes to the cold state', async () => {
    const cache = new MapCache();
    const cold = ok((await loadDesiredStateCached(sourceOf(BENCH), {}, cache)).result);
    const [k, text] = cache.only();
    const templated = cold.state.projects[0]?.alertConfigs.find((c) => c.template !== undefined);
    expect(templated?.source.file).not.toBe(cold.state.projects[0]?.source.file);
    const index = cold.state.projects[0]?.alertConfigs.indexOf(templated as never) as number;
    const body = JSON.parse(bodyOf(text));
    expect(body.projects[0].alertConfigs[index].source).toEqual([
      templated?.source.line,
      templated?.source.column,
      templated?.source.file,
    ]);
    const decoded = decodeCacheEntry(text, k);
    expect(decoded && stateOf(decoded.body, cold.state.files)).toStrictEqual(cold.state);
  });

  it('a state whose sources carry anything but file, line and column is not cached (it would not round-trip)', async () => {
    const { key: k, cold } = await primed();
    const state = structuredClone(ok(cold).state);
    const source = state.projects[0]?.alertConfigs[0]?.source as unknown as Record<string, unknown>;
    source.extra = 1;
    expect(encodeCacheEntry(k, state, 's')).toBeUndefined();
    const reordered = structuredClone(ok(cold).state);
    const config = reordered.projects[0]?.alertConfigs[0];
    if (config) config.source = { line: config.source.line, file: config.source.file, column: config.source.column };
    expect(encodeCacheEntry(k, reordered, 's')).toBeUndefined();
    const partial = structuredClone(ok(cold).state);
    const partialSource = partial.projects[0]?.alertConfigs[0]?.source as unknown as Record<string, unknown>;
    delete partialSource.column;
    expect(encodeCacheEntry(k, partial, 's')).toBeUndefined();
  });

  it('a store without putPieces gets the whole entry through put', async () => {
    const plain = new MapCache();
    const viaPieces = new MapCache();
    const streaming = Object.assign(viaPieces, {
      putPieces: async (key: string, pieces: Iterable<string>) => viaPieces.put(key, [...pieces].join('')),
    });
    await loadDesiredStateCached(sourceOf(EXAMPLE), {}, plain);
    await loadDesiredStateCached(sourceOf(EXAMPLE), {}, streaming);
    expect(viaPieces.only()).toEqual(plain.only());
  });

  it('decodeCacheEntry refuses an entry for another key, and encodeCacheEntry refuses values JSON would change', async () => {
    const { key: k, text, cold } = await primed();
    const decoded = decodeCacheEntry(text, k);
    expect(decoded && stateOf(decoded.body, ok(cold).state.files)).toStrictEqual(ok(cold).state);
    expect(decodeCacheEntry(text, key())).toBeUndefined();
    const state = structuredClone(ok(cold).state);
    (state.projects[0]?.alertConfigs[0] as unknown as Record<string, unknown>).extra = Number.POSITIVE_INFINITY;
    expect(encodeCacheEntry(k, state, 's')).toBeUndefined();
  });
});

describe('what a hit re-reads', () => {
  const PIN = 'manifests/approved.json';

  /** A source giving each file a version (an S3 version id) or none, reads cut short at maxBytes (ports.ts allows it). */
  class VersionedSource extends MemorySource {
    constructor(
      files: Record<string, string>,
      private readonly versionOf: (path: string) => string | undefined,
    ) {
      super(files);
    }
    override async read(path: string, options?: { maxBytes?: number }) {
      const { bytes } = await super.read(path);
      const max = options?.maxBytes ?? bytes.length;
      const version = this.versionOf(path);
      return { bytes: bytes.subarray(0, max), size: bytes.length, ...(version === undefined ? {} : { version }) };
    }
  }

  it('a hit gives the pinned manifest its current source version, as a cold load does', async () => {
    const cache = new MapCache();
    const source = () => new VersionedSource(EXAMPLE, (p) => `v1:${p}`);
    await loadDesiredStateCached(source(), {}, cache);
    const warm = await loadDesiredStateCached(source(), {}, cache);
    expect(warm.cache).toBe('hit');
    const cold = ok(await loadDesiredState(source()));
    expect(cold.state.files.find((f) => f.path === PIN)?.version).toBe(`v1:${PIN}`);
    expect(ok(warm.result).state).toStrictEqual(cold.state);
  });

  it('a pinned manifest grown past the limit misses (the read cut short matches the old bytes) and is refused', async () => {
    const text = EXAMPLE[PIN] as string;
    const limit = { maxManifestBytes: new TextEncoder().encode(text).length };
    const cache = new MapCache();
    expect(ok((await loadDesiredStateCached(sourceOf(EXAMPLE), limit, cache)).result).state).toBeDefined();
    // Same YAML, no versions: the same key, so only the re-read of the manifest can tell.
    const grown = new VersionedSource({ ...EXAMPLE, [PIN]: `${text} ` }, () => undefined);
    const warm = await loadDesiredStateCached(grown, limit, cache);
    expect(warm.cache).toBe('miss');
    expect(warm.result.ok ? [] : warm.result.issues[0]?.message).toMatch(/over the limit/);
  });

  it('an entry whose signed part ends at, one before or one past a hashing slice boundary verifies', async () => {
    const cache = new MapCache();
    const state = ok((await loadDesiredStateCached(sourceOf(EXAMPLE), {}, cache)).result).state;
    const [k] = cache.only();
    const slice = 32 * 1024;
    // The summary (in the header) pads the signed part, which ends where the trailer's newline is, to the length wanted.
    const bare = (encodeCacheEntry(k, state, '') as string).lastIndexOf('\n');
    const boundary = Math.ceil((bare + 2) / slice) * slice;
    for (const end of [boundary - 1, boundary, boundary + 1]) {
      const padded = encodeCacheEntry(k, state, 'x'.repeat(end - bare)) as string;
      expect(padded.lastIndexOf('\n')).toBe(end);
      expect(decodeCacheEntry(padded, k)?.summary).toHaveLength(end - bare);
    }
  });

  it('an entry larger than one hashing slice (several slices) is a hit', async () => {
    const big = Object.fromEntries(
      renderDesiredState(buildWorld({ projects: 40, alerts: 10 })).map((f) => [f.path, f.text]),
    );
    const cache = new MapCache();
    await loadDesiredStateCached(sourceOf(big), {}, cache);
    expect(cache.only()[1].length).toBeGreaterThan(4 * 32 * 1024);
    expect((await loadDesiredStateCached(sourceOf(big), {}, cache)).cache).toBe('hit');
  });
});

describe('entries are authenticated with the auth key', () => {
  const keyA = deriveCacheAuthKey(new Uint8Array(32).fill(1));
  const keyB = deriveCacheAuthKey(new Uint8Array(32).fill(2));

  it('an entry written under one auth key is a hit under it and a miss under another (or none)', async () => {
    const cache = new MapCache();
    expect((await loadDesiredStateCached(sourceOf(EXAMPLE), {}, cache, keyA)).cache).toBe('miss');
    expect((await loadDesiredStateCached(sourceOf(EXAMPLE), {}, cache, keyA)).cache).toBe('hit');
    const [k, text] = cache.only();
    expect(decodeCacheEntry(text, k, keyA)).toBeDefined();
    expect(decodeCacheEntry(text, k, keyB)).toBeUndefined();
    expect(decodeCacheEntry(text, k)).toBeUndefined();
    const other = new MapCache();
    other.entries.set(k, text);
    expect((await loadDesiredStateCached(sourceOf(EXAMPLE), {}, other, keyB)).cache).toBe('miss');
  });

  it('a forged entry (body edited, trailer recomputed without the key) is refused, and replaced by a cold load', async () => {
    const cache = new MapCache();
    const cold = ok((await loadDesiredStateCached(sourceOf(EXAMPLE), {}, cache, keyA)).result);
    const [k, text] = cache.only();
    const forgedState = structuredClone(cold.state);
    const config = forgedState.projects[0]?.alertConfigs[0];
    if (!config) throw new Error('the example has no alert config');
    config.enabled = !config.enabled;
    // Whoever can read the desired state can compute the cache key, but not the MAC: this one is unkeyed.
    const forged = encodeCacheEntry(k, forgedState, cold.summary) as string;
    expect(forged).not.toBe(text);
    cache.entries.set(k, forged);
    const again = await loadDesiredStateCached(sourceOf(EXAMPLE), {}, cache, keyA);
    expect(again.cache).toBe('miss');
    expect(ok(again.result).state).toStrictEqual(cold.state);
    expect(decodeCacheEntry(cache.entries.get(k) as string, k, keyA)).toBeDefined();
  });

  it('openSignedEntry refuses, without an exception, two lines signed as one and a MAC that is not 64 hex digits', () => {
    const header = JSON.stringify({ format: 'x' });
    const sign = (signed: string) => createHmac('sha256', keyA).update(signed).digest('hex');
    const everything = () => true;
    // The header line alone, correctly signed, then the trailer: no body line, so no entry.
    expect(openSignedEntry(`${header}\n${JSON.stringify({ mac: sign(header) })}`, keyA, everything)).toBeUndefined();
    const signed = `${header}\n{}`;
    const good = sign(signed);
    expect(openSignedEntry(`${signed}\n${JSON.stringify({ mac: good })}`, keyA, everything)).toEqual({
      header: { format: 'x' },
      body: '{}',
    });
    for (const mac of [good.slice(2), `${good}00`, `${good.slice(0, 62)}zz`, 42]) {
      expect(openSignedEntry(`${signed}\n${JSON.stringify({ mac })}`, keyA, everything)).toBeUndefined();
    }
  });

  it('the auth key is derived, never the fingerprint key itself, and differs per fingerprint key', () => {
    const fingerprint = new Uint8Array(32).fill(1);
    expect(Buffer.from(keyA).equals(Buffer.from(fingerprint))).toBe(false);
    expect(Buffer.from(keyA).equals(Buffer.from(keyB))).toBe(false);
    expect(keyA).toHaveLength(32);
  });
});
