// Scenario: what the S3 adapters make of answers that would otherwise weaken a conditional write: an object read
// without an ETag (no version to condition the next write on), an IfMatch write to a bucket that is gone (a deployment
// error, never a conflict), and a bare 404 whose error name is none of S3's usual ones.
import type { S3Client } from '@aws-sdk/client-s3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { S3ArchiveStore } from '../../../../lambdas/adapters/aws/s3-archive-store.ts';
import { S3StateStore } from '../../../../lambdas/adapters/aws/s3-state-store.ts';
import { isIfMatchFailed, isNotFound } from '../../../../lambdas/adapters/aws/s3-util.ts';
import { StateConflictError } from '../../../../lambdas/core/errors.ts';
import type { ReconcileState } from '../../../../lambdas/core/ports.ts';
import { loopbackS3Client } from '../../../helpers/aws-clients.ts';
import { type LoopbackS3, startLoopbackS3 } from '../../../helpers/aws-s3-server.ts';

const BUCKET = 'opsman-gitops-state';
const state: ReconcileState = { formatVersion: 1, updatedAt: '2026-03-01T10:00:00Z', projects: {} };

/** Removes `ETag` from every answer of `client`, as an S3-compatible store that sends none would. */
function dropETags(client: S3Client): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      delete (result.output as { ETag?: string }).ETag;
      return result;
    },
    { step: 'initialize', name: 'dropETags' },
  );
}

describe('S3 conditional writes never lose their condition', () => {
  let s3: LoopbackS3;
  let client: S3Client;

  beforeEach(async () => {
    s3 = await startLoopbackS3({ buckets: [BUCKET] });
    client = loopbackS3Client(s3.endpoint);
  });
  afterEach(async () => {
    client.destroy();
    await s3.close();
  });

  it('a state read answered without an ETag is an S3AccessError: the next write would have no IfMatch', async () => {
    const store = new S3StateStore({ client, bucket: BUCKET });
    await store.write(state, null);
    dropETags(client);
    await expect(store.read()).rejects.toMatchObject({ name: 'S3AccessError', message: /no ETag/ });
  });

  it('a refused conditional write whose re-read has no ETag is an S3AccessError, never the version ""', async () => {
    const store = new S3StateStore({ client, bucket: BUCKET });
    await store.write(state, null);
    dropETags(client);
    // The stored text is the one being written (as when our own write won and its answer was lost): the version
    // returned for it would condition the next write.
    await expect(store.write(state, '"not-the-etag"')).rejects.toMatchObject({
      name: 'S3AccessError',
      message: /no ETag/,
    });
    await expect(store.write({ ...state, updatedAt: '2026-03-02T10:00:00Z' }, '"not-the-etag"')).rejects.toMatchObject({
      name: 'S3AccessError',
      message: /no ETag/,
    });
  });

  it('an archive read for ifVersion answered without an ETag is an S3AccessError, not version undefined', async () => {
    const archive = new S3ArchiveStore({ client, bucket: BUCKET });
    await archive.put('manifests/index.json', '[]\n');
    dropETags(client);
    await expect(archive.getVersioned('manifests/index.json')).rejects.toMatchObject({
      name: 'S3AccessError',
      message: /no ETag/,
    });
  });

  it('a lease read without an ETag is an S3AccessError: an expired lease is never taken over without IfMatch', async () => {
    const store = new S3StateStore({ client, bucket: BUCKET, retry: { sleep: async () => {} } });
    s3.putDirect(
      BUCKET,
      'state/lease.json',
      JSON.stringify({
        owner: 'old',
        runId: 'run-0',
        acquiredAt: '2026-01-01T00:00:00Z',
        expiresAt: '2026-01-01T00:01:00Z',
      }),
    );
    dropETags(client);
    await expect(store.acquireLease({ owner: 'o', runId: 'run-1', ttlMs: 60_000 })).rejects.toMatchObject({
      name: 'S3AccessError',
      message: /no ETag/,
    });
    expect(
      s3.requests.filter((r) => r.method === 'PUT' && r.ifMatch === undefined && r.ifNoneMatch === undefined),
    ).toEqual([]);
    expect(JSON.parse(s3.getText(BUCKET, 'state/lease.json') ?? '').runId).toBe('run-0');
  });

  it('an IfMatch write to a bucket deleted since the read is an S3AccessError (NoSuchBucket), never a conflict', async () => {
    const store = new S3StateStore({ client, bucket: BUCKET });
    const version = await store.write(state, null);
    s3.buckets.delete(BUCKET);
    const error = await store.write(state, version).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(StateConflictError);
    expect(error).toMatchObject({ name: 'S3AccessError', code: 'S3_NO_SUCH_BUCKET', message: /NoSuchBucket/ });

    const archive = new S3ArchiveStore({ client, bucket: BUCKET });
    await expect(archive.put('manifests/index.json', '[]\n', { ifVersion: version })).rejects.toMatchObject({
      name: 'S3AccessError',
      message: /NoSuchBucket/,
    });
  });
});

describe('S3 error classification', () => {
  it('a 404 is "not found" by its status, whatever name the SDK gave it (a body-less 404 from a proxy)', () => {
    const bare = { name: 'UnknownError', $metadata: { httpStatusCode: 404 } };
    expect(isNotFound(bare)).toBe(true);
    expect(isIfMatchFailed(bare)).toBe(true);
    // A missing bucket is a deployment error, never an absent object (a state that reads as a first run's).
    const noBucket = { name: 'NoSuchBucket', $metadata: { httpStatusCode: 404 } };
    expect(isNotFound(noBucket)).toBe(false);
    expect(isIfMatchFailed(noBucket)).toBe(false);
  });
});
