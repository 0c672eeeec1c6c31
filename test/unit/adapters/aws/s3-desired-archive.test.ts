// Scenario: the S3 desired-state source and archive store with a real SDK client against loopback S3 (listing, pagination, ETags, ifAbsent).
import { createHash } from 'node:crypto';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import type { S3Client } from '@aws-sdk/client-s3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { S3ArchiveStore } from '../../../../lambdas/adapters/aws/s3-archive-store.ts';
import { MAX_DECODED_BYTES } from '../../../../lambdas/adapters/aws/s3-content-encoding.ts';
import { S3DesiredStateSource } from '../../../../lambdas/adapters/aws/s3-desired-source.ts';
import { archiveManifest } from '../../../../lambdas/core/archive-manifest.ts';
import { checkSnapshot } from '../../../../lambdas/core/desired/snapshot-check.ts';
import { MAX_SNAPSHOT_BYTES, SNAPSHOT_FILE } from '../../../../lambdas/core/desired/snapshot-manifest.ts';
import type { ArchiveStore, OpsManagerApi } from '../../../../lambdas/core/ports.ts';
import { classifyError } from '../../../../lambdas/handlers/errors.ts';
import { loopbackS3Client } from '../../../helpers/aws-clients.ts';
import { type LoopbackS3, startLoopbackS3 } from '../../../helpers/aws-s3-server.ts';

describe('S3DesiredStateSource and S3ArchiveStore on loopback S3', () => {
  let s3: LoopbackS3;
  let client: S3Client;
  beforeEach(async () => {
    s3 = await startLoopbackS3({ buckets: ['desired', 'archive'] });
    client = loopbackS3Client(s3.endpoint);
  });
  afterEach(async () => {
    client.destroy();
    await s3.close();
  });

  it('lists only *.yaml/*.yml under the prefix, across pages, sorted, with ETags as versions and content tags', async () => {
    const put = (key: string, text: string) => s3.putDirect('desired', key, text);
    const a = put('desired-state/projects/payments-prod.yaml', 'a: 1\n');
    const b = put('desired-state/settings.yml', 'b: 2\n');
    const c = put('desired-state/templates/base.YAML', 'c: 3\n');
    put('desired-state/local-secrets.json', '{}');
    put('desired-state/README.md', '# x');
    put('other/outside.yaml', 'x: 1');
    put('desired-state-old/also-outside.yaml', 'x: 1');
    const source = new S3DesiredStateSource({ client, bucket: 'desired', prefix: '/desired-state', pageSize: 2 });
    expect(source.describe()).toBe('s3://desired/desired-state/');
    const files = await source.list();
    // The content tag: ETag, size and last-modified time (all three change with every write of the object).
    const tag = (etag: string) =>
      expect.stringMatching(new RegExp(`^etag:${etag.slice(1, -1)}:5:\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z$`));
    expect(files).toEqual([
      { path: 'projects/payments-prod.yaml', size: 5, version: a.etag.slice(1, -1), contentTag: tag(a.etag) },
      { path: 'settings.yml', size: 5, version: b.etag.slice(1, -1), contentTag: tag(b.etag) },
      { path: 'templates/base.YAML', size: 5, version: c.etag.slice(1, -1), contentTag: tag(c.etag) },
    ]);
    const listCalls = s3.requests.filter((r) => r.method === 'GET' && r.key === '');
    expect(listCalls.length).toBeGreaterThanOrEqual(3);
    const read = await source.read('projects/payments-prod.yaml');
    expect(new TextDecoder().decode(read.bytes)).toBe('a: 1\n');
    expect(read.version).toBe(a.etag.slice(1, -1));
  });

  it('skips dot files and folders as the directory source does; a key that is not a plain path is listed with why', async () => {
    for (const key of [
      'desired-state/settings.yaml',
      'desired-state/.git/config.yaml',
      'desired-state/projects/.#payments.yaml',
      'desired-state/projects\\payments.yaml',
      'desired-state/projects//search.yaml',
      'desired-state/./analytics.yaml',
      'desired-state/projects/tab\t.yaml',
      'desired-state/projects/', // a "folder" marker
      'desired-state/templates/base.yaml', // a YAML file in a sub-"folder"
    ]) {
      s3.putDirect('desired', key, 'a: 1\n');
    }
    const files = await new S3DesiredStateSource({ client, bucket: 'desired', prefix: 'desired-state' }).list();
    const problem = (detail: string) =>
      `the object key is not a plain relative path (${detail}): it is not read; rename the object`;
    expect(files.map((f) => (f.problem ? { path: f.path, problem: f.problem } : f.path))).toEqual([
      { path: './analytics.yaml', problem: problem("must not contain empty, '.' or '..' segments") },
      { path: 'projects//search.yaml', problem: problem("must not contain empty, '.' or '..' segments") },
      { path: 'projects/tab?.yaml', problem: problem('control characters') },
      { path: 'projects\\payments.yaml', problem: problem('must use / separators') },
      'settings.yaml',
      'templates/base.yaml',
    ]);
  });

  it.each([
    [
      'without a continuation token',
      (xml: string) => xml.replace(/<NextContinuationToken>.*<\/NextContinuationToken>/, ''),
    ],
    [
      'with a continuation token given before',
      (xml: string) =>
        xml
          .replace('<IsTruncated>false</IsTruncated>', '<IsTruncated>true</IsTruncated>')
          .replace(
            /<NextContinuationToken>.*<\/NextContinuationToken>|(?=<Contents>)/,
            '<NextContinuationToken>again</NextContinuationToken>',
          ),
    ],
  ])('a listing truncated %s is an S3AccessError, never a part of the desired state', async (why, rewrite) => {
    for (const name of ['a', 'b', 'c', 'd', 'e']) s3.putDirect('desired', `desired-state/${name}.yaml`, 'a: 1\n');
    s3.injectFault({ method: 'GET', key: 'desired/', count: 3, rewrite });
    const source = new S3DesiredStateSource({ client, bucket: 'desired', prefix: 'desired-state/', pageSize: 2 });
    await expect(source.list()).rejects.toMatchObject({
      name: 'S3AccessError',
      code: 'S3_ACCESS',
      message: expect.stringMatching(
        new RegExp(
          `^ListObjectsV2 s3://desired/desired-state/ failed: the listing was truncated ${why} after \\d+ files: the desired state cannot be listed whole$`,
        ),
      ),
    });
  });

  it('reads a gzip-encoded object as the text it stands for; an encoding it cannot undo is a final error naming the key', async () => {
    const text = 'apiVersion: opsman-gitops/v1\nkind: Settings\n';
    s3.putDirect('desired', 'desired-state/settings.yaml', gzipSync(text), { contentEncoding: 'gzip' });
    s3.putDirect('desired', 'desired-state/chunked.yaml', text, { contentEncoding: 'aws-chunked' });
    s3.putDirect('desired', 'desired-state/brotli.yaml', brotliCompressSync(text), { contentEncoding: 'br' });
    s3.putDirect('desired', 'desired-state/torn.yaml', gzipSync(text).subarray(0, 20), { contentEncoding: 'gzip' });
    s3.putDirect('desired', 'desired-state/bomb.yaml', gzipSync(Buffer.alloc(40 * 1024 * 1024)), {
      contentEncoding: 'gzip',
    });
    const source = new S3DesiredStateSource({ client, bucket: 'desired', prefix: 'desired-state/' });
    expect(new TextDecoder().decode((await source.read('settings.yaml')).bytes)).toBe(text);
    expect(new TextDecoder().decode((await source.read('chunked.yaml')).bytes)).toBe(text);
    const refused = (name: string) => source.read(name).catch((error: unknown) => error);
    expect(await refused('brotli.yaml')).toMatchObject({
      code: 'S3_CONTENT_ENCODING',
      message:
        's3://desired/desired-state/brotli.yaml is stored with Content-Encoding "br", which cannot be decoded: upload it uncompressed or gzip-compressed',
    });
    expect(await refused('torn.yaml')).toMatchObject({
      code: 'S3_CONTENT_ENCODING',
      message: expect.stringMatching(
        /^s3:\/\/desired\/desired-state\/torn\.yaml is stored with Content-Encoding gzip but is not a valid gzip stream \(Z_BUF_ERROR\): upload it again$/,
      ),
    });
    expect(await refused('bomb.yaml')).toMatchObject({
      code: 'S3_CONTENT_ENCODING',
      message: `s3://desired/desired-state/bomb.yaml is stored with Content-Encoding gzip and decodes to more than ${MAX_DECODED_BYTES} bytes`,
    });
  });

  it.each([
    ['../state/state.json', /'\.\.' segments/],
    ['/etc/passwd', /must be relative/],
    ['', /empty/],
    ['a//b.yaml', /empty/],
  ])('refuses to read the unsafe path %j', async (path, message) => {
    const source = new S3DesiredStateSource({ client, bucket: 'desired', prefix: 'desired-state/' });
    await expect(source.read(path)).rejects.toMatchObject({
      code: 'INVALID_KEY',
      message: expect.stringMatching(message),
    });
  });

  it('an object replaced by one over maxBytes answers its size and version, its body unread', async () => {
    const big = s3.putDirect('desired', 'desired-state/settings.yaml', Buffer.alloc(5000, 0x61));
    const source = new S3DesiredStateSource({ client, bucket: 'desired', prefix: 'desired-state/' });
    expect(await source.read('settings.yaml', { maxBytes: 1024 })).toEqual({
      bytes: new Uint8Array(),
      size: 5000,
      version: big.etag.slice(1, -1),
    });
    expect((await source.read('settings.yaml', { maxBytes: 5000 })).bytes.length).toBe(5000);
  });

  it('a missing file is a 404 S3AccessError naming the key', async () => {
    const source = new S3DesiredStateSource({ client, bucket: 'desired', prefix: 'desired-state/' });
    await expect(source.read('manifests/pinned.json')).rejects.toMatchObject({
      code: 'S3_ACCESS',
      status: 404,
      message: expect.stringContaining('s3://desired/desired-state/manifests/pinned.json'),
    });
  });

  it('readIfPresent: reads the snapshot manifest (a dot file), tells "no such key" from an error', async () => {
    s3.putDirect('desired', 'desired-state/.opsman-gitops-snapshot.json', '{"formatVersion":1,"files":[]}\n');
    const source = new S3DesiredStateSource({ client, bucket: 'desired', prefix: 'desired-state/' });
    const found = await source.readIfPresent('.opsman-gitops-snapshot.json');
    expect(new TextDecoder().decode(found?.bytes)).toBe('{"formatVersion":1,"files":[]}\n');
    expect(found?.version).toMatch(/^[0-9a-f]{32}$/);
    // Never listed: the loader reads YAML files only.
    expect(await source.list()).toEqual([]);
    expect(await source.readIfPresent('missing/.opsman-gitops-snapshot.json')).toBeUndefined();
    // A missing bucket is a 404 too, but a deployment error: never "no manifest".
    const nowhere = new S3DesiredStateSource({ client, bucket: 'nope', prefix: 'desired-state/' });
    await expect(nowhere.readIfPresent('.opsman-gitops-snapshot.json')).rejects.toMatchObject({
      code: 'S3_NO_SUCH_BUCKET',
      status: 404,
    });
  });

  it('snapshot manifest: one bigger than a run reads is refused by its length, its body never loaded', async () => {
    const huge = Buffer.alloc(MAX_SNAPSHOT_BYTES + 1, 0x20);
    s3.putDirect('desired', `desired-state/${SNAPSHOT_FILE}`, huge);
    const loaded: number[] = [];
    class Recording extends S3DesiredStateSource {
      override async read(path: string, options?: { maxBytes?: number }) {
        const read = await super.read(path, options);
        loaded.push(read.bytes.length);
        return read;
      }
    }
    const source = new Recording({ client, bucket: 'desired', prefix: 'desired-state/' });
    const error = await checkSnapshot(source, { files: [] }, 'required').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SNAPSHOT_MANIFEST_INVALID' });
    expect((error as Error).message).toContain(`is ${huge.length} bytes, over the limit of ${MAX_SNAPSHOT_BYTES}`);
    expect(loaded).toEqual([0]);
  });

  it('an unknown bucket is an S3AccessError (S3_NO_SUCH_BUCKET, final), not a crash', async () => {
    const source = new S3DesiredStateSource({ client, bucket: 'nope', prefix: 'x/' });
    const error = await source.list().catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'S3AccessError', code: 'S3_NO_SUCH_BUCKET', status: 404 });
    expect(classifyError(error)).toMatchObject({ code: 'S3_NO_SUCH_BUCKET', retryable: false });
    expect((error as Error).message).toContain('the bucket does not exist');
    // Read past the listing, a missing bucket is not an absent object either (desired file, state, archive, cache).
    const archive = new S3ArchiveStore({ client, bucket: 'nope', prefix: 'archive' });
    await expect(archive.get('manifests/index.json')).rejects.toMatchObject({ code: 'S3_NO_SUCH_BUCKET' });
  });

  it('archive: writes under its prefix, ifAbsent never rewrites, content-addressed keys are checked', async () => {
    const archive = new S3ArchiveStore({ client, bucket: 'archive', prefix: 'archive' });
    const manifest = '{"updated":1}';
    const hex = createHash('sha256').update(manifest).digest('hex');
    const key = `manifests/sha256/${hex}.json`;
    expect(await archive.put(key, manifest, { ifAbsent: true })).toEqual({
      key,
      created: true,
      location: `s3://archive/archive/${key}`,
    });
    expect(s3.requests.at(-1)).toMatchObject({ method: 'PUT', key: `archive/${key}`, ifNoneMatch: '*', status: 200 });
    expect((await archive.put(key, manifest, { ifAbsent: true })).created).toBe(false);
    expect(s3.requests.at(-1)?.status).toBe(412);
    await expect(archive.put(`manifests/sha256/${'0'.repeat(64)}.json`, manifest)).rejects.toMatchObject({
      code: 'INVALID_KEY',
      message: expect.stringContaining(hex),
    });
    await archive.put('manifests/latest.json', '{"a":1}');
    await archive.put('manifests/latest.json', '{"a":2}');
    expect(new TextDecoder().decode((await archive.get('manifests/latest.json')) ?? new Uint8Array())).toBe('{"a":2}');
    expect(s3.buckets.get('archive')?.get('archive/manifests/latest.json')?.contentType).toBe('application/json');
    expect(await archive.get('reports/2026-03-01/none.json')).toBeNull();
  });

  it('archive: a 409 on an ifAbsent write is retried', async () => {
    const archive = new S3ArchiveStore({ client, bucket: 'archive', retry: { sleep: async () => {} } });
    s3.injectConflicts(1);
    expect((await archive.put('usage/2026-02/physical-hosts.json', '[]', { ifAbsent: true })).created).toBe(true);
    expect(s3.requests.map((r) => r.status)).toEqual([409, 200]);
  });

  it('archive: an ifVersion write to a key deleted since it was read (S3: 404 NoSuchKey) leaves it alone', async () => {
    const archive = new S3ArchiveStore({ client, bucket: 'archive' });
    await archive.put('manifests/index.json', '[]\n');
    const read = await archive.getVersioned('manifests/index.json');
    s3.buckets.get('archive')?.delete('archive/manifests/index.json');
    const put = await archive.put('manifests/index.json', '[{}]\n', { ifVersion: read?.version ?? '' });
    expect(s3.requests.at(-1)).toMatchObject({ method: 'PUT', ifMatch: read?.version, status: 404 });
    // As the port says: not created, so the caller reads the key again (absent now) and writes it with ifAbsent.
    expect(put.created).toBe(false);
    expect(await archive.get('manifests/index.json')).toBeNull();
  });

  it('archive: two runs at once that see two manifests both end up in manifests/index.json', async () => {
    const archive = new S3ArchiveStore({ client, bucket: 'archive' });
    const serving = (text: string) =>
      ({ getVersionManifest: async () => ({ text, value: JSON.parse(text) }) }) as unknown as OpsManagerApi;
    const first = '{"updated":1,"versions":[]}';
    const second = '{"updated":2,"versions":[]}';
    // Run A has read the (absent) index; run B, which sees the manifest as it changed, runs whole before A writes it.
    let other: Promise<unknown> | undefined;
    const slowed: ArchiveStore = {
      describe: () => archive.describe(),
      get: (key) => archive.get(key),
      getVersioned: (key) => archive.getVersioned(key),
      put: async (key, body, options) => {
        if (key === 'manifests/index.json' && other === undefined) {
          other = archiveManifest(serving(second), archive, '2026-03-01T00:00:01.000Z');
          await other;
        }
        return archive.put(key, body, options);
      },
    };
    const a = await archiveManifest(serving(first), slowed, '2026-03-01T00:00:00.000Z');
    const stored = await archive.get('manifests/index.json');
    const index = JSON.parse(new TextDecoder().decode(stored ?? new Uint8Array())) as { sha256: string }[];
    const hex = (text: string) => createHash('sha256').update(text).digest('hex');
    expect(index.map((e) => e.sha256).sort()).toEqual([hex(first), hex(second)].sort());
    expect(a.sha256).toBe(hex(first));
  });
});
