// Scenario: edges of the local stores that mutation testing found unguarded: an atomic write whose final rename fails
// leaves no temp file behind, and names the file it could not replace.
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsArchiveStore } from '../../../lambdas/adapters/local/archive-fs.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'local-store-edges-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const temps = async (path: string) => (await readdir(path)).filter((name) => name.endsWith('.tmp'));

describe('an atomic write whose rename into place fails', () => {
  // A directory (not empty) where the file goes: the temp file is written and synced, then rename fails.
  const blockWithDirectory = async (path: string) => {
    await mkdir(path, { recursive: true });
    await writeFile(join(path, 'keep'), 'x');
  };

  it('chunked (putPieces): rejects naming the file, and removes its temp file', async () => {
    await blockWithDirectory(join(dir, 'usage', 'm.json'));
    const archive = new FsArchiveStore(dir);
    await expect(archive.putPieces('usage/m.json', ['{"a":', '1}'])).rejects.toThrow(/cannot write .*m\.json/);
    expect(await temps(join(dir, 'usage'))).toEqual([]);
  });

  it('whole (put): rejects naming the file, and removes its temp file', async () => {
    await blockWithDirectory(join(dir, 'usage', 'm.json'));
    const archive = new FsArchiveStore(dir);
    await expect(archive.put('usage/m.json', '{"a":1}')).rejects.toThrow(/cannot write .*m\.json/);
    expect(await temps(join(dir, 'usage'))).toEqual([]);
  });
});
