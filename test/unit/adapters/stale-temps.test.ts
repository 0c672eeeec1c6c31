// Scenario: a run killed mid-write leaves a hidden temp file (`.<hex>-<n>.tmp`) in the state directory or the
// desired-state cache; the next state write (or cache write) there removes the ones over an hour old, and nothing
// else: not a fresh one (a write in progress), not a file of another name, not a link, not one in a subdirectory.
import { mkdir, mkdtemp, readdir, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempPathIn } from '../../../lambdas/adapters/local/atomic-file.ts';
import { FsDesiredStateCache } from '../../../lambdas/adapters/local/desired-cache-fs.ts';
import { OWN_TEMP_NAME, sweepStaleTemps } from '../../../lambdas/adapters/local/stale-temps.ts';
import { FsStateStore } from '../../../lambdas/adapters/local/state-fs.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stale-temps-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const TWO_HOURS_AGO = new Date(Date.now() - 2 * 60 * 60_000);
const OLD = '.0a1b2c3d4e5f-1.tmp';
const OLD_LEGACY = '.3f2504e0-4f89-41d3-9a0c-0305e82c3301.tmp';
const OLD_KEY = '.fingerprint.key.3f2504e0-4f89-41d3-9a0c-0305e82c3301.tmp';
const FRESH = '.0a1b2c3d4e5f-2.tmp';
/** Old, but not ours: another name, a link, a directory, and one of ours below a subdirectory. */
const FOREIGN = ['.notes.tmp', 'state.json.tmp', '.0A1B2C3D4E5F-1.tmp', '.0a1b2c3d4e5f-1.tmp.bak'];
const LINK = '.aaaaaaaaaaaa-1.tmp';
const SUBDIR = '.bbbbbbbbbbbb-1.tmp';

/** Lays out `at` with every case; all but FRESH dated two hours back. */
async function layOut(at: string): Promise<void> {
  await mkdir(at, { recursive: true });
  for (const name of [OLD, OLD_LEGACY, OLD_KEY, FRESH, ...FOREIGN]) await writeFile(join(at, name), 'partial');
  await writeFile(join(dir, 'target'), 'not ours');
  await symlink(join(dir, 'target'), join(at, LINK));
  await mkdir(join(at, SUBDIR));
  await mkdir(join(at, 'sub'));
  await writeFile(join(at, 'sub', OLD), 'partial');
  for (const name of [OLD, OLD_LEGACY, OLD_KEY, ...FOREIGN, SUBDIR, 'sub', join('sub', OLD)]) {
    await utimes(join(at, name), TWO_HOURS_AGO, TWO_HOURS_AGO);
  }
}

const KEPT = [FRESH, ...FOREIGN, LINK, SUBDIR, 'sub'];

describe('stale temp files of a killed run', () => {
  it('the name pattern is the one atomic writes use, and no other', () => {
    for (const name of [OLD, OLD_LEGACY, OLD_KEY, FRESH]) expect(name).toMatch(OWN_TEMP_NAME);
    for (let i = 0; i < 40; i++) expect(basename(tempPathIn(dir))).toMatch(OWN_TEMP_NAME);
    for (const name of FOREIGN) expect(name).not.toMatch(OWN_TEMP_NAME);
  });

  it('a state write removes the old ones in the state directory, and only those', async () => {
    const stateDir = join(dir, 'state');
    await layOut(stateDir);
    const store = new FsStateStore(stateDir);
    await store.write({ formatVersion: 1, updatedAt: new Date().toISOString(), projects: {} }, null);
    const left = await readdir(stateDir);
    expect(left.sort()).toEqual([...KEPT, 'state.json'].sort());
    expect(await readdir(join(stateDir, 'sub'))).toEqual([OLD]);
  });

  it('a cache write removes the old ones in the cache directory', async () => {
    const cacheDir = join(dir, 'cache');
    await layOut(cacheDir);
    await new FsDesiredStateCache(cacheDir).put('c'.repeat(64), '{}');
    expect((await readdir(cacheDir)).sort()).toEqual([...KEPT, `${'c'.repeat(64)}.json`].sort());
  });

  it('a directory that cannot be read is no failure', async () => {
    expect(await sweepStaleTemps(join(dir, 'missing'), Date.now())).toEqual([]);
  });
});
