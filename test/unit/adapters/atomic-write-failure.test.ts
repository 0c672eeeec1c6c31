// Scenario: an atomic write of a local store fails mid-way (the file-size limit of `ulimit -f` makes the write fail
// with EFBIG, as a full disk does with ENOSPC): the state, an archive object, a desired-state cache entry and the
// fingerprint key and the lease each reject with that failure, and leave no temp file behind (before, writeChunksAtomic left its
// hidden `.<hex>-<n>.tmp` beside state.json or the archive object).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ChildOutcome, moduleUrl, runInChild } from '../../helpers/child-module.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'atomic-write-failure-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const LIST_LEFT = `
  const left = [];
  const walk = (d, prefix) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(d, entry.name), prefix + entry.name + '/');
      else left.push(prefix + entry.name);
    }
  };
  walk(dir, '');
  report(left.sort());`;

/** What the child saw: the failure (name, code, message, the cause's code) and every name left in the directory. */
interface Outcome {
  error: ChildOutcome['error'];
  left: string[];
}

/**
 * Runs `body` (given `dir` and `big`, a 1 MB string) in a Node child whose files may not grow past `blocks` blocks
 * (`ulimit -f`: the write fails with EFBIG), then lists what is left in `dir`.
 */
async function underFileSizeLimit(blocks: number, imports: string, body: string): Promise<Outcome> {
  const outcome = await runInChild(
    `${imports}\nimport { readdirSync } from 'node:fs';\nimport { join } from 'node:path';`,
    `const dir = args[0];
  const big = 'x'.repeat(1 << 20);
  try {
    ${body}
  } finally {
    ${LIST_LEFT}
  }`,
    [dir],
    { fileSizeBlocks: blocks },
  );
  return { error: outcome.error, left: outcome.reported as string[] };
}

const TEMP = /(^|\/)\.[^/]*\.tmp$/;

describe('an atomic write that fails leaves no temp file and reports its own failure', { timeout: 60_000 }, () => {
  it('state.json (FsStateStore.write, chunked)', async () => {
    const outcome = await underFileSizeLimit(
      64,
      `import { FsStateStore } from '${moduleUrl('lambdas/adapters/local/state-fs.ts')}';`,
      `await new FsStateStore(dir).write({ formatVersion: 1, projects: { p: { note: big } } }, null);`,
    );
    expect(outcome.error).toMatchObject({ name: 'FsStoreError', cause: 'EFBIG' });
    expect(outcome.error?.message).toMatch(/^cannot write .*state\.json: .*EFBIG/);
    expect(outcome.left.filter((name) => TEMP.test(name))).toEqual([]);
    expect(outcome.left).not.toContain('state.json');
  });

  it('an archive object (FsArchiveStore.putPieces, chunked)', async () => {
    const outcome = await underFileSizeLimit(
      64,
      `import { FsArchiveStore } from '${moduleUrl('lambdas/adapters/local/archive-fs.ts')}';`,
      `await new FsArchiveStore(dir).putPieces('usage/2026-11.json', [big]);`,
    );
    expect(outcome.error).toMatchObject({ name: 'FsStoreError', cause: 'EFBIG' });
    expect(outcome.left.filter((name) => TEMP.test(name))).toEqual([]);
    expect(outcome.left).toEqual([]);
  });

  it('a desired-state cache entry (FsDesiredStateCache.putPieces)', async () => {
    const outcome = await underFileSizeLimit(
      64,
      `import { FsDesiredStateCache } from '${moduleUrl('lambdas/adapters/local/desired-cache-fs.ts')}';`,
      `await new FsDesiredStateCache(dir).putPieces('${'a'.repeat(64)}', [big]);`,
    );
    expect(outcome.error).toMatchObject({ code: 'EFBIG' });
    expect(outcome.left).toEqual([]);
  });

  it('the fingerprint key (created on first use)', async () => {
    const outcome = await underFileSizeLimit(
      0,
      `import { loadFingerprintKey } from '${moduleUrl('lambdas/adapters/local/fingerprint-key.ts')}';`,
      'await loadFingerprintKey(dir, {});',
    );
    expect(outcome.error).toMatchObject({ name: 'FingerprintKeyError', cause: 'EFBIG' });
    expect(outcome.left).toEqual([]);
  });

  // A lease.json created first and written after was left empty by a failed write (a full disk), or by a kill between
  // the two: an unreadable lease that refused every run for a lease lifetime (15 minutes). It is now linked into place
  // only once written in full.
  it('the lease (FsStateStore.acquireLease): no lease.json is left to refuse the next run', async () => {
    const outcome = await underFileSizeLimit(
      0,
      `import { FsStateStore } from '${moduleUrl('lambdas/adapters/local/state-fs.ts')}';`,
      `await new FsStateStore(dir).acquireLease({ owner: 'o', runId: 'r1', ttlMs: 900_000 });`,
    );
    expect(outcome.error).toMatchObject({ name: 'FsStoreError', cause: 'EFBIG' });
    expect(outcome.error?.message).toMatch(/^cannot (create|write) the lease file .*lease\.json: .*EFBIG/);
    expect(outcome.left).toEqual([]);
  });
});
