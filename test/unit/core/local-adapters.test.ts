// Scenario: the local adapters: atomic state with version conflicts and corruption detection, O_EXCL lease with safe takeover, archive ifAbsent and concurrent writes, shared directory syncs, fingerprint key.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsArchiveStore } from '../../../lambdas/adapters/local/archive-fs.ts';
import { syncDirectory } from '../../../lambdas/adapters/local/dir-sync.ts';
import {
  FingerprintKeyError,
  loadFingerprintKey,
  parseFingerprintKey,
} from '../../../lambdas/adapters/local/fingerprint-key.ts';
import { FsStateStore } from '../../../lambdas/adapters/local/state-fs.ts';
import { LeaseHeldError, LeaseLostError, StateConflictError, StateCorruptError } from '../../../lambdas/core/errors.ts';
import { emptyState } from '../../../lambdas/core/state.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reconcile-adapters-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('FsStateStore: state', () => {
  it('reads nothing at first, writes with version checks, and leaves no temp files', async () => {
    const store = new FsStateStore(dir);
    expect(await store.read()).toEqual({ state: null, version: null });
    const v1 = await store.write(emptyState('2026-01-01T00:00:00Z'), null);
    await expect(store.write(emptyState('x'), null)).rejects.toThrow(StateConflictError);
    const read = await store.read();
    expect(read.version).toBe(v1);
    expect(read.state?.formatVersion).toBe(1);
    const v2 = await store.write({ ...emptyState('2026-01-02T00:00:00Z'), projects: { p: { alertConfigs: {} } } }, v1);
    expect(v2).not.toBe(v1);
    await expect(store.write(emptyState('y'), v1)).rejects.toThrow(/expected version/);
    expect((await readdir(dir)).sort()).toEqual(['state.json']);
    expect((await stat(join(dir, 'state.json'))).mode & 0o777).toBe(0o600);
  });

  it('concurrent writers from one version: exactly one wins', async () => {
    const store = new FsStateStore(dir);
    const v = await store.write(emptyState('a'), null);
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => new FsStateStore(dir).write({ ...emptyState(`w${i}`) }, v)),
    );
    expect(results.filter((r) => r.status === 'fulfilled').length).toBe(1);
    expect(results.filter((r) => r.status === 'rejected' && r.reason instanceof StateConflictError).length).toBe(5);
  });

  it('detects a corrupt state and can replace it using the version it reports', async () => {
    await writeFile(join(dir, 'state.json'), '{"formatVersion": 1, "projects": ');
    const store = new FsStateStore(dir);
    const error = await store.read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateCorruptError);
    await store.write(emptyState('fixed'), (error as StateCorruptError).version);
    expect((await store.read()).state?.updatedAt).toBe('fixed');
    await writeFile(join(dir, 'state.json'), '{"formatVersion": 1, "updatedAt": "x", "projects": {"p": null}}');
    await expect(store.read()).rejects.toThrow(/not a state document: projects.p is null, expected an object/);
    // A newer format is not corrupt: it is refused as it is, never replaced.
    await writeFile(join(dir, 'state.json'), '{"formatVersion": 2}');
    await expect(store.read()).rejects.toMatchObject({ code: 'STATE_TOO_NEW' });
  });

  it('keeps the corrupt file aside (state.json.corrupt-<sha>, 0600) before replacing it; a sound state is not copied', async () => {
    const corrupt = '{"formatVersion": 1, "projects": {"p": {"alertConfigs": {"a": {"id": "6a0000000000000000000001"';
    await writeFile(join(dir, 'state.json'), corrupt, { mode: 0o644 }); // made by hand, readable by others
    const store = new FsStateStore(dir);
    const { version } = (await store.read().catch((e: unknown) => e)) as StateCorruptError;
    const v2 = await store.write(emptyState('fixed'), version);
    const copy = join(dir, `state.json.corrupt-${(version as string).slice(0, 12)}`);
    expect(await readFile(copy, 'utf8')).toBe(corrupt);
    expect((await stat(copy)).mode & 0o777).toBe(0o600);
    await store.write(emptyState('again'), v2);
    expect((await readdir(dir)).filter((n) => n.includes('corrupt'))).toEqual([
      `state.json.corrupt-${(version as string).slice(0, 12)}`,
    ]);
  });
});

describe('FsStateStore: the copy of a corrupt state', () => {
  const corruptCopies = async () => (await readdir(dir)).filter((n) => n.includes('corrupt')).sort();
  const copyOf = (version: string) => join(dir, `state.json.corrupt-${version.slice(0, 12)}`);
  const readCorrupt = async (store: FsStateStore) =>
    ((await store.read().catch((e: unknown) => e)) as StateCorruptError).version as string;

  it('replaces a copy cut short (a full disk, a crash) instead of trusting its name; a second corrupt content gets its own', async () => {
    const corrupt = '{"formatVersion": 1, "projects": {"p": {"alertConfigs": {"a": {"id": "6a0000000000000000000001"';
    await writeFile(join(dir, 'state.json'), corrupt);
    const store = new FsStateStore(dir);
    const version = await readCorrupt(store);
    await writeFile(copyOf(version), corrupt.slice(0, 10)); // what an interrupted copy left
    const v2 = await store.write(emptyState('fixed'), version);
    expect(await readFile(copyOf(version), 'utf8')).toBe(corrupt);
    expect((await stat(copyOf(version))).mode & 0o777).toBe(0o600);

    const other = `${corrupt} and more`;
    await writeFile(join(dir, 'state.json'), other);
    const version2 = await readCorrupt(store);
    expect(version2).not.toBe(v2);
    await store.write(emptyState('again'), version2);
    expect(await readFile(copyOf(version2), 'utf8')).toBe(other);
    expect(await corruptCopies()).toEqual(
      [copyOf(version), copyOf(version2)].map((p) => p.slice(dir.length + 1)).sort(),
    );
    expect((await readdir(dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('fails with the copy named, leaving the corrupt state as it was, when the copy cannot be written', async () => {
    const corrupt = '{"formatVersion": 1, "projects": ';
    await writeFile(join(dir, 'state.json'), corrupt);
    const store = new FsStateStore(dir);
    const version = await readCorrupt(store);
    // Something in the way of the copy that is not a copy (here a directory of that name, with a file in it).
    await mkdir(copyOf(version));
    await writeFile(join(copyOf(version), 'x'), 'x');
    const error = await store.write(emptyState('fixed'), version).catch((e: unknown) => e);
    expect((error as Error).message).toContain(`keep a copy of the corrupt state as ${copyOf(version)}`);
    expect(await readFile(join(dir, 'state.json'), 'utf8')).toBe(corrupt);
    expect((await readdir(dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});

describe('FsStateStore: lease', () => {
  it('holds, refuses a second holder by name, renews, releases only its own', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const store = new FsStateStore(dir, { now: () => new Date(now) });
    const lease = await store.acquireLease({ owner: 'cli:a@h', runId: 'r1', ttlMs: 10_000 });
    const held = await store.acquireLease({ owner: 'cli:b@h', runId: 'r2', ttlMs: 10_000 }).catch((e: unknown) => e);
    expect(held).toBeInstanceOf(LeaseHeldError);
    expect((held as LeaseHeldError).holder).toMatchObject({ owner: 'cli:a@h', runId: 'r1' });
    now += 5_000;
    const renewed = await store.renewLease(lease, 10_000);
    expect(Date.parse(renewed.expiresAt)).toBe(now + 10_000);
    await store.releaseLease({ ...lease, token: 'not-mine' });
    expect(JSON.parse(await readFile(join(dir, 'lease.json'), 'utf8')).runId).toBe('r1');
    await store.releaseLease(renewed);
    expect((await readdir(dir)).includes('lease.json')).toBe(false);
  });

  it('says so when a held lease expires implausibly far ahead (a wrong clock or an edited file), and only then', async () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const clockAhead = new FsStateStore(dir, { now: () => new Date(now + 400 * 86_400_000) });
    await clockAhead.acquireLease({ owner: 'skewed', runId: 'r1', ttlMs: 900_000 });
    const store = new FsStateStore(dir, { now: () => new Date(now) });
    const held = await store.acquireLease({ owner: 'next', runId: 'r2', ttlMs: 900_000 }).catch((e: unknown) => e);
    expect(held).toBeInstanceOf(LeaseHeldError);
    expect((held as Error).message).toContain('that is 400 day(s) ahead, longer than any lease lasts');
    expect((held as Error).message).toContain('if no run is in progress, remove it');
    // A lease of an ordinary run says nothing of the kind.
    const normal = new FsStateStore(dir, { now: () => new Date(now + 400 * 86_400_000 + 60_000) });
    const busy = await normal.acquireLease({ owner: 'third', runId: 'r3', ttlMs: 900_000 }).catch((e: unknown) => e);
    expect((busy as Error).message).toContain('expires');
    expect((busy as Error).message).not.toContain('ahead');
  });

  it('takes over an expired lease; the old holder then finds it lost', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const store = new FsStateStore(dir, { now: () => new Date(now) });
    const old = await store.acquireLease({ owner: 'crashed', runId: 'r1', ttlMs: 1_000 });
    now += 2_000;
    const fresh = await store.acquireLease({ owner: 'next', runId: 'r2', ttlMs: 1_000 });
    expect(fresh.runId).toBe('r2');
    await expect(store.renewLease(old, 1_000)).rejects.toThrow(LeaseLostError);
    await store.releaseLease(old);
    expect(JSON.parse(await readFile(join(dir, 'lease.json'), 'utf8')).runId).toBe('r2');
  });

  it('many racing acquirers: exactly one gets the lease', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        new FsStateStore(dir).acquireLease({ owner: `o${i}`, runId: `r${i}`, ttlMs: 60_000 }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled').length).toBe(1);
  });

  it('an unreadable lease file counts as held for a lease lifetime from its mtime, then as expired', async () => {
    await writeFile(join(dir, 'lease.json'), 'garbage');
    await expect(new FsStateStore(dir).acquireLease({ owner: 'o', runId: 'r', ttlMs: 60_000 })).rejects.toThrow(
      LeaseHeldError,
    );
    const old = new Date(Date.now() - 2_000);
    await utimes(join(dir, 'lease.json'), old, old);
    const lease = await new FsStateStore(dir).acquireLease({ owner: 'o', runId: 'r', ttlMs: 1_000 });
    expect(lease.owner).toBe('o');
  });
});

describe('FsArchiveStore', () => {
  it('writes atomically, keeps existing objects with ifAbsent, reads back, refuses escaping keys', async () => {
    const archive = new FsArchiveStore(dir);
    const a = await archive.put('manifests/sha256/abc.json', '{"a":1}', { ifAbsent: true });
    expect(a.created).toBe(true);
    const b = await archive.put('manifests/sha256/abc.json', '{"b":2}', { ifAbsent: true });
    expect(b.created).toBe(false);
    expect(new TextDecoder().decode((await archive.get('manifests/sha256/abc.json')) as Uint8Array)).toBe('{"a":1}');
    await archive.put('manifests/latest.json', 'x');
    await archive.put('manifests/latest.json', 'y');
    expect(new TextDecoder().decode((await archive.get('manifests/latest.json')) as Uint8Array)).toBe('y');
    expect(await archive.get('missing.json')).toBeNull();
    for (const bad of ['../x', '/abs', 'a//b', 'a/./b'])
      await expect(archive.put(bad, 'x')).rejects.toThrow(/invalid archive key/);
    expect((await readdir(join(dir, 'manifests', 'sha256'))).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('like the S3 store, refuses a content-addressed key whose body has another sha256, and stores nothing', async () => {
    const archive = new FsArchiveStore(dir);
    const body = '{"versions":[]}';
    const hex = createHash('sha256').update(body).digest('hex');
    await expect(archive.put(`manifests/sha256/${'0'.repeat(64)}.json`, body, { ifAbsent: true })).rejects.toThrow(
      `content has sha256 ${hex}`,
    );
    expect(await archive.get(`manifests/sha256/${'0'.repeat(64)}.json`)).toBeNull();
    expect((await archive.put(`manifests/sha256/${hex}.json`, body, { ifAbsent: true })).created).toBe(true);
  });

  it('writes 200 objects into one directory at once, every one complete, no temp file left', async () => {
    const archive = new FsArchiveStore(dir);
    const keys = Array.from({ length: 200 }, (_, i) => `usage/2026-11/assignments-${i}.json`);
    await Promise.all(keys.map((key, i) => archive.put(key, `{"i":${i}}`)));
    const names = await readdir(join(dir, 'usage', '2026-11'));
    expect(names.sort()).toEqual(keys.map((k) => k.split('/')[2]).sort());
    expect(new TextDecoder().decode((await archive.get(keys[137] as string)) as Uint8Array)).toBe('{"i":137}');
  });

  it('makes a directory again when it was removed between two writes (plain and ifAbsent)', async () => {
    const archive = new FsArchiveStore(dir);
    await archive.put('usage/2026-11/a.json', 'a');
    await rm(join(dir, 'usage'), { recursive: true });
    await archive.put('usage/2026-11/b.json', 'b');
    await rm(join(dir, 'usage'), { recursive: true });
    const c = await archive.put('usage/2026-11/c.json', 'c', { ifAbsent: true });
    expect(c.created).toBe(true);
    expect(await readdir(join(dir, 'usage', '2026-11'))).toEqual(['c.json']);
  });
});

describe('syncDirectory (group commit)', () => {
  it('shares one queued sync among callers and starts a new one for callers after it began', async () => {
    const first = syncDirectory(dir);
    const joined = syncDirectory(dir);
    // Both calls came before the queued sync started: they share it.
    expect(joined).toBe(first);
    await first;
    const later = syncDirectory(dir);
    expect(later).not.toBe(first);
    await later;
  });

  it('never rejects, even for a directory that does not exist', async () => {
    await expect(syncDirectory(join(dir, 'missing'))).resolves.toBeUndefined();
  });
});

describe('fingerprint key', () => {
  it('parses hex and base64, refuses short or malformed keys without echoing them', () => {
    expect(parseFingerprintKey('00'.repeat(32), 'env').length).toBe(32);
    expect(parseFingerprintKey(Buffer.alloc(24, 1).toString('base64'), 'env').length).toBe(24);
    expect(() => parseFingerprintKey('abcd', 'OPSMAN_FINGERPRINT_KEY')).toThrow(/2 bytes; at least 16/);
    const error = (() => {
      try {
        parseFingerprintKey('not a key!!', 'OPSMAN_FINGERPRINT_KEY');
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error).toBeInstanceOf(FingerprintKeyError);
    expect(error?.message).not.toContain('not a key');
  });

  it('prefers the environment, else generates once into the state dir with mode 0600 and reuses it', async () => {
    const fromEnv = await loadFingerprintKey(dir, { OPSMAN_FINGERPRINT_KEY: 'ab'.repeat(16) });
    expect(Buffer.from(fromEnv).toString('hex')).toBe('ab'.repeat(16));
    const [k1, k2] = await Promise.all([
      loadFingerprintKey(join(dir, 's'), {}),
      loadFingerprintKey(join(dir, 's'), {}),
    ]);
    expect(Buffer.from(k1).equals(Buffer.from(k2))).toBe(true);
    expect((await stat(join(dir, 's', 'fingerprint.key'))).mode & 0o777).toBe(0o600);
    const again = await loadFingerprintKey(join(dir, 's'), {});
    expect(Buffer.from(again).equals(Buffer.from(k1))).toBe(true);
  });

  it('creates the state directory 0700 whatever the umask (under umask 000 another user could swap the key)', async () => {
    const previous = process.umask(0);
    try {
      await loadFingerprintKey(join(dir, 'k', 'state'), {});
      expect((await stat(join(dir, 'k', 'state'))).mode & 0o777).toBe(0o700);
      await new FsStateStore(join(dir, 'st', 'state')).write(emptyState('2026-01-01T00:00:00Z'), null);
      expect((await stat(join(dir, 'st', 'state'))).mode & 0o777).toBe(0o700);
      // The archive store may be the first to create the state directory (`archive` before any plan).
      await new FsArchiveStore(join(dir, 'ar', 'state', 'archive')).put('manifests/x.json', '{}');
      expect((await stat(join(dir, 'ar', 'state'))).mode & 0o777).toBe(0o700);
    } finally {
      process.umask(previous);
    }
  });
});
