// Scenario: with a content tag on every listed file, a warm load reads no YAML file and still equals a cold load; any change of tag, a missing tag, a bad tag entry or a lost state entry falls back to reading.
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { renderDesiredState } from '../../../bench/desired.ts';
import { buildWorld } from '../../../bench/world.ts';
import { desiredTagKey, UNKEYED_CACHE_AUTH_KEY } from '../../../lambdas/core/desired/cache.ts';
import { decodeTagEntry, encodeTagEntry } from '../../../lambdas/core/desired/cache-tags.ts';
import {
  DEFAULT_LOAD_OPTIONS,
  type LoadResult,
  loadDesiredState,
  loadDesiredStateCached,
} from '../../../lambdas/core/desired/index.ts';
import type { DesiredFileInfo } from '../../../lambdas/core/model.ts';
import { EXAMPLE_ROOT, filesOf, MapCache } from './cache-fakes.ts';
import { MemorySource, type TagOf } from './memory-source.ts';

const BENCH = Object.fromEntries(
  renderDesiredState(buildWorld({ projects: 6, alerts: 4 })).map((f) => [f.path, f.text]),
);
const EXAMPLE = filesOf(EXAMPLE_ROOT);
const YAML = /\.ya?ml$/;

/** Tags as a source would give them: one per file revision (here: the sha256 of the bytes, plus a label). */
const byContent: TagOf = (path, bytes) => `rev:${path}:${createHash('sha256').update(bytes).digest('hex')}`;

function ok(result: LoadResult): Extract<LoadResult, { ok: true }> {
  if (!result.ok) throw new Error(JSON.stringify(result.issues.slice(0, 3)));
  return result;
}

const yamlReads = (source: MemorySource) => source.reads.filter((p) => YAML.test(p)).length;

describe('a listing whose every file has a content tag', () => {
  it('is loaded from the cache without reading a YAML file, and equals a cold load', async () => {
    const cache = new MapCache();
    const cold = ok(await loadDesiredState(new MemorySource(BENCH)));
    const first = new MemorySource(BENCH, byContent);
    expect((await loadDesiredStateCached(first, {}, cache)).cache).toBe('miss');
    expect(yamlReads(first)).toBe(Object.keys(BENCH).filter((p) => YAML.test(p)).length);
    expect(cache.entries.size).toBe(2);

    const second = new MemorySource(BENCH, byContent);
    const warm = await loadDesiredStateCached(second, {}, cache);
    expect(warm.cache).toBe('hit');
    expect(second.reads).toEqual([]);
    expect(ok(warm.result).state).toStrictEqual(cold.state);
    expect(ok(warm.result).summary).toBe(cold.summary);
    expect(JSON.stringify(ok(warm.result).state)).toBe(JSON.stringify(cold.state));
  });

  it('still re-reads the pinned manifest on a tag hit, and a changed manifest misses', async () => {
    const pinPath = 'manifests/approved.json';
    const cache = new MapCache();
    await loadDesiredStateCached(new MemorySource(EXAMPLE, byContent), {}, cache);
    const again = new MemorySource(EXAMPLE, byContent);
    expect((await loadDesiredStateCached(again, {}, cache)).cache).toBe('hit');
    expect(again.reads).toEqual([pinPath]);

    const manifest = JSON.parse(EXAMPLE[pinPath] as string) as { versions: unknown[] };
    const edited = { ...EXAMPLE, [pinPath]: JSON.stringify({ ...manifest, versions: manifest.versions.slice(1) }) };
    const warm = await loadDesiredStateCached(new MemorySource(edited, byContent), {}, cache);
    expect(warm.cache).toBe('miss');
    expect(ok(warm.result).state).toStrictEqual(ok(await loadDesiredState(new MemorySource(edited))).state);
  });

  it('misses when one tag changes (a file edited), reads the files and loads the edit', async () => {
    const cache = new MapCache();
    await loadDesiredStateCached(new MemorySource(BENCH, byContent), {}, cache);
    const path = Object.keys(BENCH).find((p) => p.startsWith('projects/')) as string;
    const edited = { ...BENCH, [path]: `${BENCH[path]}\n# edited\n` };
    const source = new MemorySource(edited, byContent);
    const warm = await loadDesiredStateCached(source, {}, cache);
    expect(warm.cache).toBe('miss');
    expect(yamlReads(source)).toBeGreaterThan(0);
    expect(ok(warm.result).state).toStrictEqual(ok(await loadDesiredState(new MemorySource(edited))).state);
  });

  it('is not used when one file has no tag: every file is read, and no tag entry is written', async () => {
    const cache = new MapCache();
    const someUntagged: TagOf = (path, bytes) => (path.startsWith('projects/') ? byContent(path, bytes) : undefined);
    await loadDesiredStateCached(new MemorySource(BENCH, someUntagged), {}, cache);
    expect(cache.entries.size).toBe(1);
    const source = new MemorySource(BENCH, someUntagged);
    expect((await loadDesiredStateCached(source, {}, cache)).cache).toBe('hit');
    expect(yamlReads(source)).toBe(Object.keys(BENCH).filter((p) => YAML.test(p)).length);
  });

  it('is not used when a file is over the size limit: the read reports it', async () => {
    const cache = new MapCache();
    await loadDesiredStateCached(new MemorySource(BENCH, byContent), {}, cache);
    const tight = await loadDesiredStateCached(new MemorySource(BENCH, byContent), { maxFileBytes: 10 }, cache);
    expect(tight.result.ok).toBe(false);
    expect(tight.result.ok ? [] : tight.result.issues[0]?.message).toMatch(/over the limit of 10 bytes/);
  });

  it.each<[string, (text: string) => string]>([
    ['truncated', (text) => text.slice(0, 40)],
    ['not JSON', () => 'garbage\ngarbage\ngarbage'],
    [
      'another content key, the MAC recomputed without the auth key',
      (text) => {
        const [header, body] = text.split('\n') as [string, string];
        const forged = `${header.replace(/"contentKey":"[0-9a-f]{64}"/, `"contentKey":"${'0'.repeat(64)}"`)}\n${body}`;
        return `${forged}\n${JSON.stringify({ mac: createHmac('sha256', 'guess').update(forged).digest('hex') })}`;
      },
    ],
  ])(
    'a tag entry that is %s is a miss: the files are read, the result is a cold load, the entry rewritten',
    async (_name, damage) => {
      const cache = new MapCache();
      await loadDesiredStateCached(new MemorySource(BENCH, byContent), {}, cache);
      const tagKey = desiredTagKey(DEFAULT_LOAD_OPTIONS, await new MemorySource(BENCH, byContent).list()) as string;
      const good = cache.entries.get(tagKey) as string;
      cache.entries.set(tagKey, damage(good));
      const source = new MemorySource(BENCH, byContent);
      const warm = await loadDesiredStateCached(source, {}, cache);
      expect(warm.cache).toBe('hit'); // through the content key, after reading
      expect(yamlReads(source)).toBeGreaterThan(0);
      expect(ok(warm.result).state).toStrictEqual(ok(await loadDesiredState(new MemorySource(BENCH))).state);
      expect(cache.entries.get(tagKey)).toBe(good);
    },
  );

  it('a tag entry whose state entry is gone falls back to reading and parsing', async () => {
    const cache = new MapCache();
    await loadDesiredStateCached(new MemorySource(BENCH, byContent), {}, cache);
    const tagKey = desiredTagKey(DEFAULT_LOAD_OPTIONS, await new MemorySource(BENCH, byContent).list()) as string;
    for (const key of [...cache.entries.keys()]) if (key !== tagKey) cache.entries.delete(key);
    const source = new MemorySource(BENCH, byContent);
    const warm = await loadDesiredStateCached(source, {}, cache);
    expect(warm.cache).toBe('miss');
    expect(ok(warm.result).state).toStrictEqual(ok(await loadDesiredState(new MemorySource(BENCH))).state);
    expect(cache.entries.size).toBe(2);
  });
});

describe('tag keys and tag entries', () => {
  const refs = [
    { path: 'a.yaml', size: 3, contentTag: 't1' },
    { path: 'b.yaml', size: 4, version: 'v', contentTag: 't2' },
  ];
  const key = desiredTagKey(DEFAULT_LOAD_OPTIONS, refs) as string;

  it('change with every tag, size, version, path and load option; are undefined when a file has no tag', () => {
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(desiredTagKey(DEFAULT_LOAD_OPTIONS, [...refs].reverse())).toBe(key);
    const variants = [
      [{ ...refs[0], contentTag: 't9' }, refs[1]],
      [{ ...refs[0], size: 9 }, refs[1]],
      [refs[0], { ...refs[1], version: 'w' }],
      [{ ...refs[0], path: 'c.yaml' }, refs[1]],
    ];
    for (const v of variants) expect(desiredTagKey(DEFAULT_LOAD_OPTIONS, v as typeof refs)).not.toBe(key);
    expect(desiredTagKey({ ...DEFAULT_LOAD_OPTIONS, maxFiles: 7 }, refs)).not.toBe(key);
    expect(desiredTagKey(DEFAULT_LOAD_OPTIONS, [refs[0], { path: 'b.yaml', size: 4 }] as typeof refs)).toBeUndefined();
  });

  it('decode only for their key, their auth key and exactly the listed paths', () => {
    const entry: { contentKey: string; files: DesiredFileInfo[] } = {
      contentKey: 'c'.repeat(64),
      files: [
        { path: 'a.yaml', sha256: 'a'.repeat(64) },
        { path: 'b.yaml', sha256: 'b'.repeat(64), version: 'v' },
      ],
    };
    const auth = new Uint8Array(32).fill(7);
    const text = encodeTagEntry(key, entry, auth);
    expect(decodeTagEntry(text, key, ['a.yaml', 'b.yaml'], auth)).toEqual(entry);
    expect(decodeTagEntry(text, key, ['a.yaml', 'b.yaml'], UNKEYED_CACHE_AUTH_KEY)).toBeUndefined();
    expect(decodeTagEntry(text, 'd'.repeat(64), ['a.yaml', 'b.yaml'], auth)).toBeUndefined();
    expect(decodeTagEntry(text, key, ['a.yaml'], auth)).toBeUndefined();
    expect(decodeTagEntry(text, key, ['a.yaml', 'b.yaml', 'c.yaml'], auth)).toBeUndefined();
    expect(decodeTagEntry(text, key, ['b.yaml', 'a.yaml'], auth)).toBeUndefined();
    const badFile = encodeTagEntry(
      key,
      { ...entry, files: [entry.files[0] as DesiredFileInfo, { path: 'b.yaml', sha256: 'xyz' }] },
      auth,
    );
    expect(decodeTagEntry(badFile, key, ['a.yaml', 'b.yaml'], auth)).toBeUndefined();
    // A file with a member of its own (MAC recomputed under the auth key): it would end up in the state's files.
    const [header, body] = text.split('\n') as [string, string];
    const extra = `${header}\n${body.replace('"path":"a.yaml",', '"path":"a.yaml","size":3,')}`;
    expect(extra).not.toContain(`${header}\n${body}`);
    const signed = `${extra}\n${JSON.stringify({ mac: createHmac('sha256', auth).update(extra).digest('hex') })}`;
    expect(decodeTagEntry(signed, key, ['a.yaml', 'b.yaml'], auth)).toBeUndefined();
  });
});
