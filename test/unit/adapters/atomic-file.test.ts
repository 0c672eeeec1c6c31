// Scenario: the callback-style atomic-write steps create temp files exclusively with the right bytes and mode, and rename, link and directory fsync behave like their fs counterparts.
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  fsyncDirectory,
  linkFile,
  renameFile,
  tempPathIn,
  unlinkQuietly,
  writeSyncedTemp,
} from '../../../lambdas/adapters/local/atomic-file.ts';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'atomic-file-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('tempPathIn', () => {
  it('names hidden .tmp files in the directory, each distinct', () => {
    const names = Array.from({ length: 1000 }, () => tempPathIn(dir));
    expect(new Set(names).size).toBe(1000);
    for (const name of names.slice(0, 5)) {
      expect(path.dirname(name)).toBe(dir);
      expect(path.basename(name)).toMatch(/^\.[0-9a-f]{12}-[0-9a-z]+\.tmp$/);
    }
  });
});

describe('writeSyncedTemp', () => {
  it.each<[string, string | Uint8Array, string]>([
    ['a string (UTF-8)', 'héllo\n', 'héllo\n'],
    ['bytes', new TextEncoder().encode('{"a":1}'), '{"a":1}'],
    ['an empty body', '', ''],
    ['a large body', 'x'.repeat(300_000), 'x'.repeat(300_000)],
  ])('writes %s with the mode asked for', async (_name, body, expected) => {
    const temp = tempPathIn(dir);
    await writeSyncedTemp(temp, body, 0o640);
    expect(await readFile(temp, 'utf8')).toBe(expected);
    if (process.platform !== 'win32') expect((await stat(temp)).mode & 0o777).toBe(0o640 & ~process.umask());
  });

  it('never replaces an existing file (EEXIST), leaving it untouched', async () => {
    const temp = tempPathIn(dir);
    await writeFile(temp, 'keep');
    const error = await writeSyncedTemp(temp, 'other', 0o600).catch((e: unknown) => e);
    expect((error as NodeJS.ErrnoException).code).toBe('EEXIST');
    expect(await readFile(temp, 'utf8')).toBe('keep');
  });

  it('rejects when the directory is missing', async () => {
    const error = await writeSyncedTemp(path.join(dir, 'gone', '.t.tmp'), 'x', 0o600).catch((e: unknown) => e);
    expect((error as NodeJS.ErrnoException).code).toBe('ENOENT');
  });
});

describe('rename, link, unlink and directory fsync', () => {
  it('renames over an existing file; link refuses one (EEXIST); unlinkQuietly ignores a missing file', async () => {
    const a = path.join(dir, 'a');
    const b = path.join(dir, 'b');
    await writeFile(a, 'new');
    await writeFile(b, 'old');
    const temp = tempPathIn(dir);
    await writeSyncedTemp(temp, 'linked', 0o600);
    expect(((await linkFile(temp, b).catch((e: unknown) => e)) as NodeJS.ErrnoException).code).toBe('EEXIST');
    await linkFile(temp, path.join(dir, 'c'));
    await renameFile(a, b);
    expect(await readFile(b, 'utf8')).toBe('new');
    expect(await readFile(path.join(dir, 'c'), 'utf8')).toBe('linked');
    await unlinkQuietly(temp);
    await unlinkQuietly(temp);
    expect((await readdir(dir)).sort()).toEqual(['b', 'c']);
    const missing = await renameFile(a, b).catch((e: unknown) => e);
    expect((missing as NodeJS.ErrnoException).code).toBe('ENOENT');
  });

  it('fsyncs a directory, and rejects for one that does not exist', async () => {
    await expect(fsyncDirectory(dir)).resolves.toBeUndefined();
    const error = await fsyncDirectory(path.join(dir, 'nope')).catch((e: unknown) => e);
    expect((error as NodeJS.ErrnoException).code).toBe('ENOENT');
  });
});
