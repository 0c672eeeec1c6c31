// Scenario: the exact S3 requests of the state store and lease, and their reaction to injected 412/409, via aws-sdk-client-mock.
import {
  DeleteObjectCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { S3StateStore } from '../../../../lambdas/adapters/aws/s3-state-store.ts';
import { LeaseHeldError } from '../../../../lambdas/core/errors.ts';

const s3 = mockClient(S3Client);
const client = new S3Client({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });
const now = new Date('2026-03-01T10:00:00Z');
const store = new S3StateStore({ client, bucket: 'b', prefix: 'st', now: () => now, retry: { sleep: async () => {} } });

const failure = (status: number, name: string) =>
  new S3ServiceException({ name, $fault: 'client', $metadata: { httpStatusCode: status }, message: name });
/** A GetObject body as the SDK hands it out (only the method the adapter uses). */
const body = (text: string) =>
  ({ transformToByteArray: async () => new TextEncoder().encode(text) }) as unknown as NonNullable<
    GetObjectCommandOutput['Body']
  >;

afterEach(() => s3.reset());

describe('S3StateStore requests (aws-sdk-client-mock)', () => {
  it('writes state with IfMatch on the expected ETag and returns the new ETag', async () => {
    s3.on(PutObjectCommand).resolves({ ETag: '"v2"' });
    const state = { formatVersion: 1 as const, updatedAt: 't', projects: {} };
    expect(await store.write(state, '"v1"')).toBe('"v2"');
    expect(s3.commandCalls(PutObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: 'b',
      Key: 'st/state.json',
      Body: `${JSON.stringify(state, null, 2)}\n`,
      ContentType: 'application/json',
      IfMatch: '"v1"',
    });
  });

  it('creates absent state with IfNoneMatch "*"', async () => {
    s3.on(PutObjectCommand).resolves({ ETag: '"v1"' });
    await store.write({ formatVersion: 1, updatedAt: 't', projects: {} }, null);
    const input = s3.commandCalls(PutObjectCommand)[0]?.args[0].input;
    expect(input?.IfNoneMatch).toBe('*');
    expect(input?.IfMatch).toBeUndefined();
  });

  it('412 becomes StateConflictError at once (naming the stored version); 409 is retried with the same condition', async () => {
    s3.on(PutObjectCommand).rejectsOnce(failure(412, 'PreconditionFailed'));
    s3.on(GetObjectCommand).resolves({
      ETag: '"other"',
      Body: body('{"formatVersion":1,"updatedAt":"x","projects":{}}'),
    });
    await expect(store.write({ formatVersion: 1, updatedAt: 't', projects: {} }, '"v1"')).rejects.toMatchObject({
      name: 'StateConflictError',
      expectedVersion: '"v1"',
      actualVersion: '"other"',
    });
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(1);
    expect(s3.commandCalls(GetObjectCommand)[0]?.args[0].input).toEqual({ Bucket: 'b', Key: 'st/state.json' });
    s3.reset();
    s3.on(PutObjectCommand)
      .rejectsOnce(failure(409, 'ConditionalRequestConflict'))
      .rejectsOnce(failure(409, 'ConditionalRequestConflict'))
      .resolves({ ETag: '"v3"' });
    expect(await store.write({ formatVersion: 1, updatedAt: 't', projects: {} }, '"v2"')).toBe('"v3"');
    const calls = s3.commandCalls(PutObjectCommand);
    expect(calls).toHaveLength(3);
    expect(calls.map((c) => c.args[0].input.IfMatch)).toEqual(['"v2"', '"v2"', '"v2"']);
  });

  it('acquires the lease with IfNoneMatch and a lease document', async () => {
    s3.on(PutObjectCommand).resolves({ ETag: '"l1"' });
    const lease = await store.acquireLease({ owner: 'lambda:f/req', runId: 'run-1', ttlMs: 900_000 });
    expect(lease).toEqual({
      owner: 'lambda:f/req',
      runId: 'run-1',
      expiresAt: '2026-03-01T10:15:00.000Z',
      token: '"l1"',
    });
    const input = s3.commandCalls(PutObjectCommand)[0]?.args[0].input;
    expect(input?.Key).toBe('st/lease.json');
    expect(input?.IfNoneMatch).toBe('*');
    expect(JSON.parse(String(input?.Body))).toEqual({
      owner: 'lambda:f/req',
      runId: 'run-1',
      acquiredAt: '2026-03-01T10:00:00.000Z',
      expiresAt: '2026-03-01T10:15:00.000Z',
    });
  });

  it('takes over an expired lease with IfMatch on the ETag it read', async () => {
    s3.on(PutObjectCommand, { IfNoneMatch: '*' }).rejects(failure(412, 'PreconditionFailed'));
    s3.on(PutObjectCommand, { IfMatch: '"old"' }).resolves({ ETag: '"new"' });
    s3.on(GetObjectCommand).resolves({
      ETag: '"old"',
      Body: body(JSON.stringify({ owner: 'x', runId: 'r0', acquiredAt: '', expiresAt: '2026-03-01T09:59:59.000Z' })),
    });
    const lease = await store.acquireLease({ owner: 'me', runId: 'r1', ttlMs: 1000 });
    expect(lease.token).toBe('"new"');
    expect(
      s3.commandCalls(PutObjectCommand).map((c) => [c.args[0].input.IfNoneMatch, c.args[0].input.IfMatch]),
    ).toEqual([
      ['*', undefined],
      [undefined, '"old"'],
    ]);
  });

  it('a live lease is not taken over: LeaseHeldError names the holder, no IfMatch write happens', async () => {
    s3.on(PutObjectCommand).rejects(failure(412, 'PreconditionFailed'));
    s3.on(GetObjectCommand).resolves({
      ETag: '"old"',
      Body: body(
        JSON.stringify({ owner: 'lambda:x/1', runId: 'r0', acquiredAt: '', expiresAt: '2026-03-01T10:10:00.000Z' }),
      ),
    });
    const error = await store.acquireLease({ owner: 'me', runId: 'r1', ttlMs: 1000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseHeldError);
    expect((error as LeaseHeldError).holder.owner).toBe('lambda:x/1');
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(1);
  });

  it('releases with a DeleteObject conditioned on our ETag, and tolerates 412/404', async () => {
    s3.on(DeleteObjectCommand).resolves({});
    const lease = { owner: 'me', runId: 'r1', expiresAt: '', token: '"l1"' };
    await store.releaseLease(lease);
    expect(s3.commandCalls(DeleteObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: 'b',
      Key: 'st/lease.json',
      IfMatch: '"l1"',
    });
    s3.on(DeleteObjectCommand).rejects(failure(412, 'PreconditionFailed'));
    await expect(store.releaseLease(lease)).resolves.toBeUndefined();
    s3.on(DeleteObjectCommand).rejects(failure(404, 'NoSuchKey'));
    await expect(store.releaseLease(lease)).resolves.toBeUndefined();
    s3.on(DeleteObjectCommand).rejects(failure(403, 'AccessDenied'));
    await expect(store.releaseLease(lease)).rejects.toMatchObject({ code: 'S3_ACCESS', status: 403 });
  });
});
