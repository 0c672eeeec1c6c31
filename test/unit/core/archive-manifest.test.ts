// Scenario: the version manifest archive stores each distinct manifest once (as served), keeps index and latest consistent after a failure, refuses an empty or non-object manifest, and never overwrites an index it cannot read.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FsArchiveStore } from '../../../lambdas/adapters/local/archive-fs.ts';
import { archiveManifest } from '../../../lambdas/core/archive-manifest.ts';
import { sha256Hex } from '../../../lambdas/core/canonical.ts';
import { contentDigest } from '../../../lambdas/core/manifest-index.ts';
import type { ArchiveStore, OpsManagerApi } from '../../../lambdas/core/ports.ts';

const NOW = '2026-03-17T08:09:10.123Z';
const LATER = '2026-03-18T08:09:10.123Z';
const MANIFEST = '{"updated":1700000000000,"versions":[{"name":"6.0.5","builds":[]}]}';

class World {
  served = MANIFEST;
  readonly objects = new Map<string, string>();
  readonly failPut = new Set<string>();
  readonly api = {
    getVersionManifest: async () => {
      let value: unknown = null;
      if (this.served.trim() !== '') value = JSON.parse(this.served);
      return { text: this.served, value };
    },
  } as unknown as OpsManagerApi;
  readonly archive: ArchiveStore = {
    describe: () => 'memory',
    put: async (key, body, options) => {
      if (this.failPut.has(key)) throw new Error(`cannot write ${key}`);
      const created = !(options?.ifAbsent && this.objects.has(key));
      if (created) this.objects.set(key, String(body));
      return { key, created, location: `memory:${key}` };
    },
    get: async (key) => {
      const body = this.objects.get(key);
      return body === undefined ? null : new TextEncoder().encode(body);
    },
  };
  copies(): string[] {
    return [...this.objects.keys()].filter((k) => k.startsWith('manifests/sha256/'));
  }
  json(key: string): unknown {
    return JSON.parse(this.objects.get(key) ?? 'null');
  }
}

describe('archiveManifest', () => {
  it('stores the same manifest once when it is served again with other white space or member order', async () => {
    const w = new World();
    const first = await archiveManifest(w.api, w.archive, NOW);
    expect(first.changed).toBe(true);
    for (const text of [
      JSON.stringify(JSON.parse(MANIFEST), null, 2),
      '{"versions":[{"builds":[],"name":"6.0.5"}],"updated":1700000000000}',
    ]) {
      w.served = text;
      const again = await archiveManifest(w.api, w.archive, LATER);
      expect(again).toEqual({ ...first, changed: false });
    }
    expect(w.copies()).toEqual([first.key]);
    expect(w.objects.get(first.key)).toBe(MANIFEST);
    expect((w.json('manifests/index.json') as unknown[]).length).toBe(1);
    expect(w.json('manifests/latest.json')).toMatchObject({ sha256: first.sha256, fetchedAt: NOW });
  });

  it('recognises a reformatted manifest against an index written before entries carried their content digest', async () => {
    const w = new World();
    const first = await archiveManifest(w.api, w.archive, NOW);
    const old = [{ sha256: first.sha256, firstSeen: NOW, updated: 1700000000000 }];
    w.objects.set('manifests/index.json', JSON.stringify(old));
    w.served = JSON.stringify(JSON.parse(MANIFEST), null, 1);
    const again = await archiveManifest(w.api, w.archive, LATER);
    expect(again.changed).toBe(false);
    expect(w.copies()).toEqual([first.key]);
  });

  it('a changed manifest is stored, listed and pointed at', async () => {
    const w = new World();
    const first = await archiveManifest(w.api, w.archive, NOW);
    w.served = '{"updated":1800000000000,"versions":[]}';
    const next = await archiveManifest(w.api, w.archive, LATER);
    expect(next.changed).toBe(true);
    expect(next.sha256).toBe(sha256Hex(w.served));
    expect((w.json('manifests/index.json') as { sha256: string }[]).map((e) => e.sha256)).toEqual([
      first.sha256,
      next.sha256,
    ]);
    expect(w.json('manifests/latest.json')).toMatchObject({ sha256: next.sha256, updated: 1800000000000 });
  });

  it('a manifest seen before, served again after another one, names the one the last archive found', async () => {
    const w = new World();
    const first = await archiveManifest(w.api, w.archive, NOW);
    w.served = '{"updated":1800000000000,"versions":[]}';
    const second = await archiveManifest(w.api, w.archive, LATER);
    expect(second.previous).toBeUndefined(); // new content: `changed` says it
    w.served = MANIFEST; // Ops Manager went back to the first manifest
    const back = await archiveManifest(w.api, w.archive, '2026-03-19T08:09:10.123Z');
    expect(back).toEqual({ ...first, changed: false, previous: second.sha256 });
    expect(w.json('manifests/latest.json')).toMatchObject({ sha256: first.sha256 });
    expect(w.json('manifests/index.json')).toHaveLength(2);
    // Served again the next day: unchanged since the last archive, so no `previous`.
    const again = await archiveManifest(w.api, w.archive, '2026-03-20T08:09:10.123Z');
    expect(again).toEqual({ ...first, changed: false });
    // A damaged pointer is not quoted.
    w.objects.set('manifests/latest.json', JSON.stringify({ sha256: '../x', key: 'k', fetchedAt: NOW }));
    expect((await archiveManifest(w.api, w.archive, LATER)).previous).toBeUndefined();
  });

  it('refuses an empty body or a manifest that is not a JSON object, and stores nothing', async () => {
    for (const text of ['', '  \n', 'null', '[]', '"manifest"', '42']) {
      const w = new World();
      w.served = text;
      // Each named for what it is: an empty answer is not "JSON that is not an object".
      const why = text.trim() === '' ? /answered an empty body/ : /answered JSON that is not a JSON object/;
      await expect(archiveManifest(w.api, w.archive, NOW)).rejects.toThrow(why);
      expect([...w.objects.keys()]).toEqual([]);
    }
  });

  it('never overwrites an index it cannot read: the history would be lost', async () => {
    for (const index of ['{broken', '{"sha256":"x"}', '"x"']) {
      const w = new World();
      w.objects.set('manifests/index.json', index);
      // Left as it is, it stops every archive of the manifest: the message says how to get out.
      await expect(archiveManifest(w.api, w.archive, NOW)).rejects.toThrow(
        /manifests\/index\.json .*left as it is \(rewriting it would lose the history\): no version manifest is archived until it is fixed: put back its last good version \(.*aws s3api list-object-versions --prefix archive\/manifests\/index\.json\), or move it aside/,
      );
      expect(w.objects.get('manifests/index.json')).toBe(index);
      expect(w.objects.has('manifests/latest.json')).toBe(false);
    }
  });

  it('skips a malformed index entry with a warning naming its position, keeps it, and never makes it a key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'archive-odd-entry-'));
    try {
      const archive = new FsArchiveStore(join(dir, 'archive'));
      const good = { sha256: 'a'.repeat(64), firstSeen: '2026-01-01T00:00:00.000Z', content: 'b'.repeat(64) };
      const odd = [
        { sha256: '../../reports/x', firstSeen: '2026-01-02T00:00:00.000Z' },
        { sha256: 'A'.repeat(64), firstSeen: '2026-01-03T00:00:00.000Z' },
        { sha256: 'c'.repeat(63), firstSeen: '2026-01-04T00:00:00.000Z' },
        null,
        { firstSeen: '2026-01-05T00:00:00.000Z' },
        { sha256: 'd'.repeat(64) },
        // 64 hex digits, then a path: the whole value must be the digest, not merely contain one.
        { sha256: `${'e'.repeat(64)}/../../reports/y`, firstSeen: '2026-01-06T00:00:00.000Z' },
      ];
      const stored = [good, ...odd];
      const indexPath = join(dir, 'archive/manifests/index.json');
      await archive.put('manifests/index.json', JSON.stringify(stored));
      const w = new World();
      const warnings: string[] = [];
      for (const now of [NOW, LATER]) {
        // Every run passes: the part no longer fails until someone edits the index.
        const result = await archiveManifest(w.api, archive, now, { warn: (m) => warnings.push(m) });
        expect(result.sha256).toBe(sha256Hex(MANIFEST));
      }
      expect(warnings.slice(0, 7)).toEqual([
        'manifests/index.json entry [1] has sha256 "../../reports/x", not 64 lowercase hex digits: skipped, and left in the index as it is (correct or remove it by hand)',
        `manifests/index.json entry [2] has sha256 "${'A'.repeat(64)}", not 64 lowercase hex digits: skipped, and left in the index as it is (correct or remove it by hand)`,
        `manifests/index.json entry [3] has sha256 "${'c'.repeat(63)}", not 64 lowercase hex digits: skipped, and left in the index as it is (correct or remove it by hand)`,
        'manifests/index.json entry [4] is not an object: skipped, and left in the index as it is (correct or remove it by hand)',
        'manifests/index.json entry [5] has no sha256: skipped, and left in the index as it is (correct or remove it by hand)',
        'manifests/index.json entry [6] has no firstSeen: skipped, and left in the index as it is (correct or remove it by hand)',
        `manifests/index.json entry [7] has sha256 "${'e'.repeat(64)}/../../reports/y", not 64 lowercase hex digits: skipped, and left in the index as it is (correct or remove it by hand)`,
      ]);
      expect(warnings).toHaveLength(14);
      // Kept as they were, in their places; the new manifest appended once.
      const index = JSON.parse(await readFile(indexPath, 'utf8')) as unknown[];
      expect(index.slice(0, stored.length)).toEqual(stored);
      expect(index).toHaveLength(stored.length + 1);
      expect(index[stored.length]).toMatchObject({ sha256: sha256Hex(MANIFEST) });
      // Nothing written outside manifests/ (no reports/ beside it), nor under another name in manifests/sha256/.
      expect(await readdir(join(dir, 'archive'))).toEqual(['manifests']);
      expect(await readdir(join(dir, 'archive/manifests/sha256'))).toEqual([`${sha256Hex(MANIFEST)}.json`]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses an index of a newer format by its version, and leaves it as it is', async () => {
    const w = new World();
    const newer = JSON.stringify({ formatVersion: 2, entries: [] });
    w.objects.set('manifests/index.json', newer);
    await expect(archiveManifest(w.api, w.archive, NOW)).rejects.toThrow(
      'the stored manifests/index.json has formatVersion 2; this version reads formatVersion 1 (a JSON list of entries): it was written by a newer version of opsman-gitops; it is left as it is (rewriting it would lose the history): archive with that version, or a later one',
    );
    expect(w.objects.get('manifests/index.json')).toBe(newer);
  });

  it('keeps the fields a later version added to index entries when it appends one', async () => {
    const w = new World();
    const later = [
      { sha256: 'a'.repeat(64), firstSeen: '2026-01-01T00:00:00.000Z', content: 'b'.repeat(64), source: 'x' },
    ];
    w.objects.set('manifests/index.json', JSON.stringify(later));
    await archiveManifest(w.api, w.archive, NOW);
    const index = w.json('manifests/index.json') as Record<string, unknown>[];
    expect(index).toHaveLength(2);
    expect(index[0]).toEqual(later[0]);
  });

  it('after a failed write of latest, the next run completes it; latest never names a manifest the index lacks', async () => {
    const w = new World();
    await archiveManifest(w.api, w.archive, NOW);
    w.served = '{"updated":1800000000000,"versions":[]}';
    w.failPut.add('manifests/latest.json');
    await expect(archiveManifest(w.api, w.archive, LATER)).rejects.toThrow(/cannot write/);
    const sha = sha256Hex(w.served);
    expect((w.json('manifests/index.json') as { sha256: string }[]).map((e) => e.sha256)).toContain(sha);
    w.failPut.clear();
    const next = await archiveManifest(w.api, w.archive, LATER);
    expect(next.sha256).toBe(sha);
    expect(w.json('manifests/latest.json')).toMatchObject({ sha256: sha });

    const v = new World();
    v.failPut.add('manifests/index.json');
    await expect(archiveManifest(v.api, v.archive, NOW)).rejects.toThrow(/cannot write/);
    expect(v.objects.has('manifests/latest.json')).toBe(false);
  });

  it('rewrites a latest.json that names the right sha256 but lost or damaged its other members', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'archive-latest-'));
    try {
      const w = new World();
      const archive = new FsArchiveStore(dir);
      const first = await archiveManifest(w.api, archive, NOW);
      const latestPath = join(dir, 'manifests/latest.json');
      const intact = JSON.parse(await readFile(latestPath, 'utf8')) as Record<string, unknown>;
      for (const damaged of [
        { sha256: first.sha256 },
        { ...intact, key: 'manifests/sha256/elsewhere.json' },
        { ...intact, fetchedAt: 17 },
        { ...intact, updated: 1 },
      ]) {
        await writeFile(latestPath, JSON.stringify(damaged));
        await archiveManifest(w.api, archive, LATER);
        expect(JSON.parse(await readFile(latestPath, 'utf8'))).toEqual({ ...intact, fetchedAt: LATER });
      }
      // An intact one is left as it is (its fetchedAt says when it started naming this manifest).
      await archiveManifest(w.api, archive, '2026-03-19T08:09:10.123Z');
      expect(JSON.parse(await readFile(latestPath, 'utf8'))).toEqual({ ...intact, fetchedAt: LATER });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('replaces a stored copy whose bytes no longer match its digest (a damaged file), in a directory with spaces', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'archive manifest '));
    try {
      const w = new World();
      const archive = new FsArchiveStore(join(dir, 'my archive'));
      const first = await archiveManifest(w.api, archive, NOW);
      // Damaged outside the tool (a truncated copy, an edit): the index and latest still name it.
      await writeFile(first.location, MANIFEST.slice(0, 20));
      const again = await archiveManifest(w.api, archive, LATER);
      // Restored, not new: `changed` is for a manifest not seen before.
      expect(again).toEqual({ ...first, changed: false, restored: true });
      expect(await readFile(first.location, 'utf8')).toBe(MANIFEST);
      // Lost (removed) the same way; then, intact, neither changed nor restored.
      await rm(first.location);
      expect(await archiveManifest(w.api, archive, LATER)).toEqual({ ...first, changed: false, restored: true });
      expect(await archiveManifest(w.api, archive, LATER)).toEqual({ ...first, changed: false });
      // Not a new manifest: the index keeps its one entry.
      expect(JSON.parse(await readFile(join(dir, 'my archive/manifests/index.json'), 'utf8'))).toHaveLength(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['lost', (w: World, key: string) => w.objects.delete(key)],
    ['damaged', (w: World, key: string) => w.objects.set(key, MANIFEST.slice(0, 20))],
  ])(
    'a manifest served in another form whose first copy is %s is stored from the served text, and latest names it',
    async (_, harm) => {
      const w = new World();
      const first = await archiveManifest(w.api, w.archive, NOW);
      // The only copy of this content is lost or damaged; the same manifest is then served with other white space.
      harm(w, first.key);
      w.served = JSON.stringify(JSON.parse(MANIFEST), null, 2);
      const again = await archiveManifest(w.api, w.archive, LATER);
      // latest must name a copy that exists and holds the manifest: the served text's, the only one there is.
      const latest = w.json('manifests/latest.json') as { key: string; sha256: string };
      expect(latest.key).toBe(again.key);
      expect(w.objects.get(latest.key)).toBe(w.served);
      expect(sha256Hex(w.served)).toBe(latest.sha256);
      // And the index lists it, so latest never names a manifest the index lacks.
      const index = w.json('manifests/index.json') as { sha256: string }[];
      expect(index.map((e) => e.sha256)).toEqual([first.sha256, latest.sha256]);
      // Not new content: restored, in the form it was served this time.
      expect(again).toMatchObject({ changed: false, restored: true, sha256: latest.sha256 });
    },
  );

  it('an index entry another run appended meanwhile for the same content (other bytes) is the one latest names', async () => {
    const w = new World();
    const rival = JSON.stringify(JSON.parse(MANIFEST), null, 2);
    const rivalKey = `manifests/sha256/${sha256Hex(rival)}.json`;
    let raced = false;
    const archive: ArchiveStore = {
      ...w.archive,
      getVersioned: async (key) => {
        const bytes = await w.archive.get(key);
        return bytes === null ? null : { bytes, version: 'v' };
      },
      put: async (key, body, options) => {
        if (key === 'manifests/index.json' && !raced) {
          raced = true;
          // Another run stored its copy of the same manifest (other white space) and indexed it first.
          w.objects.set(rivalKey, rival);
          const entry = { sha256: sha256Hex(rival), firstSeen: NOW, content: contentDigest(JSON.parse(rival)) };
          w.objects.set('manifests/index.json', JSON.stringify([entry]));
        }
        return w.archive.put(key, body, options);
      },
    };
    const result = await archiveManifest(w.api, archive, LATER);
    expect(result).toMatchObject({ sha256: sha256Hex(rival), key: rivalKey });
    expect(w.json('manifests/latest.json')).toMatchObject({ sha256: sha256Hex(rival), key: rivalKey });
    expect(w.json('manifests/index.json')).toHaveLength(1);
  });
});
