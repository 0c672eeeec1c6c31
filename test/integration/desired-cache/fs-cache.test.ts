// Scenario: the filesystem desired-state cache in a temp state dir: atomic entries, bounded size, recency on hit, and the loader hitting it across fresh instances.
import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  desiredCacheDir,
  desiredCacheOff,
  FsDesiredStateCache,
} from '../../../lambdas/adapters/local/desired-cache-fs.ts';
import { FsDesiredStateSource } from '../../../lambdas/adapters/local/desired-source-fs.ts';
import { loadDesiredState, loadDesiredStateCached } from '../../../lambdas/core/desired/index.ts';
import { EXAMPLE_ROOT } from '../../unit/desired/cache-fakes.ts';

const key = (c: string) => c.repeat(64);

let stateDir: string;
beforeEach(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'desired-cache-fs-'));
});
afterEach(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

describe('FsDesiredStateCache', () => {
  it('stores entries as <stateDir>/cache/desired/<key>.json, mode 0600, leaving no temp file', async () => {
    const cache = new FsDesiredStateCache(desiredCacheDir(stateDir));
    expect(await cache.get(key('a'))).toBeUndefined();
    await cache.put(key('a'), 'entry a');
    expect(await cache.get(key('a'))).toBe('entry a');
    await cache.put(key('a'), 'entry a2');
    expect(await cache.get(key('a'))).toBe('entry a2');
    const dir = join(stateDir, 'cache', 'desired');
    expect(await readdir(dir)).toEqual([`${key('a')}.json`]);
    expect((await stat(join(dir, `${key('a')}.json`))).mode & 0o777).toBe(0o600);
  });

  it('refuses keys that are not 64 lowercase hex (nothing can escape the directory)', async () => {
    const cache = new FsDesiredStateCache(desiredCacheDir(stateDir));
    await expect(cache.put('../../state', 'x')).rejects.toThrow(/64 lowercase hex/);
    expect(await cache.get('../../state')).toBeUndefined();
  });

  it('keeps only the newest maxEntries entries, a hit counting as use', async () => {
    const cache = new FsDesiredStateCache(desiredCacheDir(stateDir), { maxEntries: 2 });
    const dir = desiredCacheDir(stateDir);
    const age = (k: string, secondsAgo: number) => {
      const t = new Date(Date.now() - secondsAgo * 1000);
      return utimes(join(dir, `${k}.json`), t, t);
    };
    await cache.put(key('a'), 'a');
    await age(key('a'), 300);
    await cache.put(key('b'), 'b');
    await age(key('b'), 200);
    expect(await cache.get(key('a'))).toBe('a'); // a is now the most recently used
    await cache.put(key('c'), 'c');
    expect((await readdir(dir)).sort()).toEqual([`${key('a')}.json`, `${key('c')}.json`]);
    expect(await cache.get(key('b'))).toBeUndefined();
  });

  it('ignores foreign files in its directory', async () => {
    const cache = new FsDesiredStateCache(desiredCacheDir(stateDir), { maxEntries: 1 });
    await cache.put(key('a'), 'a');
    await writeFile(join(desiredCacheDir(stateDir), 'notes.txt'), 'keep me');
    await cache.put(key('b'), 'b');
    expect((await readdir(desiredCacheDir(stateDir))).sort()).toEqual([`${key('b')}.json`, 'notes.txt']);
  });

  it.each([
    [{}, false],
    [{ OPSMAN_DESIRED_CACHE: 'off' }, true],
    [{ OPSMAN_DESIRED_CACHE: 'OFF' }, true],
    [{ OPSMAN_DESIRED_CACHE: '0' }, true],
    [{ OPSMAN_DESIRED_CACHE: 'on' }, false],
  ])('desiredCacheOff(%j) = %s', (env, off) => {
    expect(desiredCacheOff(env)).toBe(off);
  });

  it('refuses a value that is neither on nor off, as the functions do', () => {
    expect(() => desiredCacheOff({ OPSMAN_DESIRED_CACHE: 'of' })).toThrow(
      expect.objectContaining({
        code: 'DESIRED_CACHE_SETTING',
        message: 'OPSMAN_DESIRED_CACHE must be on or off (got "of")',
      }),
    );
  });
});

describe('the loader over the filesystem cache', () => {
  it('misses once, then hits from a fresh instance; a corrupted file is a miss and is rewritten', async () => {
    const source = () => new FsDesiredStateSource(EXAMPLE_ROOT);
    const cold = await loadDesiredState(source());
    const first = await loadDesiredStateCached(source(), {}, new FsDesiredStateCache(desiredCacheDir(stateDir)));
    const second = await loadDesiredStateCached(source(), {}, new FsDesiredStateCache(desiredCacheDir(stateDir)));
    expect([first.cache, second.cache]).toEqual(['miss', 'hit']);
    expect(second.result).toStrictEqual(cold);

    // The state entry (the directory may also hold the listing's small tag entry).
    const names = await readdir(desiredCacheDir(stateDir));
    const texts = await Promise.all(names.map((n) => readFile(join(desiredCacheDir(stateDir), n), 'utf8')));
    const index = texts.findIndex((t) => t.includes('"format":"opsman-gitops/desired-state-cache"'));
    const file = join(desiredCacheDir(stateDir), names[index] as string);
    const good = texts[index] as string;
    await writeFile(file, good.slice(0, 100));
    const third = await loadDesiredStateCached(source(), {}, new FsDesiredStateCache(desiredCacheDir(stateDir)));
    expect(third.cache).toBe('miss');
    expect(third.result).toStrictEqual(cold);
    expect(await readFile(file, 'utf8')).toBe(good);
  });

  it('an unusable cache directory only costs speed', async () => {
    const blocked = join(stateDir, 'file');
    await writeFile(blocked, 'not a directory');
    const cache = new FsDesiredStateCache(join(blocked, 'desired'));
    const loaded = await loadDesiredStateCached(new FsDesiredStateSource(EXAMPLE_ROOT), {}, cache);
    expect(loaded.cache).toBe('miss');
    expect(loaded.result.ok).toBe(true);
  });
});
