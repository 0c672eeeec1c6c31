// Scenario: the Lambda's desired-state cache (memory in front of S3) against s3rver on loopback: entries under cache/desired/, cold container misses once, warm invocations hit memory, S3 failures are misses.
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryDesiredStateCache } from '../../../lambdas/adapters/aws/desired-cache-memory.ts';
import { DEFAULT_DESIRED_CACHE_PREFIX, S3DesiredStateCache } from '../../../lambdas/adapters/aws/desired-cache-s3.ts';
import { S3AccessError } from '../../../lambdas/adapters/aws/errors.ts';
import { S3DesiredStateSource } from '../../../lambdas/adapters/aws/s3-desired-source.ts';
import { loadDesiredState, loadDesiredStateCached } from '../../../lambdas/core/desired/index.ts';
import type { DesiredStateCache } from '../../../lambdas/core/ports.ts';
import { LOOPBACK_REGION } from '../../helpers/aws-clients.ts';
import { type S3rverHandle, startS3rver } from '../../helpers/aws-s3rver.ts';
import { EXAMPLE_ROOT, filesOf } from '../../unit/desired/cache-fakes.ts';

/** Counts the calls that reach the wrapped cache. */
class Counting implements DesiredStateCache {
  gets = 0;
  puts = 0;
  constructor(private readonly inner: DesiredStateCache) {}
  get(key: string) {
    this.gets++;
    return this.inner.get(key);
  }
  put(key: string, text: string) {
    this.puts++;
    return this.inner.put(key, text);
  }
}

describe('desired-state cache on S3 (s3rver)', () => {
  let s3: S3rverHandle;
  let client: S3Client;
  const source = () => new S3DesiredStateSource({ client, bucket: 'desired-bucket', prefix: 'desired-state/' });

  beforeAll(async () => {
    s3 = await startS3rver();
    client = s3.client;
    for (const [path, text] of Object.entries(filesOf(EXAMPLE_ROOT))) {
      await client.send(new PutObjectCommand({ Bucket: 'desired-bucket', Key: `desired-state/${path}`, Body: text }));
    }
  });
  afterAll(async () => {
    await s3?.close();
  });

  it('puts and gets entries under cache/desired/<key>.json; a missing entry is undefined', async () => {
    const cache = new S3DesiredStateCache({ client, bucket: 'data-bucket' });
    expect(cache.describe()).toBe('s3://data-bucket/cache/desired/');
    const key = 'e'.repeat(64);
    expect(await cache.get(key)).toBeUndefined();
    await cache.put(key, 'entry é');
    expect(await cache.get(key)).toBe('entry é');
    const raw = await client.send(
      new GetObjectCommand({ Bucket: 'data-bucket', Key: `${DEFAULT_DESIRED_CACHE_PREFIX}${key}.json` }),
    );
    expect(await raw.Body?.transformToString()).toBe('entry é');
    expect(raw.ContentType).toBe('application/json');
    await expect(cache.put('../state/state', 'x')).rejects.toThrow(/64 lowercase hex/);
    expect(await cache.get('../state/state')).toBeUndefined();
  });

  it('a cold container misses once and fills S3; a new container hits S3 without reading the YAML; a warm one hits memory', async () => {
    const cold = await loadDesiredState(source());
    const s3 = new Counting(new S3DesiredStateCache({ client, bucket: 'data-bucket', prefix: 'cache/run/' }));
    const first = new MemoryDesiredStateCache({ next: s3 });
    const miss = await loadDesiredStateCached(source(), {}, first);
    expect(miss.cache).toBe('miss');
    expect(miss.result).toStrictEqual(cold);
    // The listing's tag entry, then the state entry: both missing, both written.
    expect([s3.gets, s3.puts]).toEqual([2, 2]);

    const warm = await loadDesiredStateCached(source(), {}, first);
    expect(warm.cache).toBe('hit');
    expect(warm.result).toStrictEqual(cold);
    expect([s3.gets, s3.puts]).toEqual([2, 2]);

    const second = new MemoryDesiredStateCache({ next: s3 });
    const listed = source();
    const reads = vi.spyOn(listed, 'read');
    const fromS3 = await loadDesiredStateCached(listed, {}, second);
    expect(fromS3.cache).toBe('hit');
    expect(fromS3.result).toStrictEqual(cold);
    expect([s3.gets, s3.puts]).toEqual([4, 2]);
    // Every listed file had a content tag (ETag, size, last-modified): only the pinned manifest was read.
    expect(reads.mock.calls.map(([path]) => path)).toEqual(['manifests/approved.json']);
  });

  it('the source ETags are part of the key: re-uploading a file with other bytes misses', async () => {
    const cache = new MemoryDesiredStateCache({ next: new S3DesiredStateCache({ client, bucket: 'data-bucket' }) });
    await loadDesiredStateCached(source(), {}, cache);
    expect((await loadDesiredStateCached(source(), {}, cache)).cache).toBe('hit');
    const text = filesOf(EXAMPLE_ROOT)['organizations.yaml'] as string;
    await client.send(
      new PutObjectCommand({ Bucket: 'desired-bucket', Key: 'desired-state/organizations.yaml', Body: `${text}\n` }),
    );
    try {
      const changed = await loadDesiredStateCached(source(), {}, cache);
      expect(changed.cache).toBe('miss');
      expect(changed.result).toStrictEqual(await loadDesiredState(source()));
    } finally {
      await client.send(
        new PutObjectCommand({ Bucket: 'desired-bucket', Key: 'desired-state/organizations.yaml', Body: text }),
      );
    }
  });

  it('a bucket that does not exist: S3_NO_SUCH_BUCKET on get and put (never an absent entry), a plain miss for the loader', async () => {
    const cache = new S3DesiredStateCache({ client, bucket: 'no-such-bucket' });
    // A missing bucket is final, as for the state: said so, not read as "no entry" (the loader still misses).
    await expect(cache.get('a'.repeat(64))).rejects.toMatchObject({ name: 'S3AccessError', code: 'S3_NO_SUCH_BUCKET' });
    await expect(cache.put('a'.repeat(64), 'x')).rejects.toBeInstanceOf(S3AccessError);
    const loaded = await loadDesiredStateCached(source(), {}, new MemoryDesiredStateCache({ next: cache }));
    expect(loaded.cache).toBe('miss');
    expect(loaded.result.ok).toBe(true);
  });

  it('an unreachable S3 endpoint: S3AccessError on get, a plain miss for the loader', async () => {
    const dead = new S3Client({
      endpoint: 'http://127.0.0.1:1',
      forcePathStyle: true,
      region: LOOPBACK_REGION,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      maxAttempts: 1,
    });
    try {
      const cache = new S3DesiredStateCache({ client: dead, bucket: 'data-bucket' });
      await expect(cache.get('a'.repeat(64))).rejects.toBeInstanceOf(S3AccessError);
      const loaded = await loadDesiredStateCached(source(), {}, cache);
      expect(loaded.cache).toBe('miss');
      expect(loaded.result).toStrictEqual(await loadDesiredState(source()));
    } finally {
      dead.destroy();
    }
  });

  it('the memory layer keeps only maxEntries entries, most recently used first', async () => {
    const memory = new MemoryDesiredStateCache({ maxEntries: 2 });
    await memory.put('a'.repeat(64), 'a');
    await memory.put('b'.repeat(64), 'b');
    expect(await memory.get('a'.repeat(64))).toBe('a');
    await memory.put('c'.repeat(64), 'c');
    expect(await memory.get('b'.repeat(64))).toBeUndefined();
    expect(await memory.get('a'.repeat(64))).toBe('a');
    expect(() => new MemoryDesiredStateCache({ maxEntries: 0 })).toThrow(RangeError);
  });
});
