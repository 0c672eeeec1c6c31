// Scenario: the corrupt state.json is copied aside before a run replaces it, and the copy is checked against the
// version read: when state.json changes between the two (edited by hand, or written by a process that ignores the
// lock), the copy is not the corrupt state, so the save fails naming the copy, keeps no copy under that name and
// leaves state.json as it is now.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FsStateStore } from '../../../lambdas/adapters/local/state-fs.ts';
import type { StateCorruptError } from '../../../lambdas/core/errors.ts';
import { emptyState } from '../../../lambdas/core/state.ts';

const hook = vi.hoisted(() => ({ beforeOpen: undefined as ((path: string) => Promise<void>) | undefined }));

vi.mock('../../../shared/regular-file.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../shared/regular-file.ts')>();
  return {
    ...original,
    openRegularFile: async (path: string) => {
      await hook.beforeOpen?.(path);
      return original.openRegularFile(path);
    },
  };
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'corrupt-copy-race-'));
  hook.beforeOpen = undefined;
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('keeping the corrupt state aside while state.json changes', () => {
  it('fails naming the copy, keeps no copy of other bytes, leaves state.json as it now is', async () => {
    const statePath = join(dir, 'state.json');
    await writeFile(statePath, '{ torn');
    const store = new FsStateStore(dir);
    const version = await store.read().then(
      () => null,
      (error: unknown) => (error as StateCorruptError).version,
    );
    let opens = 0;
    hook.beforeOpen = async (path) => {
      // The first open hashes state.json for the version check; the second copies it: changed in between.
      if (path === statePath && ++opens === 2) await writeFile(statePath, '{ torn, then edited');
    };
    const error = await store.write(emptyState('2026-01-01T00:00:00Z'), version).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'FsStoreError' });
    expect((error as Error).message).toMatch(/^cannot keep a copy of the corrupt state as .*state\.json\.corrupt-/);
    expect(await readFile(statePath, 'utf8')).toBe('{ torn, then edited');
    expect((await readdir(dir)).filter((name) => name !== 'state.json.lock')).toEqual(['state.json']);
  });
});
