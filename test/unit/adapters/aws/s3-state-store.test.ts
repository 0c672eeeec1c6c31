// Scenario: the S3 state store and lease, with a real SDK client against a loopback S3 that enforces conditional writes.
import { S3Client } from '@aws-sdk/client-s3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { S3StateStore } from '../../../../lambdas/adapters/aws/s3-state-store.ts';
import {
  LeaseHeldError,
  LeaseLostError,
  StateConflictError,
  StateCorruptError,
  StateTooNewError,
} from '../../../../lambdas/core/errors.ts';
import type { ReconcileState } from '../../../../lambdas/core/ports.ts';
import { loopbackS3Client, loopbackS3ClientConfig } from '../../../helpers/aws-clients.ts';
import { type LoopbackS3, startLoopbackS3 } from '../../../helpers/aws-s3-server.ts';

const BUCKET = 'opsman-gitops-state';
const noSleep = async () => {};

const state = (updatedAt: string): ReconcileState => ({ formatVersion: 1, updatedAt, projects: {} });

describe('S3StateStore on loopback S3', () => {
  let s3: LoopbackS3;
  let client: S3Client;
  let now: Date;
  let store: S3StateStore;

  beforeEach(async () => {
    s3 = await startLoopbackS3({ buckets: [BUCKET] });
    client = loopbackS3Client(s3.endpoint);
    now = new Date('2026-03-01T10:00:00Z');
    store = new S3StateStore({ client, bucket: BUCKET, now: () => now, retry: { sleep: noSleep } });
  });
  afterEach(async () => {
    client.destroy();
    await s3.close();
  });

  it('reads null with no state, creates with If-None-Match, then updates with If-Match on the ETag', async () => {
    expect(await store.read()).toEqual({ state: null, version: null });
    const v1 = await store.write(state('2026-03-01T10:00:00Z'), null);
    expect(s3.requests.at(-1)).toMatchObject({ method: 'PUT', key: 'state/state.json', ifNoneMatch: '*', status: 200 });
    const read = await store.read();
    expect(read).toEqual({ state: state('2026-03-01T10:00:00Z'), version: v1 });
    const v2 = await store.write(state('2026-03-01T10:05:00Z'), v1);
    expect(v2).not.toBe(v1);
    expect(s3.requests.at(-1)).toMatchObject({ method: 'PUT', ifMatch: v1, status: 200 });
    expect(JSON.parse(s3.getText(BUCKET, 'state/state.json') ?? '')).toEqual(state('2026-03-01T10:05:00Z'));
  });

  it('refuses a stale write with StateConflictError and leaves the newer state in place', async () => {
    const v1 = await store.write(state('a'), null);
    await store.write(state('b'), v1);
    const error = await store.write(state('c'), v1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateConflictError);
    expect((error as StateConflictError).expectedVersion).toBe(v1);
    expect((error as StateConflictError).actualVersion).toBe(s3.buckets.get(BUCKET)?.get('state/state.json')?.etag);
    expect(JSON.parse(s3.getText(BUCKET, 'state/state.json') ?? '').updatedAt).toBe('b');
    await expect(store.write(state('d'), null)).rejects.toBeInstanceOf(StateConflictError);
  });

  it('a retried write that had already won is recognised by content, not reported as a conflict', async () => {
    const v1 = await store.write(state('a'), null);
    const v2 = await store.write(state('b'), v1);
    // Same write again with the old expected version, as an SDK retry after a lost response would send it.
    expect(await store.write(state('b'), v1)).toBe(v2);
  });

  it('retries 409 ConditionalRequestConflict and succeeds within the budget, fails past it', async () => {
    s3.injectConflicts(2);
    const v1 = await store.write(state('a'), null);
    expect(s3.requests.filter((r) => r.status === 409)).toHaveLength(2);
    expect(v1).toMatch(/^"[0-9a-f]{32}"$/);
    s3.injectConflicts(10);
    await expect(store.write(state('b'), v1)).rejects.toBeInstanceOf(StateConflictError);
    expect(s3.requests.filter((r) => r.status === 409)).toHaveLength(2 + 5);
  });

  it.each([
    ['not JSON', '{"formatVersion":1,', /not JSON \(19 bytes\)/],
    ['an array', '[]', /the document is an array, expected an object/],
    ['format version 0', '{"formatVersion":0,"updatedAt":"x","projects":{}}', /formatVersion is 0, expected 1/],
    ['projects missing', '{"formatVersion":1,"updatedAt":"x"}', /projects is missing/],
    ['bad project', '{"formatVersion":1,"updatedAt":"x","projects":{"p1":{}}}', /projects.p1.alertConfigs/],
    // Fields the core dereferences while applying: a wrong type there used to surface as a TypeError mid-apply.
    [
      'organizations a number',
      '{"formatVersion":1,"updatedAt":"x","projects":{},"organizations":5}',
      /organizations is a number, expected an object/,
    ],
    [
      'an organization null',
      '{"formatVersion":1,"updatedAt":"x","projects":{},"organizations":{"o1":null}}',
      /organizations.o1 is null, expected an object/,
    ],
    [
      'an alert record null',
      '{"formatVersion":1,"updatedAt":"x","projects":{"p1":{"alertConfigs":{"k":null}}}}',
      /projects.p1.alertConfigs.k is null, expected an object/,
    ],
    [
      'an alert id a number',
      '{"formatVersion":1,"updatedAt":"x","projects":{"p1":{"alertConfigs":{"k":{"id":5}}}}}',
      /projects.p1.alertConfigs.k.id is a number, expected a string/,
    ],
    [
      'secret fingerprints a list',
      '{"formatVersion":1,"updatedAt":"x","projects":{"p1":{"alertConfigs":{"k":{"secretFingerprints":[]}}}}}',
      /projects.p1.alertConfigs.k.secretFingerprints is an array, expected an object/,
    ],
    [
      'a singleton digest a number',
      '{"formatVersion":1,"updatedAt":"x","projects":{"p1":{"alertConfigs":{},"singletons":{"auditLogRotation":1}}}}',
      /projects.p1.singletons.auditLogRotation is a number, expected a string/,
    ],
    [
      'the Ops Manager without its base URL',
      '{"formatVersion":1,"updatedAt":"x","projects":{},"opsManager":{"baseUrl":7}}',
      /opsManager.baseUrl is a number, expected a string/,
    ],
  ])('reports corrupt state (%s) with its version and without content', async (_name, text, message) => {
    const object = s3.putDirect(BUCKET, 'state/state.json', text);
    const error = await store.read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateCorruptError);
    expect((error as StateCorruptError).message).toMatch(message);
    expect((error as StateCorruptError).version).toBe(object.etag);
  });

  it('refuses a state of a newer format version as too new (not corrupt), so that no run overwrites it', async () => {
    const object = s3.putDirect(BUCKET, 'state/state.json', '{"formatVersion":2,"updatedAt":"x","projects":{}}');
    const error = await store.read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateTooNewError);
    expect(error).not.toBeInstanceOf(StateCorruptError);
    expect(error).toMatchObject({
      code: 'STATE_TOO_NEW',
      message: `state s3://${BUCKET}/state/state.json has formatVersion 2; this version reads formatVersion 1: run or deploy the version of opsman-gitops that wrote it, or a later one (the state is left as it is)`,
    });
    expect(s3.buckets.get(BUCKET)?.get('state/state.json')?.etag).toBe(object.etag);
  });

  it('lease: created once, held against a second owner, taken over when expired, renewed, released conditionally', async () => {
    const lease = await store.acquireLease({ owner: 'lambda:a/1', runId: 'run-1', ttlMs: 60_000 });
    expect(lease).toMatchObject({ owner: 'lambda:a/1', runId: 'run-1', expiresAt: '2026-03-01T10:01:00.000Z' });
    expect(s3.requests.at(-1)).toMatchObject({ method: 'PUT', key: 'state/lease.json', ifNoneMatch: '*' });

    const held = await store
      .acquireLease({ owner: 'lambda:b/2', runId: 'run-2', ttlMs: 60_000 })
      .catch((e: unknown) => e);
    expect(held).toBeInstanceOf(LeaseHeldError);
    expect((held as LeaseHeldError).holder).toEqual({
      owner: 'lambda:a/1',
      runId: 'run-1',
      expiresAt: '2026-03-01T10:01:00.000Z',
    });

    const renewed = await store.renewLease(lease, 120_000);
    expect(renewed.expiresAt).toBe('2026-03-01T10:02:00.000Z');
    expect(s3.requests.at(-1)).toMatchObject({ method: 'PUT', ifMatch: lease.token, status: 200 });

    now = new Date('2026-03-01T10:03:00Z');
    const taken = await store.acquireLease({ owner: 'lambda:b/2', runId: 'run-2', ttlMs: 60_000 });
    expect(taken.runId).toBe('run-2');
    expect(s3.requests.at(-1)).toMatchObject({ method: 'PUT', ifMatch: renewed.token, status: 200 });

    await expect(store.renewLease(renewed, 60_000)).rejects.toBeInstanceOf(LeaseLostError);
    await store.releaseLease(renewed); // no longer ours: the conditional delete is refused and the new holder keeps it
    expect(s3.requests.at(-1)).toMatchObject({ method: 'DELETE', ifMatch: renewed.token, status: 412 });
    expect(JSON.parse(s3.getText(BUCKET, 'state/lease.json') ?? '').runId).toBe('run-2');
    await store.releaseLease(taken);
    expect(s3.getText(BUCKET, 'state/lease.json')).toBeUndefined();
  });

  it('lease: releasing one whose object is already gone (404) is quiet', async () => {
    const lease = await store.acquireLease({ owner: 'lambda:a/1', runId: 'run-1', ttlMs: 60_000 });
    await store.releaseLease(lease);
    expect(s3.getText(BUCKET, 'state/lease.json')).toBeUndefined();
    await expect(store.releaseLease(lease)).resolves.toBeUndefined();
    expect(s3.requests.at(-1)).toMatchObject({ method: 'DELETE', ifMatch: lease.token });
    expect([204, 404]).toContain(s3.requests.at(-1)?.status);
  });

  it('an IfMatch write to an object deleted since it was read (S3: 404 NoSuchKey) is a failed condition', async () => {
    // The state: deleted (a reset by hand) between this run's read and its write.
    const v1 = await store.write(state('a'), null);
    s3.buckets.get(BUCKET)?.delete('state/state.json');
    const conflict = await store.write(state('b'), v1).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(StateConflictError);
    expect(conflict).toMatchObject({ expectedVersion: v1, actualVersion: null });
    expect(s3.requests.at(-2)).toMatchObject({ method: 'PUT', ifMatch: v1, status: 404 });

    // The lease: removed by hand (`aws s3 rm`) while its run holds it, so its renewal finds it lost.
    const lease = await store.acquireLease({ owner: 'lambda:a/1', runId: 'run-1', ttlMs: 60_000 });
    s3.buckets.get(BUCKET)?.delete('state/lease.json');
    await expect(store.renewLease(lease, 60_000)).rejects.toBeInstanceOf(LeaseLostError);

    // An expired lease released between the read and the takeover: the lease is created afresh.
    s3.putDirect(
      BUCKET,
      'state/lease.json',
      JSON.stringify({ owner: 'old', runId: 'run-0', expiresAt: '2026-01-01T00:00:00Z' }),
    );
    s3.injectFault({
      method: 'GET',
      key: `${BUCKET}/state/lease.json`,
      count: 1,
      rewrite: (body) => {
        s3.buckets.get(BUCKET)?.delete('state/lease.json');
        return body;
      },
    });
    const taken = await store.acquireLease({ owner: 'lambda:b/2', runId: 'run-2', ttlMs: 60_000 });
    expect(taken.runId).toBe('run-2');
    expect(s3.requests.filter((r) => r.key === 'state/lease.json').slice(-3)).toMatchObject([
      { method: 'GET', status: 200 },
      { method: 'PUT', ifMatch: expect.any(String), status: 404 },
      { method: 'PUT', ifNoneMatch: '*', status: 200 },
    ]);
  });

  it('lease: a lease already holding our owner and run id (a retried PUT that had won) is ours', async () => {
    const first = await store.acquireLease({ owner: 'lambda:a/1', runId: 'run-1', ttlMs: 60_000 });
    const again = await store.acquireLease({ owner: 'lambda:a/1', runId: 'run-1', ttlMs: 60_000 });
    expect(again).toEqual(first);
    await store.releaseLease(again);
    expect(s3.getText(BUCKET, 'state/lease.json')).toBeUndefined();
  });

  it('lease: one released between our refused create and our read is created again, not reported as held', async () => {
    // Another run's lease answered our create 412 and was released before we read it: nobody holds it now.
    s3.injectFault({
      method: 'PUT',
      key: `${BUCKET}/state/lease.json`,
      status: 412,
      code: 'PreconditionFailed',
      count: 1,
    });
    const lease = await store.acquireLease({ owner: 'lambda:a/1', runId: 'run-1', ttlMs: 60_000 });
    expect(lease.runId).toBe('run-1');
    expect(s3.requests.filter((r) => r.key === 'state/lease.json').map((r) => [r.method, r.status])).toEqual([
      ['PUT', 412],
      ['GET', 404],
      ['PUT', 200],
    ]);
  });

  it("lease: the same owner with another run id (a warm container's next invocation) is another holder", async () => {
    // A warm Lambda container keeps its owner (function and log stream) from one invocation to the next; only the run
    // id tells a retried write of our own from a second run. Held: refused, never handed to the second run.
    const first = await store.acquireLease({ owner: 'lambda:a/1', runId: 'run-1', ttlMs: 60_000 });
    const held = await store
      .acquireLease({ owner: 'lambda:a/1', runId: 'run-2', ttlMs: 60_000 })
      .catch((e: unknown) => e);
    expect(held).toBeInstanceOf(LeaseHeldError);
    expect((held as LeaseHeldError).holder).toMatchObject({ owner: 'lambda:a/1', runId: 'run-1' });
    // Expired and taken over by the next run of the same owner: the first run's renewal finds the lease lost.
    now = new Date('2026-03-01T10:02:00Z');
    const second = await store.acquireLease({ owner: 'lambda:a/1', runId: 'run-2', ttlMs: 60_000 });
    expect(second.runId).toBe('run-2');
    await expect(store.renewLease(first, 60_000)).rejects.toBeInstanceOf(LeaseLostError);
    expect(JSON.parse(s3.getText(BUCKET, 'state/lease.json') ?? '').runId).toBe('run-2');
  });

  it('lease: a renewal that landed but whose answer was lost (the SDK retried it: 412) is still ours', async () => {
    // The SDK's own retry is what turns a lost answer into 412: this client retries, as production's do (3 attempts).
    const retrying = new S3Client({ ...loopbackS3ClientConfig(s3.endpoint), maxAttempts: 3 });
    store = new S3StateStore({ client: retrying, bucket: BUCKET, now: () => now, retry: { sleep: noSleep } });
    const lease = await store.acquireLease({ owner: 'lambda:a/1', runId: 'run-1', ttlMs: 60_000 });
    now = new Date('2026-03-01T10:00:30Z');
    s3.injectFault({ method: 'PUT', key: `${BUCKET}/state/lease.json`, count: 1, after: true, reset: true });
    const renewed = await store.renewLease(lease, 60_000);
    const puts = s3.requests.filter((r) => r.method === 'PUT' && r.key === 'state/lease.json').slice(-2);
    expect(puts.map((r) => r.status)).toEqual([0, 412]); // stored, then reset (no answer: 0); the retry meets 412
    expect(renewed).toMatchObject({ owner: 'lambda:a/1', runId: 'run-1', expiresAt: '2026-03-01T10:01:30.000Z' });
    expect(renewed.token).toBe(s3.buckets.get(BUCKET)?.get('state/lease.json')?.etag);
    await store.releaseLease(renewed);
    expect(s3.getText(BUCKET, 'state/lease.json')).toBeUndefined();
    retrying.destroy();
  });

  it('lease: an unreadable lease object is held until LastModified plus the lease lifetime, then taken over', async () => {
    s3.putDirect(BUCKET, 'state/lease.json', 'garbage');
    now = new Date();
    await expect(store.acquireLease({ owner: 'o', runId: 'r', ttlMs: 60_000 })).rejects.toThrow(LeaseHeldError);
    now = new Date(Date.now() + 2_000);
    const lease = await store.acquireLease({ owner: 'o', runId: 'r', ttlMs: 1000 });
    expect(lease.runId).toBe('r');
  });

  it('lease: of many concurrent acquirers exactly one wins', async () => {
    const attempts = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => store.acquireLease({ owner: `o${i}`, runId: `r${i}`, ttlMs: 60_000 })),
    );
    const won = attempts.filter((a) => a.status === 'fulfilled');
    expect(won).toHaveLength(1);
    expect(attempts.filter((a) => a.status === 'rejected' && a.reason instanceof LeaseHeldError)).toHaveLength(7);
  });
});
