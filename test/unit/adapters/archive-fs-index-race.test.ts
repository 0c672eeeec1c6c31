// Scenario: two archive runs on one --archive-dir at once, each seeing its own manifest, both land in manifests/index.json: the local store replaces a file only while it still holds the version read (sha256 of its bytes, checked under an O_EXCL lock file), as S3 does with If-Match.
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsArchiveStore } from '../../../lambdas/adapters/local/archive-fs.ts';
import { StoppableArchiveStore } from '../../../lambdas/cli/archive-interrupt.ts';
import { RecordingArchiveStore } from '../../../lambdas/cli/runtime.ts';
import { archiveManifest } from '../../../lambdas/core/archive-manifest.ts';
import type { ArchiveStore, OpsManagerApi } from '../../../lambdas/core/ports.ts';

const INDEX = 'manifests/index.json';
const hex = (text: string) => createHash('sha256').update(text).digest('hex');
const serving = (text: string) =>
  ({ getVersionManifest: async () => ({ text, value: JSON.parse(text) }) }) as unknown as OpsManagerApi;

/** The store the CLI's `archive` uses: the local directory behind its recording and stoppable wrappers. */
function cliStore(dir: string): ArchiveStore {
  return new StoppableArchiveStore(new RecordingArchiveStore(new FsArchiveStore(dir)), new AbortController().signal);
}

/**
 * `store`, whose first write of the index waits until `runs` runs have reached theirs: every run has read the index
 * before any rewrites it, the window in which an unconditional rewrite drops the other's entry.
 */
function meetingAtIndex(stores: ArchiveStore[]): ArchiveStore[] {
  let arrived = 0;
  let release: () => void = () => {};
  const allThere = new Promise<void>((resolve) => {
    release = resolve;
  });
  return stores.map((store) => {
    let met = false;
    const wrapped: ArchiveStore = {
      describe: () => store.describe(),
      get: (key) => store.get(key),
      put: async (key, body, options) => {
        if (key === INDEX && !met) {
          met = true;
          arrived += 1;
          if (arrived === stores.length) release();
          await allThere;
        }
        return store.put(key, body, options);
      },
    };
    const read = store.getVersioned;
    if (read !== undefined) wrapped.getVersioned = (key) => read.call(store, key);
    return wrapped;
  });
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'archive-race-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function indexed(): Promise<string[]> {
  const entries = JSON.parse(await readFile(join(dir, INDEX), 'utf8')) as { sha256: string }[];
  return entries.map((e) => e.sha256).sort();
}

/** Archive runs at once, one per text served, on the CLI's store over `dir`, meeting before their index writes. */
async function racingRuns(texts: string[], now: string): Promise<void> {
  const stores = meetingAtIndex(texts.map(() => cliStore(dir)));
  await Promise.all(stores.map((store, i) => archiveManifest(serving(texts[i] ?? ''), store, now)));
}

describe('two archive runs on one archive directory at once', () => {
  it('both manifests end up in manifests/index.json, with and without an index before them', async () => {
    // Absent index: both create it (ifAbsent); one wins, the other reads it and appends.
    const seen = ['{"updated":1,"versions":[]}', '{"updated":2,"versions":[]}'];
    await racingRuns(seen, '2026-03-01T00:00:00.000Z');
    expect(await indexed()).toEqual(seen.map(hex).sort());
    // An index there: both replace it from the same version; one wins, the other reads it again and appends.
    const more = ['{"updated":3,"versions":[]}', '{"updated":4,"versions":[]}'];
    await racingRuns(more, '2026-03-02T00:00:00.000Z');
    expect(await indexed()).toEqual([...seen, ...more].map(hex).sort());
    // The lock files are gone.
    expect((await readdir(join(dir, 'manifests'))).filter((n) => n.endsWith('.lock'))).toEqual([]);
  });
});

describe('FsArchiveStore conditional replace (ifVersion)', () => {
  it('replaces a file only while it holds the version read; a changed or removed one is left alone', async () => {
    const store = new FsArchiveStore(dir);
    await store.put(INDEX, '[]\n');
    const read = await store.getVersioned(INDEX);
    expect(read?.version).toBe(hex('[]\n'));
    await store.put(INDEX, '[1]\n');
    expect((await store.put(INDEX, '[2]\n', { ifVersion: read?.version ?? '' })).created).toBe(false);
    expect(await readFile(join(dir, INDEX), 'utf8')).toBe('[1]\n');
    const now = await store.getVersioned(INDEX);
    expect((await store.put(INDEX, '[2]\n', { ifVersion: now?.version ?? '' })).created).toBe(true);
    expect(await readFile(join(dir, INDEX), 'utf8')).toBe('[2]\n');
    await rm(join(dir, 'manifests'), { recursive: true });
    expect(await store.getVersioned(INDEX)).toBeNull();
    expect((await store.put(INDEX, '[3]\n', { ifVersion: now?.version ?? '' })).created).toBe(false);
  });

  it('waits for a lock another run holds, and takes over one abandoned (older than staleLockMs)', async () => {
    const store = new FsArchiveStore(dir, { staleLockMs: 30_000, lockWaitMs: 50 });
    await store.put(INDEX, '[]\n');
    const version = hex('[]\n');
    const lock = join(dir, `${INDEX}.lock`);
    await writeFile(lock, '');
    await expect(store.put(INDEX, '[1]\n', { ifVersion: version })).rejects.toThrow(/index\.json\.lock is held/);
    expect(await readFile(join(dir, INDEX), 'utf8')).toBe('[]\n');
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    expect((await store.put(INDEX, '[1]\n', { ifVersion: version })).created).toBe(true);
    expect(await readdir(join(dir, 'manifests'))).toEqual(['index.json']);
  });
});

/**
 * `store`, on whose first write of the index another run rewrites it first (`rewrite` gives the index it writes, from
 * the text there): the write then meets an index changed since it was read, and the run reads it again and retries.
 */
function overtakenAtIndex(store: ArchiveStore, rewrite: (stored: unknown[]) => unknown[]): ArchiveStore {
  let overtaken = false;
  const wrapped: ArchiveStore = {
    describe: () => store.describe(),
    get: (key) => store.get(key),
    put: async (key, body, options) => {
      if (key === INDEX && !overtaken) {
        overtaken = true;
        const there = JSON.parse(await readFile(join(dir, INDEX), 'utf8')) as unknown[];
        await writeFile(join(dir, INDEX), `${JSON.stringify(rewrite(there), null, 2)}\n`);
      }
      return store.put(key, body, options);
    },
  };
  const read = store.getVersioned;
  if (read !== undefined) wrapped.getVersioned = (key) => read.call(store, key);
  return wrapped;
}

const OTHER = { sha256: hex('{"updated":0,"versions":[]}'), firstSeen: '2026-02-01T00:00:00.000Z' };
const BAD = { sha256: '../x', firstSeen: '2026-02-02T00:00:00.000Z' };
const skippedAt = (n: number, problem: string) =>
  `${INDEX} entry [${n}] ${problem}: skipped, and left in the index as it is (correct or remove it by hand)`;

describe('an archive run whose index rewrite loses a race and is retried', () => {
  it('lists manifests/index.json once among the objects written, as written (not also unchanged)', async () => {
    const recording = new RecordingArchiveStore(new FsArchiveStore(dir));
    await new FsArchiveStore(dir).put(INDEX, `${JSON.stringify([OTHER], null, 2)}\n`);
    const store = overtakenAtIndex(new StoppableArchiveStore(recording, new AbortController().signal), (there) => [
      ...there,
      { sha256: hex('another'), firstSeen: '2026-03-01T00:00:00.000Z' },
    ]);
    await archiveManifest(serving('{"updated":1,"versions":[]}'), store, '2026-03-01T00:00:00.000Z');
    expect(recording.written.map((o) => [o.key, o.created])).toEqual([
      [`manifests/sha256/${hex('{"updated":1,"versions":[]}')}.json`, true],
      [INDEX, true],
      ['manifests/latest.json', true],
    ]);
    expect(await indexed()).toEqual([OTHER.sha256, hex('another'), hex('{"updated":1,"versions":[]}')].sort());
  });

  it("warns of the malformed entries of the index finally written, each once, not the first read's", async () => {
    await new FsArchiveStore(dir).put(INDEX, `${JSON.stringify([BAD, OTHER], null, 2)}\n`);
    // Meanwhile the bad entry was corrected by hand and another run wrote one without a firstSeen.
    const store = overtakenAtIndex(cliStore(dir), () => [OTHER, { sha256: hex('x') }]);
    const warnings: string[] = [];
    await archiveManifest(serving('{"updated":1,"versions":[]}'), store, '2026-03-01T00:00:00.000Z', {
      warn: (m) => warnings.push(m),
    });
    expect(warnings).toEqual([skippedAt(1, 'has no firstSeen')]);
    const written = JSON.parse(await readFile(join(dir, INDEX), 'utf8')) as unknown[];
    expect(written.slice(0, 2)).toEqual([OTHER, { sha256: hex('x') }]);
  });

  it('warns once of a malformed entry both reads met', async () => {
    await new FsArchiveStore(dir).put(INDEX, `${JSON.stringify([BAD], null, 2)}\n`);
    const store = overtakenAtIndex(cliStore(dir), (there) => [...there, OTHER]);
    const warnings: string[] = [];
    await archiveManifest(serving('{"updated":1,"versions":[]}'), store, '2026-03-01T00:00:00.000Z', {
      warn: (m) => warnings.push(m),
    });
    expect(warnings).toEqual([skippedAt(0, 'has sha256 "../x", not 64 lowercase hex digits')]);
    expect(await indexed()).toEqual(['../x', OTHER.sha256, hex('{"updated":1,"versions":[]}')].sort());
  });
});
