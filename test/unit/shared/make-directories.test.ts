// Scenario: directories are made one level at a time: missing parents created with the mode asked, an existing
// directory left alone, a file in the path refused with ENOTDIR, and a path under /proc refused at once where Node's
// recursive mkdir never settles.
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDirectories } from '../../../shared/make-directories.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'make-dirs-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('makeDirectories', () => {
  it('creates every missing level with the mode and names the first one created', async () => {
    const top = join(root, 'a');
    const deep = join(top, 'b', 'c');
    expect(await makeDirectories(deep, 0o700)).toBe(top);
    for (const dir of [top, join(top, 'b'), deep]) {
      const info = await stat(dir);
      expect(info.isDirectory()).toBe(true);
      expect(info.mode & 0o777).toBe(0o700);
    }
  });

  it('leaves an existing directory alone and says it created nothing', async () => {
    const dir = join(root, 'existing');
    await mkdir(dir);
    expect(await makeDirectories(dir)).toBeUndefined();
  });

  it('refuses a path through a file with ENOTDIR, naming the file', async () => {
    const file = join(root, 'file');
    await writeFile(file, 'x');
    await expect(makeDirectories(join(file, 'sub', 'dir'))).rejects.toMatchObject({ code: 'ENOTDIR', path: file });
  });

  it.skipIf(process.platform !== 'linux')(
    'fails at once under /proc, where Node’s recursive mkdir never settles',
    async () => {
      const started = Date.now();
      const error = await makeDirectories('/proc/self/opsman-gitops-test/sub').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((error as NodeJS.ErrnoException | undefined)?.code).toMatch(/^(ENOENT|EACCES|EPERM|EROFS)$/);
      expect(Date.now() - started).toBeLessThan(5_000);
    },
  );
});
