// Scenario: a lease this version cannot read (torn by a crash, empty, or written by another version in another shape)
// counts as held until its modification time plus the lease lifetime, naming what was found and the way out, then is
// taken over; leases are written with formatVersion 1, and one without it (earlier versions) reads as 1. Local
// lease.json and the S3 lease object (a real SDK client against loopback S3) behave the same.
import { mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { S3StateStore } from '../../../lambdas/adapters/aws/s3-state-store.ts';
import { FsStateStore } from '../../../lambdas/adapters/local/state-fs.ts';
import { LeaseHeldError } from '../../../lambdas/core/errors.ts';
import { loopbackS3Client } from '../../helpers/aws-clients.ts';
import { type LoopbackS3, startLoopbackS3 } from '../../helpers/aws-s3-server.ts';

const TTL = 15 * 60_000;
const REQUEST = { owner: 'cli:me', runId: 'run-new', ttlMs: TTL };
const FUTURE = JSON.stringify({
  formatVersion: 2,
  runId: '20261121T100000Z-future',
  holders: [{ owner: 'lambda:x/1', until: '2030-01-01T00:00:00Z' }],
});

/** The LeaseHeldError `attempt` rejects with (fails the test if it resolves or rejects otherwise). */
async function heldError(attempt: Promise<unknown>): Promise<LeaseHeldError> {
  const error = await attempt.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LeaseHeldError);
  return error as LeaseHeldError;
}

describe('local lease.json', () => {
  let dir: string;
  let path: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lease-format-'));
    path = join(dir, 'lease.json');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['a torn write', '{"owner":"cli:other","runId":"r', 'it is not JSON (a write cut short by a crash?)'],
    ['an empty file (a crash between create and write)', '', 'it is empty (a write cut short by a crash?)'],
  ])('%s counts as held for a lease lifetime from its mtime, then is taken over', async (_, text, problem) => {
    await writeFile(path, text);
    // Whole seconds: every file system keeps them exactly.
    const modified = new Date(Math.floor((Date.now() - 60_000) / 1000) * 1000);
    await utimes(path, modified, modified);
    const until = new Date(modified.getTime() + TTL).toISOString();
    const error = await heldError(new FsStateStore(dir).acquireLease(REQUEST));
    expect(error.code).toBe('LEASE_HELD');
    expect(error.holder).toMatchObject({ runId: 'unknown', expiresAt: until });
    expect(error.message).toBe(
      `another run may hold the lease: the lease ${path} cannot be read: ${problem}. It counts as held until ${until} (its last modification plus the lease lifetime), as a run of another version may hold it; then it is taken over. If no run is in progress, delete ${path}`,
    );
    expect(await readFile(path, 'utf8')).toBe(text);

    // A lease lifetime after it was last written, it no longer blocks.
    const old = new Date(Date.now() - TTL - 1_000);
    await utimes(path, old, old);
    const lease = await new FsStateStore(dir).acquireLease(REQUEST);
    expect(lease.runId).toBe('run-new');
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ formatVersion: 1, runId: 'run-new' });
  });

  it("another version's lease (formatVersion 2) is held, named with its run, and unlock removes it", async () => {
    await writeFile(path, FUTURE);
    const store = new FsStateStore(dir);
    const error = await heldError(store.acquireLease(REQUEST));
    expect(error.holder.runId).toBe('20261121T100000Z-future');
    expect(error.message).toContain(
      'cannot be read: it has formatVersion 2; this version reads formatVersion 1 (a lease of another version of opsman-gitops?)',
    );
    expect(error.message).toContain(
      `If no run is in progress, remove it with \`opsman-gitops unlock 20261121T100000Z-future\` (same --state-dir), or delete ${path}`,
    );
    expect(await store.forceReleaseLease('20261121T100000Z-future')).toMatchObject({
      runId: '20261121T100000Z-future',
    });
    expect((await store.acquireLease(REQUEST)).runId).toBe('run-new');
  });

  it('a lease of another shape without formatVersion is held too; one an earlier version wrote reads as version 1', async () => {
    await writeFile(path, JSON.stringify({ runId: 'r-other', lockedUntil: '2030-01-01T00:00:00Z' }));
    const error = await heldError(new FsStateStore(dir).acquireLease(REQUEST));
    expect(error.message).toContain(
      'cannot be read: it has no owner, expiresAt, token (not a lease this version wrote)',
    );

    const earlier = {
      owner: 'cli:old',
      runId: 'r-old',
      token: 't',
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    };
    await writeFile(path, JSON.stringify(earlier));
    const held = await heldError(new FsStateStore(dir).acquireLease(REQUEST));
    expect(held.holder).toEqual({ owner: 'cli:old', runId: 'r-old', expiresAt: earlier.expiresAt });
    await writeFile(path, JSON.stringify({ ...earlier, expiresAt: new Date(Date.now() - 1).toISOString() }));
    expect((await new FsStateStore(dir).acquireLease(REQUEST)).runId).toBe('run-new');
  });

  it('a renewed lease keeps formatVersion 1', async () => {
    const store = new FsStateStore(dir);
    const lease = await store.acquireLease(REQUEST);
    expect(JSON.parse(await readFile(path, 'utf8')).formatVersion).toBe(1);
    await store.renewLease(lease, TTL);
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ formatVersion: 1, token: lease.token });
  });
});

describe('S3 lease object', () => {
  const BUCKET = 'opsman-gitops-state';
  const KEY = 'state/lease.json';
  let s3: LoopbackS3;
  let client: S3Client;
  let now: Date;
  let store: S3StateStore;
  beforeEach(async () => {
    s3 = await startLoopbackS3({ buckets: [BUCKET] });
    client = loopbackS3Client(s3.endpoint);
    now = new Date();
    store = new S3StateStore({ client, bucket: BUCKET, now: () => now, retry: { sleep: async () => {} } });
  });
  afterEach(async () => {
    client.destroy();
    await s3.close();
  });

  it.each([
    ['a torn object', '{"owner":"lambda:a', 'it is not JSON (a write cut short by a crash?)'],
    ['an empty object', '', 'it is empty (a write cut short by a crash?)'],
    ['a newer version', FUTURE, 'it has formatVersion 2; this version reads formatVersion 1'],
  ])('%s counts as held until LastModified plus the lease lifetime, then is taken over', async (_, text, problem) => {
    s3.putDirect(BUCKET, KEY, text);
    // The store's clock reads after the write: LastModified (the write's second, rounded down) is then never later
    // than it, as it could be with a clock read before the write when a second boundary falls between the two.
    now = new Date();
    const error = await heldError(store.acquireLease(REQUEST));
    expect(error.code).toBe('LEASE_HELD');
    expect(error.message).toContain(`the lease s3://${BUCKET}/${KEY} cannot be read: ${problem}`);
    expect(error.message).toContain(`If no run is in progress, delete the object (aws s3 rm s3://${BUCKET}/${KEY})`);
    // LastModified has whole seconds: held from within a second of the write for the lease lifetime.
    const until = Date.parse(error.holder.expiresAt);
    expect(until).toBeGreaterThan(now.getTime() + TTL - 2_000);
    expect(until).toBeLessThanOrEqual(now.getTime() + TTL);
    expect(s3.getText(BUCKET, KEY)).toBe(text);

    now = new Date(until + 1);
    const lease = await store.acquireLease(REQUEST);
    expect(lease.runId).toBe('run-new');
    expect(JSON.parse(s3.getText(BUCKET, KEY) ?? '')).toMatchObject({ formatVersion: 1, runId: 'run-new' });
  });

  it('a lease written without formatVersion (earlier versions) reads as version 1', async () => {
    const earlier = {
      owner: 'lambda:old/1',
      runId: 'r-old',
      acquiredAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + 60_000).toISOString(),
    };
    s3.putDirect(BUCKET, KEY, JSON.stringify(earlier));
    const error = await heldError(store.acquireLease(REQUEST));
    expect(error.holder).toEqual({ owner: 'lambda:old/1', runId: 'r-old', expiresAt: earlier.expiresAt });
    expect(error.message).toContain('another run holds the lease: lambda:old/1 (run r-old');
  });
});
