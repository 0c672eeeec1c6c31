// Scenario: state.json in the state directory is a symbolic link to a file elsewhere (a shared location). The state is
// written by renaming a temp file over state.json, which replaces the link itself: the first apply read the file the
// link named, then wrote a plain state.json beside the lease, and the file elsewhere silently stopped being updated
// (and a second state directory linking to it had its own lease: no lock between them). Refused instead, naming the
// link, its target and the way out; the file it names is left as it was.
import { mkdir, mkdtemp, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsStateStore, FsStoreError } from '../../../lambdas/adapters/local/state-fs.ts';
import { emptyState } from '../../../lambdas/core/state.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'state-symlink-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a state.json that is a symbolic link', () => {
  it('is refused on read and on write, naming the link and its target; the link and its file are left as they were', async () => {
    const shared = join(dir, 'shared');
    await mkdir(shared);
    const target = join(shared, 'state.json');
    const text = `${JSON.stringify(emptyState('2026-01-01T00:00:00Z'), null, 2)}\n`;
    await writeFile(target, text);
    const stateDir = join(dir, 'state');
    await mkdir(stateDir);
    await symlink(target, join(stateDir, 'state.json'));
    const store = new FsStateStore(stateDir);

    const read = await store.read().catch((e: unknown) => e);
    expect(read).toBeInstanceOf(FsStoreError);
    expect((read as Error).message).toBe(
      `${join(stateDir, 'state.json')} is a symbolic link (to ${target}): the state is replaced by renaming a new file over state.json, which would replace the link, not the file it names. Give --state-dir the directory that holds the state instead, or replace the link with the file`,
    );
    const write = await store.write(emptyState('2026-01-02T00:00:00Z'), null).catch((e: unknown) => e);
    expect(write).toBeInstanceOf(FsStoreError);
    expect(await readlink(join(stateDir, 'state.json'))).toBe(target);
    expect(await readFile(target, 'utf8')).toBe(text);
  });

  it('a state directory that is itself a link is used as usual', async () => {
    const real = join(dir, 'real');
    await mkdir(real);
    await symlink(real, join(dir, 'link'));
    const store = new FsStateStore(join(dir, 'link'));
    const version = await store.write(emptyState('2026-01-01T00:00:00Z'), null);
    expect((await store.read()).version).toBe(version);
    expect(JSON.parse(await readFile(join(real, 'state.json'), 'utf8')).updatedAt).toBe('2026-01-01T00:00:00Z');
  });
});
