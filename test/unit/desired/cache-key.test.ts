// Scenario: the desired-state cache key changes with every input that can change a load (bytes, names, versions, options, loader) and with nothing else.
import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { canonicalJson } from '../../../lambdas/core/canonical.ts';
import {
  CACHE_FORMAT_VERSION,
  type CacheKeyFile,
  desiredCacheKey,
  desiredTagKey,
  fingerprintOf,
  isCacheKey,
  LOADER_VERSION,
  loaderFingerprint,
} from '../../../lambdas/core/desired/cache.ts';
import { DEFAULT_LOAD_OPTIONS } from '../../../lambdas/core/desired/index.ts';
import { DESIRED_STATE_SCHEMA } from '../../../lambdas/core/desired/schema.ts';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

const BASE: CacheKeyFile[] = [
  { path: 'projects/a.yaml', sha256: sha('kind: Project\nname: a\n') },
  { path: 'projects/b.yaml', sha256: sha('kind: Project\nname: b\n') },
  { path: 'settings.yaml', sha256: sha('kind: Settings\n'), version: '"etag-1"' },
];
const baseKey = desiredCacheKey(DEFAULT_LOAD_OPTIONS, BASE);

describe('desiredCacheKey', () => {
  it('is 64 lowercase hex, stable, and independent of the order files are given in', () => {
    expect(isCacheKey(baseKey)).toBe(true);
    expect(desiredCacheKey({ ...DEFAULT_LOAD_OPTIONS }, [...BASE])).toBe(baseKey);
    expect(desiredCacheKey(DEFAULT_LOAD_OPTIONS, [...BASE].reverse())).toBe(baseKey);
  });

  it.each<[string, () => string]>([
    [
      'one byte changed in a file',
      () =>
        desiredCacheKey(DEFAULT_LOAD_OPTIONS, [
          { ...(BASE[0] as CacheKeyFile), sha256: sha('kind: Project\nname: A\n') },
          ...BASE.slice(1),
        ]),
    ],
    [
      'a file renamed',
      () =>
        desiredCacheKey(DEFAULT_LOAD_OPTIONS, [
          { ...(BASE[0] as CacheKeyFile), path: 'projects/c.yaml' },
          ...BASE.slice(1),
        ]),
    ],
    [
      // Renamed without changing the order of the files: the path itself must be in the key, not only the order.
      'a file renamed, the order kept',
      () =>
        desiredCacheKey(DEFAULT_LOAD_OPTIONS, [
          { ...(BASE[0] as CacheKeyFile), path: 'projects/a2.yaml' },
          ...BASE.slice(1),
        ]),
    ],
    ['a file added', () => desiredCacheKey(DEFAULT_LOAD_OPTIONS, [...BASE, { path: 'x.yml', sha256: sha('') }])],
    ['a file removed', () => desiredCacheKey(DEFAULT_LOAD_OPTIONS, BASE.slice(1))],
    [
      'a source version changed',
      () =>
        desiredCacheKey(DEFAULT_LOAD_OPTIONS, [
          ...BASE.slice(0, 2),
          { ...(BASE[2] as CacheKeyFile), version: '"etag-2"' },
        ]),
    ],
    [
      'a source version dropped',
      () =>
        desiredCacheKey(DEFAULT_LOAD_OPTIONS, [
          ...BASE.slice(0, 2),
          { ...(BASE[2] as CacheKeyFile), version: undefined },
        ]),
    ],
    ['maxAliasCount changed', () => desiredCacheKey({ ...DEFAULT_LOAD_OPTIONS, maxAliasCount: 101 }, BASE)],
    ['maxFileBytes changed', () => desiredCacheKey({ ...DEFAULT_LOAD_OPTIONS, maxFileBytes: 1 }, BASE)],
    ['maxManifestBytes changed', () => desiredCacheKey({ ...DEFAULT_LOAD_OPTIONS, maxManifestBytes: 10 }, BASE)],
    ['maxFiles changed', () => desiredCacheKey({ ...DEFAULT_LOAD_OPTIONS, maxFiles: 3 }, BASE)],
    ['maxIssues changed', () => desiredCacheKey({ ...DEFAULT_LOAD_OPTIONS, maxIssues: 1 }, BASE)],
    [
      'a path that fakes a separator',
      () =>
        desiredCacheKey(DEFAULT_LOAD_OPTIONS, [
          {
            path: `projects/a.yaml ${(BASE[0] as CacheKeyFile).sha256} null\nfile "projects/b.yaml"`,
            sha256: (BASE[1] as CacheKeyFile).sha256,
          },
          BASE[2] as CacheKeyFile,
        ]),
    ],
  ])('changes when %s', (_name, variant) => {
    const key = variant();
    expect(isCacheKey(key)).toBe(true);
    expect(key).not.toBe(baseKey);
  });

  it('never equals the tag key of the same listing (an empty one included): the two kinds of entry never meet', () => {
    expect(desiredCacheKey(DEFAULT_LOAD_OPTIONS, [])).not.toBe(desiredTagKey(DEFAULT_LOAD_OPTIONS, []));
  });

  it('changes when the loader fingerprint changes (here: the schema edited), as does the tag key', async () => {
    const tagKey = desiredTagKey(DEFAULT_LOAD_OPTIONS, [{ path: 'a.yaml', size: 1, contentTag: 't' }]);
    vi.resetModules();
    vi.doMock('../../../lambdas/core/desired/schema.ts', async (importOriginal) => {
      const original = await importOriginal<typeof import('../../../lambdas/core/desired/schema.ts')>();
      return { ...original, DESIRED_STATE_SCHEMA: { ...original.DESIRED_STATE_SCHEMA, description: 'edited' } };
    });
    try {
      const edited = await import('../../../lambdas/core/desired/cache.ts');
      expect(edited.loaderFingerprint()).not.toBe(loaderFingerprint());
      expect(edited.desiredCacheKey(DEFAULT_LOAD_OPTIONS, BASE)).not.toBe(baseKey);
      expect(edited.desiredTagKey(DEFAULT_LOAD_OPTIONS, [{ path: 'a.yaml', size: 1, contentTag: 't' }])).not.toBe(
        tagKey,
      );
    } finally {
      vi.doUnmock('../../../lambdas/core/desired/schema.ts');
      vi.resetModules();
    }
  });
});

describe('loaderFingerprint and canonicalJson', () => {
  it('fingerprints the schema and the loader version: either changing changes it, member order does not', () => {
    expect(loaderFingerprint()).toMatch(/^[0-9a-f]{64}$/);
    expect(loaderFingerprint()).toBe(fingerprintOf(LOADER_VERSION, DESIRED_STATE_SCHEMA));
    expect(fingerprintOf(LOADER_VERSION + 1, DESIRED_STATE_SCHEMA)).not.toBe(loaderFingerprint());
    const edited = structuredClone(DESIRED_STATE_SCHEMA) as Record<string, unknown>;
    edited.description = `${String(edited.description ?? '')} (edited)`;
    expect(fingerprintOf(LOADER_VERSION, edited)).not.toBe(loaderFingerprint());
    const reordered = Object.fromEntries(Object.entries(DESIRED_STATE_SCHEMA).reverse());
    expect(fingerprintOf(LOADER_VERSION, reordered)).toBe(loaderFingerprint());
    expect(CACHE_FORMAT_VERSION).toBeGreaterThanOrEqual(1);
  });

  it.each([
    [{ b: 1, a: [1, { d: null, c: 'x' }] }, '{"a":[1,{"c":"x","d":null}],"b":1}'],
    [{ a: undefined, b: true }, '{"b":true}'],
    [[undefined, 'é'], '[null,"é"]'],
    ['s', '"s"'],
  ])('canonicalJson(%j) = %s', (value, json) => {
    expect(canonicalJson(value)).toBe(json);
  });
});

describe('isCacheKey', () => {
  it.each([
    ['a'.repeat(64), true],
    ['A'.repeat(64), false],
    ['a'.repeat(63), false],
    [`../${'a'.repeat(61)}`, false],
    ['', false],
    [`${'a'.repeat(64)}/../x`, false],
    [`${'a'.repeat(64)}\n`, false],
  ])('%s -> %s', (key, ok) => {
    expect(isCacheKey(key)).toBe(ok);
  });
});
