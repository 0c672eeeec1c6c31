// The snapshot manifest of an upload: built from bytes, written and parsed back, every malformed form refused by
// name, and a torn read (new file next to an old one, a file missing, a file not in the upload) told apart.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  buildSnapshotManifest,
  parseSnapshotManifest,
  SnapshotManifestError,
  snapshotManifestText,
  snapshotMismatches,
} from '../../../lambdas/core/desired/snapshot-manifest.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const isYaml = (p: string) => /\.ya?ml$/i.test(p);

describe('buildSnapshotManifest and its text', () => {
  it('hashes each file, sorts by path and round-trips through its text', () => {
    const m = buildSnapshotManifest([
      { path: 'projects/b.yaml', bytes: enc('b: 2\n') },
      { path: 'a.yaml', bytes: enc('a: 1\n') },
    ]);
    expect(m.files).toEqual([
      { path: 'a.yaml', sha256: sha('a: 1\n'), size: 5 },
      { path: 'projects/b.yaml', sha256: sha('b: 2\n'), size: 5 },
    ]);
    expect(parseSnapshotManifest(enc(snapshotManifestText(m)))).toEqual(m);
  });

  it.each([
    ['../x.yaml', 'segment'],
    ['/abs.yaml', 'relative'],
    ['a\\b.yaml', 'relative'],
    ['', 'empty'],
  ])('refuses the path %j', (path, why) => {
    expect(() => buildSnapshotManifest([{ path, bytes: enc('') }])).toThrow(why);
  });

  it('refuses an upload whose manifest would be over the size a run accepts (it would be invalid on every run)', () => {
    // 7,700 files with 1,000-character paths: about 8.5 MB of manifest, over MAX_SNAPSHOT_BYTES (8 MiB).
    const files = Array.from({ length: 7_700 }, (_, i) => ({
      path: `${String(i).padStart(5, '0')}${'p'.repeat(990)}.yaml`,
      bytes: enc(''),
    }));
    expect(() => buildSnapshotManifest(files)).toThrow(
      /^the manifest of its 7700 files would be \d+ bytes, over the limit of 8388608 a run reads/,
    );
    // Just under the limit it is built, and a run parses it.
    const fewer = buildSnapshotManifest(files.slice(0, 7_000));
    expect(parseSnapshotManifest(enc(snapshotManifestText(fewer))).files).toHaveLength(7_000);
  });

  it('refuses a path given twice', () => {
    expect(() =>
      buildSnapshotManifest([
        { path: 'a.yaml', bytes: enc('1') },
        { path: 'a.yaml', bytes: enc('2') },
      ]),
    ).toThrow('appears twice');
  });
});

describe('parseSnapshotManifest refuses, naming where', () => {
  const good = { path: 'a.yaml', sha256: sha('x'), size: 1 };
  it.each([
    ['not JSON', '{', 'not valid JSON'],
    ['an array', '[]', 'not a JSON object'],
    ['another formatVersion', JSON.stringify({ formatVersion: 2, files: [] }), 'formatVersion 2'],
    ['files not a list', JSON.stringify({ formatVersion: 1, files: {} }), 'files is not a list'],
    ['a short sha', JSON.stringify({ formatVersion: 1, files: [{ ...good, sha256: 'ab' }] }), 'files[0].sha256'],
    [
      'an upper-case sha',
      JSON.stringify({ formatVersion: 1, files: [{ ...good, sha256: sha('x').toUpperCase() }] }),
      'files[0].sha256',
    ],
    ['a negative size', JSON.stringify({ formatVersion: 1, files: [{ ...good, size: -1 }] }), 'files[0].size'],
    [
      'a path up the tree',
      JSON.stringify({ formatVersion: 1, files: [{ ...good, path: 'a/../../b.yaml' }] }),
      'files[0].path',
    ],
    [
      'paths out of order',
      JSON.stringify({ formatVersion: 1, files: [{ ...good, path: 'b.yaml' }, good] }),
      'files[1].path "a.yaml" is not after "b.yaml"',
    ],
    ['a repeated path', JSON.stringify({ formatVersion: 1, files: [good, good] }), 'files[1].path'],
  ])('%s', (_name, text, message) => {
    const attempt = () => parseSnapshotManifest(enc(text));
    expect(attempt).toThrow(SnapshotManifestError);
    expect(attempt).toThrow(message);
  });

  it('refuses bytes that are not UTF-8', () => {
    expect(() => parseSnapshotManifest(new Uint8Array([0x7b, 0xff, 0x7d]))).toThrow('not UTF-8');
  });
});

describe('snapshotMismatches', () => {
  const manifest = buildSnapshotManifest([
    { path: 'projects/a.yaml', bytes: enc('new a') },
    { path: 'templates.yaml', bytes: enc('new t') },
    { path: 'README.md', bytes: enc('docs') },
  ]);

  it('is empty when the run read exactly the upload (files the loader does not read are not its concern)', () => {
    const read = [
      { path: 'projects/a.yaml', sha256: sha('new a') },
      { path: 'templates.yaml', sha256: sha('new t') },
    ];
    expect(snapshotMismatches(manifest, read, isYaml)).toEqual([]);
  });

  it('names a file of the old upload, a file the upload lacks and a file not yet uploaded', () => {
    const read = [
      { path: 'projects/a.yaml', sha256: sha('new a') },
      { path: 'projects/old.yaml', sha256: sha('old') },
      { path: 'templates.yaml', sha256: sha('old t') },
    ];
    expect(snapshotMismatches(manifest, read, isYaml)).toEqual([
      { path: 'projects/old.yaml', problem: 'not in the snapshot' },
      { path: 'templates.yaml', problem: 'content differs' },
    ]);
    expect(snapshotMismatches(manifest, [{ path: 'projects/a.yaml', sha256: sha('new a') }], isYaml)).toEqual([
      { path: 'templates.yaml', problem: 'missing' },
    ]);
  });
});
