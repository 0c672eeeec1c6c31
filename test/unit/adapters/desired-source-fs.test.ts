// Scenario: the directory source lists YAML files recursively and sorted, skips dot-dirs and escaping links, and refuses paths outside the root.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  DesiredSourceError,
  FsDesiredStateSource,
  SETTLED_MS,
  settledContentTag,
} from '../../../lambdas/adapters/local/desired-source-fs.ts';

let base: string;
let root: string;

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'desired-fs-'));
  root = path.join(base, 'root');
  await mkdir(path.join(root, 'projects/nested'), { recursive: true });
  await mkdir(path.join(root, '.git'), { recursive: true });
  await mkdir(path.join(base, 'outside'), { recursive: true });
  await writeFile(path.join(root, 'settings.yaml'), 'a: 1\n');
  await writeFile(path.join(root, 'projects/b.yml'), 'b: 2\n');
  await writeFile(path.join(root, 'projects/a.yaml'), 'a: 1\n');
  await writeFile(path.join(root, 'projects/nested/c.YAML'), 'c: 3\n');
  await writeFile(path.join(root, 'projects/notes.md'), '# not yaml\n');
  await writeFile(path.join(root, '.git/config.yaml'), 'hidden: true\n');
  await writeFile(path.join(root, '.hidden.yaml'), 'hidden: true\n');
  await writeFile(path.join(base, 'outside/secret.yaml'), 'outside: true\n');
  await symlink(path.join(base, 'outside'), path.join(root, 'escape-dir'));
  await symlink(path.join(base, 'outside/secret.yaml'), path.join(root, 'escape.yaml'));
  await symlink(path.join(root, 'projects/a.yaml'), path.join(root, 'alias.yaml'));
  await symlink(root, path.join(root, 'projects/loop'));
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('FsDesiredStateSource', () => {
  it('lists YAML files sorted with / separators, skipping dot entries and links leaving the root', async () => {
    const refs = await new FsDesiredStateSource(root).list();
    expect(refs).toEqual([
      { path: 'alias.yaml', size: 5 },
      { path: 'projects/a.yaml', size: 5 },
      { path: 'projects/b.yml', size: 5 },
      { path: 'projects/nested/c.YAML', size: 5 },
      { path: 'settings.yaml', size: 5 },
    ]);
  });

  it('reads a file under the root', async () => {
    const { bytes } = await new FsDesiredStateSource(root).read('projects/a.yaml');
    expect(new TextDecoder().decode(bytes)).toBe('a: 1\n');
  });

  it.each([
    ['../outside/secret.yaml', 'OUTSIDE_ROOT'],
    ['projects/../../outside/secret.yaml', 'OUTSIDE_ROOT'],
    ['/etc/passwd', 'OUTSIDE_ROOT'],
    ['escape.yaml', 'OUTSIDE_ROOT'],
    ['escape-dir/secret.yaml', 'OUTSIDE_ROOT'],
    ['missing.yaml', 'NOT_FOUND'],
    ['projects', 'NOT_A_FILE'],
  ])('refuses to read %s (%s)', async (relative, code) => {
    const error = await new FsDesiredStateSource(root).read(relative).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DesiredSourceError);
    expect((error as DesiredSourceError).code).toBe(code);
    expect((error as DesiredSourceError).message).not.toContain('outside: true');
  });

  it('a link loop is an I/O failure, not a file gone (which the loader would take for a torn upload)', async () => {
    await symlink(path.join(root, 'loop-b.yaml'), path.join(root, 'loop-a.yaml'));
    await symlink(path.join(root, 'loop-a.yaml'), path.join(root, 'loop-b.yaml'));
    const error = await new FsDesiredStateSource(root).read('loop-a.yaml').catch((e: unknown) => e);
    expect((error as DesiredSourceError).code).toBe('IO');
    expect((error as DesiredSourceError).message).toContain('ELOOP');
  });

  it('reads a listed file as it is now, and a listed path that became a directory is not a file', async () => {
    const source = new FsDesiredStateSource(root);
    await source.list();
    await writeFile(path.join(root, 'settings.yaml'), 'a: 2\nb: 3\n');
    expect(new TextDecoder().decode((await source.read('settings.yaml')).bytes)).toBe('a: 2\nb: 3\n');
    await rm(path.join(root, 'projects/b.yml'));
    await mkdir(path.join(root, 'projects/b.yml'));
    const error = await source.read('projects/b.yml').catch((e: unknown) => e);
    expect((error as DesiredSourceError).code).toBe('NOT_A_FILE');
    await rm(path.join(root, 'projects/a.yaml'));
    expect(((await source.read('projects/a.yaml').catch((e: unknown) => e)) as DesiredSourceError).code).toBe(
      'NOT_FOUND',
    );
  });

  it('a listed file replaced by a link leaving the root after list() is refused like any escaping link', async () => {
    const source = new FsDesiredStateSource(root);
    await source.list();
    await rm(path.join(root, 'settings.yaml'));
    await symlink(path.join(base, 'outside/secret.yaml'), path.join(root, 'settings.yaml'));
    const error = await source.read('settings.yaml').catch((e: unknown) => e);
    expect((error as DesiredSourceError).code).toBe('OUTSIDE_ROOT');
    expect((error as DesiredSourceError).message).not.toContain('outside: true');
    await rm(path.join(root, 'settings.yaml'));
    await symlink(path.join(root, 'projects/b.yml'), path.join(root, 'settings.yaml'));
    expect(new TextDecoder().decode((await source.read('settings.yaml')).bytes)).toBe('b: 2\n');
  });

  it.runIf(process.platform !== 'win32')('never lists a FIFO, and refuses to read one without blocking', async () => {
    execFileSync('mkfifo', [path.join(root, 'pipe.yaml')]);
    const source = new FsDesiredStateSource(root);
    expect((await source.list()).map((r) => r.path)).not.toContain('pipe.yaml');
    const error = await source.read('pipe.yaml').catch((e: unknown) => e);
    expect((error as DesiredSourceError).code).toBe('NOT_A_FILE');
  });

  it('readIfPresent: reads the snapshot manifest (a dot file), undefined when absent, rejects on anything else', async () => {
    await writeFile(path.join(root, '.opsman-gitops-snapshot.json'), '{"formatVersion":1,"files":[]}\n');
    const source = new FsDesiredStateSource(root);
    await source.list();
    const found = await source.readIfPresent('.opsman-gitops-snapshot.json');
    expect(new TextDecoder().decode(found?.bytes)).toBe('{"formatVersion":1,"files":[]}\n');
    expect(await source.readIfPresent('projects/.opsman-gitops-snapshot.json')).toBeUndefined();
    // ENOTDIR: a file where a directory of the path would be is "nothing there" too.
    expect(await source.readIfPresent('settings.yaml/.opsman-gitops-snapshot.json')).toBeUndefined();
    // A directory, a path leaving the root: errors, never "absent".
    await expect(source.readIfPresent('projects')).rejects.toMatchObject({ code: 'NOT_A_FILE' });
    await expect(source.readIfPresent('escape.yaml')).rejects.toMatchObject({ code: 'OUTSIDE_ROOT' });
    await expect(source.readIfPresent('../outside/secret.yaml')).rejects.toMatchObject({ code: 'OUTSIDE_ROOT' });
  });

  it('fails listing a root that is not a directory', async () => {
    const error = await new FsDesiredStateSource(path.join(base, 'nope')).list().catch((e: unknown) => e);
    expect((error as DesiredSourceError).code).toBe('NOT_A_DIRECTORY');
  });

  it('describes itself relative to the working directory', () => {
    expect(new FsDesiredStateSource('desired-state').describe()).toBe('dir:desired-state/');
    expect(new FsDesiredStateSource(root).describe()).toBe(`dir:${root}/`);
  });
});

describe('content tags of listed files', () => {
  const later = () => Date.now() + SETTLED_MS + 1_000;

  it('a file changed within SETTLED_MS has none; a settled one has device, inode, size and nanosecond times', async () => {
    const info = await stat(path.join(root, 'settings.yaml'), { bigint: true });
    expect(settledContentTag(info, Date.now())).toBeUndefined();
    expect(settledContentTag(info, later())).toBe(
      `stat:${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`,
    );
  });

  it('a rewrite of the same size changes the tag, and so does a replacement by rename', async () => {
    const file = path.join(root, 'settings.yaml');
    const before = settledContentTag(await stat(file, { bigint: true }), later());
    await new Promise((resolve) => setTimeout(resolve, 30));
    await writeFile(file, 'a: 2\n');
    const rewritten = settledContentTag(await stat(file, { bigint: true }), later());
    expect(rewritten).not.toBe(before);
    await writeFile(`${file}.new`, 'a: 3\n');
    await rename(`${file}.new`, file);
    const replaced = settledContentTag(await stat(file, { bigint: true }), later());
    expect(replaced).not.toBe(rewritten);
  });

  it('list() tags every file once they have settled, and none while they are fresh', async () => {
    const source = new FsDesiredStateSource(root);
    expect((await source.list()).filter((r) => r.contentTag !== undefined)).toEqual([]);
    const now = vi.spyOn(Date, 'now').mockReturnValue(later());
    try {
      const refs = await source.list();
      expect(refs.length).toBeGreaterThan(0);
      for (const ref of refs) expect(ref.contentTag).toMatch(/^stat:\d+:\d+:\d+:\d+:\d+$/);
      // A link is tagged as its target.
      expect(refs.find((r) => r.path === 'alias.yaml')?.contentTag).toBe(
        refs.find((r) => r.path === 'projects/a.yaml')?.contentTag,
      );
    } finally {
      now.mockRestore();
    }
  });
});
