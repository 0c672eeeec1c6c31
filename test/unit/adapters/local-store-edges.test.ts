// Scenario: edges of the local stores that mutation testing found unguarded: an atomic write whose final rename fails
// leaves no temp file behind; a lease is expired the instant it reaches expiresAt, and a renewal is written; the
// desired-state source refuses `..` paths and answers a file just over maxBytes by its size; the cache reads no file
// outside its directory; a secrets file that could not be read is read again; bad setups (a root that is a file, a
// cache of no entries) are refused.
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsArchiveStore } from '../../../lambdas/adapters/local/archive-fs.ts';
import { FsDesiredStateCache } from '../../../lambdas/adapters/local/desired-cache-fs.ts';
import { FsDesiredStateSource } from '../../../lambdas/adapters/local/desired-source-fs.ts';
import { FileSecretResolver } from '../../../lambdas/adapters/local/secrets-file.ts';
import { FsStateStore } from '../../../lambdas/adapters/local/state-fs.ts';
import { LeaseHeldError, LeaseMismatchError } from '../../../lambdas/core/errors.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'local-store-edges-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const temps = async (path: string) => (await readdir(path)).filter((name) => name.endsWith('.tmp'));

describe('an atomic write whose rename into place fails', () => {
  // A directory (not empty) where the file goes: the temp file is written and synced, then rename fails.
  const blockWithDirectory = async (path: string) => {
    await mkdir(path, { recursive: true });
    await writeFile(join(path, 'keep'), 'x');
  };

  it('chunked (putPieces): rejects naming the file, and removes its temp file', async () => {
    await blockWithDirectory(join(dir, 'usage', 'm.json'));
    const archive = new FsArchiveStore(dir);
    await expect(archive.putPieces('usage/m.json', ['{"a":', '1}'])).rejects.toThrow(/cannot write .*m\.json/);
    expect(await temps(join(dir, 'usage'))).toEqual([]);
  });

  it('whole (put): rejects naming the file, and removes its temp file', async () => {
    await blockWithDirectory(join(dir, 'usage', 'm.json'));
    const archive = new FsArchiveStore(dir);
    await expect(archive.put('usage/m.json', '{"a":1}')).rejects.toThrow(/cannot write .*m\.json/);
    expect(await temps(join(dir, 'usage'))).toEqual([]);
  });
});

describe('a lease at the instant it expires', () => {
  // As the S3 lease store: expired once now reaches expiresAt.
  it('is taken over', async () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    await new FsStateStore(dir, { now: () => new Date(now) }).acquireLease({ owner: 'a', runId: 'r1', ttlMs: 1_000 });
    const store = new FsStateStore(dir, { now: () => new Date(now + 1_000) });
    const lease = await store.acquireLease({ owner: 'b', runId: 'r2', ttlMs: 1_000 });
    expect(lease.runId).toBe('r2');
  });
});

describe('a renewed lease', () => {
  // Renewal that only answered a later expiry, the file keeping the old one, let another run take over a live run.
  it('is written: another run is refused until the renewed expiry, not the first one', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const clock = { now: () => new Date(now) };
    const store = new FsStateStore(dir, clock);
    const lease = await store.acquireLease({ owner: 'a', runId: 'r1', ttlMs: 10_000 });
    now += 8_000;
    const renewed = await store.renewLease(lease, 10_000);
    const written = JSON.parse(await readFile(join(dir, 'lease.json'), 'utf8')) as { expiresAt: string };
    expect(written.expiresAt).toBe(renewed.expiresAt);
    now += 5_000; // past the first expiry, before the renewed one
    await expect(new FsStateStore(dir, clock).acquireLease({ owner: 'b', runId: 'r2', ttlMs: 10_000 })).rejects.toThrow(
      LeaseHeldError,
    );
  });
});

describe('unlock (forceReleaseLease)', () => {
  it('of another run than the holder: LeaseMismatchError naming the holder, and the lease stays', async () => {
    const store = new FsStateStore(dir);
    const lease = await store.acquireLease({ owner: 'cli:a@h', runId: 'r1', ttlMs: 60_000 });
    const error = await store.forceReleaseLease('r2').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseMismatchError);
    expect((error as Error).message).toContain('held by run r1 (cli:a@h');
    await expect(store.checkLease(lease)).resolves.toBeUndefined();
    expect(await store.forceReleaseLease('r1')).toMatchObject({ runId: 'r1', token: lease.token });
    await expect(store.checkLease(lease)).rejects.toThrow(/removed/);
  });
});

describe('the desired-state directory source', () => {
  it('a path with `..` is refused even when nothing is there: never "absent"', async () => {
    const root = join(dir, 'root');
    await mkdir(root);
    const source = new FsDesiredStateSource(root);
    await expect(source.readIfPresent('../nope.yaml')).rejects.toMatchObject({ code: 'OUTSIDE_ROOT' });
    await expect(source.readIfPresent('a/../../nope.yaml')).rejects.toMatchObject({ code: 'OUTSIDE_ROOT' });
  });

  it('a file one byte over maxBytes is answered by its size, unread', async () => {
    const root = join(dir, 'root');
    await mkdir(root);
    await writeFile(join(root, 'a.yaml'), 'x'.repeat(1025));
    const source = new FsDesiredStateSource(root);
    await source.list();
    expect(await source.read('a.yaml', { maxBytes: 1024 })).toEqual({ bytes: new Uint8Array(), size: 1025 });
    expect((await source.read('a.yaml', { maxBytes: 1025 })).bytes.length).toBe(1025);
  });
});

describe('the desired-state cache', () => {
  it('reads nothing for a key that is not 64 hex, even when a file is where it would lead', async () => {
    const cacheDir = join(dir, 'cache', 'desired');
    await mkdir(cacheDir, { recursive: true });
    await writeFile(join(dir, 'cache', 'outside.json'), '{"planted":true}');
    expect(await new FsDesiredStateCache(cacheDir).get('../outside')).toBeUndefined();
  });
});

describe('the archive store', () => {
  it('reads nothing (null, not a failure) under a key whose parent is a file', async () => {
    const archive = new FsArchiveStore(dir);
    await archive.put('usage', 'a file');
    expect(await archive.get('usage/2026-11.json')).toBeNull();
  });
});

describe('the desired-state cache, pruning', () => {
  // An entry's mtime is its last use; one set ahead (a clock stepped back, a copied directory) must not make the
  // entry just written the oldest.
  it('never removes the entry just written, whatever the others’ mtimes', async () => {
    const cacheDir = join(dir, 'cache');
    const cache = new FsDesiredStateCache(cacheDir, { maxEntries: 1 });
    await cache.put('a'.repeat(64), 'old');
    const ahead = new Date(Date.now() + 86_400_000);
    await utimes(join(cacheDir, `${'a'.repeat(64)}.json`), ahead, ahead);
    await cache.put('b'.repeat(64), 'new');
    expect(await cache.get('b'.repeat(64))).toBe('new');
    expect(await cache.get('a'.repeat(64))).toBeUndefined();
  });
});

describe('the secrets file', () => {
  it('a failed read is not kept: resolve succeeds once the file is there', async () => {
    const file = join(dir, 'secrets.json');
    const resolver = new FileSecretResolver(file);
    await expect(resolver.resolve('a#b')).rejects.toMatchObject({ code: 'SECRETS_FILE_NOT_FOUND' });
    await writeFile(file, JSON.stringify({ a: { b: 'value' } }));
    await expect(resolver.resolve('a#b')).resolves.toBe('value');
  });
});

describe('setup refusals', () => {
  it('a secrets file checked before it exists is checked again once it does', async () => {
    const file = join(dir, 'secrets.json');
    const resolver = new FileSecretResolver(file);
    await expect(resolver.check()).rejects.toMatchObject({ code: 'SECRETS_FILE_NOT_FOUND' });
    await writeFile(file, JSON.stringify({ a: { b: 'value' } }));
    await expect(resolver.check()).resolves.toBeUndefined();
  });

  it('a desired-state root that is a file is not a directory (not an I/O failure to retry)', async () => {
    await writeFile(join(dir, 'root.yaml'), 'a: 1\n');
    await expect(new FsDesiredStateSource(join(dir, 'root.yaml')).list()).rejects.toMatchObject({
      code: 'NOT_A_DIRECTORY',
    });
  });

  it('a desired-state cache keeping no entry (or a fraction of one) is refused', () => {
    for (const maxEntries of [0, -1, 1.5]) {
      expect(() => new FsDesiredStateCache(dir, { maxEntries })).toThrow(RangeError);
    }
  });
});
