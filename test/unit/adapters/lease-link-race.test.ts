// Scenario: a new lease.json is linked into place, never written over one: when another process created lease.json
// between this run's read and its link (one of an earlier release, without the lease lock), the run is refused by
// that holder's name and leaves nothing of its own; a link failing for another reason (a file system without hard
// links) is that failure, naming the file, never a held lease.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FsStateStore } from '../../../lambdas/adapters/local/state-fs.ts';
import { LeaseHeldError } from '../../../lambdas/core/errors.ts';

const before = vi.hoisted(() => ({ link: undefined as ((to: string) => Promise<void>) | undefined }));

vi.mock('../../../lambdas/adapters/local/atomic-file.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../lambdas/adapters/local/atomic-file.ts')>();
  return {
    ...original,
    linkFile: async (from: string, to: string) => {
      await before.link?.(to);
      return original.linkFile(from, to);
    },
  };
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lease-link-race-'));
  before.link = undefined;
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const OTHER = { owner: 'cli:other@h', runId: 'other-run', expiresAt: '2099-01-01T00:00:00.000Z', token: 't' };

describe('acquiring a lease when its link into place fails', () => {
  it('another lease.json appeared meanwhile: LeaseHeldError naming its holder; it is kept, no temp file left', async () => {
    before.link = async (to) => {
      if (to.endsWith('lease.json')) await writeFile(to, JSON.stringify(OTHER));
    };
    const error = await new FsStateStore(dir)
      .acquireLease({ owner: 'cli:me@h', runId: 'mine', ttlMs: 60_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseHeldError);
    expect((error as LeaseHeldError).holder).toMatchObject({ owner: OTHER.owner, runId: OTHER.runId });
    expect(JSON.parse(await readFile(join(dir, 'lease.json'), 'utf8'))).toEqual(OTHER);
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('another failure (no hard links there): that failure, naming lease.json, not a held lease', async () => {
    before.link = async () => {
      throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' });
    };
    const error = await new FsStateStore(dir)
      .acquireLease({ owner: 'cli:me@h', runId: 'mine', ttlMs: 60_000 })
      .catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(LeaseHeldError);
    expect(error).toMatchObject({ name: 'FsStoreError', errno: 'EPERM' });
    expect((error as Error).message).toMatch(/^cannot create the lease file .*lease\.json: /);
    expect((await readdir(dir)).filter((name) => name !== 'lease.json.lock')).toEqual([]);
  });
});
