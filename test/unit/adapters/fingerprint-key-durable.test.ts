// Scenario: the state directory's fingerprint key is created on first use; its directory entry is synced before the
// key is used, so a power cut cannot lose a key whose fingerprints were already written to the state.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

const synced: { dir: string; keyThere: boolean }[] = [];

vi.mock('../../../lambdas/adapters/local/dir-sync.ts', () => ({
  syncDirectory: async (dir: string) => {
    synced.push({ dir, keyThere: existsSync(join(dir, 'fingerprint.key')) });
  },
}));

const { loadFingerprintKey } = await import('../../../lambdas/adapters/local/fingerprint-key.ts');

describe('fingerprint key creation', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    synced.length = 0;
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });

  it('syncs the state directory after the key is linked into place, before it is used', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'opsman-fpkey-'));
    dirs.push(dir);
    const key = await loadFingerprintKey(dir, {});
    expect(key.length).toBe(32);
    expect(synced).toEqual([{ dir, keyThere: true }]);
    // A key already there is read, not created: nothing to sync.
    await loadFingerprintKey(dir, {});
    expect(synced).toHaveLength(1);
  });
});
