// Scenario: the directory source lists YAML files recursively and sorted, skips dot-dirs, lists YAML-named entries it cannot read (escaping or dangling links, FIFOs, sockets, names not UTF-8) with their problem, and refuses paths outside the root.
import { execFileSync } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readdir, rename, rm, stat, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  DesiredSourceError,
  FsDesiredStateSource,
  SETTLED_MS,
  settledContentTag,
} from '../../../lambdas/adapters/local/desired-source-fs.ts';
import { loadDesiredStateCached } from '../../../lambdas/core/desired/load.ts';

/** True when user `nobody` can read `file` and resolve tsx from the repository (checked as that user). */
function nobodyCanRead(file: string): boolean {
  const check = `require('node:fs').accessSync(${JSON.stringify(file)}); require.resolve('tsx');`;
  try {
    execFileSync('runuser', ['-u', 'nobody', '--', process.execPath, '-e', check], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

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
  await chmodTree(base, 0o755);
  await rm(base, { recursive: true, force: true });
});

/** Every directory under `dir` (and itself) gets `mode`: lets another user in, and lets the cleanup through. */
async function chmodTree(dir: string, mode: number): Promise<void> {
  await chmod(dir, mode);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) await chmodTree(path.join(dir, entry.name), mode);
  }
}

describe('FsDesiredStateSource', () => {
  it('lists YAML files sorted with / separators, skipping dot entries; a file link leaving the root is listed with its problem', async () => {
    const refs = await new FsDesiredStateSource(root).list();
    expect(refs).toEqual([
      { path: 'alias.yaml', size: 5 },
      {
        path: 'escape-dir',
        size: 0,
        problem:
          'a symbolic link to a directory outside the desired-state root: its files are not read; copy them in, or remove the link',
      },
      {
        path: 'escape.yaml',
        size: 0,
        problem: expect.stringMatching(/^a symbolic link that leaves the desired-state root: it is not read/),
      },
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

  it('a directory reachable directly and through links inside the root is listed under its own path, in any readdir order', async () => {
    const tree = path.join(base, 'linked');
    await mkdir(path.join(tree, 'a'), { recursive: true });
    await mkdir(path.join(tree, 'b'));
    await writeFile(path.join(tree, 'b/g.yaml'), 'g: 1\n');
    // A link met (in sorted order) before the directory it points to, one level down.
    await symlink(path.join(tree, 'b'), path.join(tree, 'a/to-b'));
    const expected = ['b/g.yaml'];
    for (let i = 0; i < 12; i++) {
      await mkdir(path.join(tree, `d${i}`));
      await writeFile(path.join(tree, `d${i}/f.yaml`), `f: ${i}\n`);
      await symlink(path.join(tree, `d${i}`), path.join(tree, `${String.fromCharCode(97 + i)}${i}-link`));
      expected.push(`d${i}/f.yaml`);
    }
    const listed = await new FsDesiredStateSource(tree).list();
    expect(listed.map((f) => f.path)).toEqual(expected.sort());
  });

  it('a link loop is an I/O failure, not a file gone (which the loader would take for a torn upload)', async () => {
    await symlink(path.join(root, 'loop-b.yaml'), path.join(root, 'loop-a.yaml'));
    await symlink(path.join(root, 'loop-a.yaml'), path.join(root, 'loop-b.yaml'));
    const error = await new FsDesiredStateSource(root).read('loop-a.yaml').catch((e: unknown) => e);
    expect((error as DesiredSourceError).code).toBe('IO');
    expect((error as DesiredSourceError).message).toContain('ELOOP');
  });

  it('a link to a missing file (a pinned manifest, say) is named as such, not as "no file" (ls shows it there)', async () => {
    await mkdir(path.join(root, 'manifests'));
    await symlink('approved-2026.json', path.join(root, 'manifests/approved.json'));
    const source = new FsDesiredStateSource(root);
    const error = await source.read('manifests/approved.json').catch((e: unknown) => e);
    expect((error as DesiredSourceError).code).toBe('NOT_FOUND'); // still gone: the loader's meaning is unchanged
    expect((error as DesiredSourceError).message).toBe(
      '"manifests/approved.json" is a symbolic link to a file that does not exist: it is not read; restore its target, or remove the link',
    );
    // Nothing there at all is still "no file".
    const absent = await source.read('manifests/other.json').catch((e: unknown) => e);
    expect((absent as DesiredSourceError).message).toBe('no file "manifests/other.json" under the desired-state root');
  });

  it('a listed file replaced by one over maxBytes answers its size, unread; without maxBytes it is read whole', async () => {
    const source = new FsDesiredStateSource(root);
    await source.list();
    await truncate(path.join(root, 'settings.yaml'), 3_000_000_000); // sparse: no disk, but 3 GB to read
    expect(await source.read('settings.yaml', { maxBytes: 1024 })).toEqual({
      bytes: new Uint8Array(),
      size: 3_000_000_000,
    });
    await truncate(path.join(root, 'settings.yaml'), 2000);
    expect((await source.read('settings.yaml', { maxBytes: 1024 })).size).toBe(2000);
    expect((await source.read('settings.yaml')).bytes.length).toBe(2000);
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

  it.runIf(process.platform !== 'win32')(
    'lists a FIFO with its problem, and refuses to read one without blocking',
    async () => {
      execFileSync('mkfifo', [path.join(root, 'pipe.yaml')]);
      const source = new FsDesiredStateSource(root);
      expect((await source.list()).find((r) => r.path === 'pipe.yaml')).toEqual({
        path: 'pipe.yaml',
        size: 0,
        problem:
          'a FIFO (named pipe), not a regular file: it is not read; remove it, or replace it with the file itself',
      });
      const error = await source.read('pipe.yaml').catch((e: unknown) => e);
      expect((error as DesiredSourceError).code).toBe('NOT_A_FILE');
    },
  );

  it.runIf(process.platform === 'linux')(
    'a YAML-named entry that cannot be read as a file is listed with why, never skipped; other names are ignored',
    async () => {
      await rm(path.join(root, 'projects/loop'));
      await symlink(path.join(root, 'gone.yaml'), path.join(root, 'projects/dangling.yaml'));
      await symlink(path.join(root, 'projects/loop-b.yml'), path.join(root, 'projects/loop-a.yml'));
      await symlink(path.join(root, 'projects/loop-a.yml'), path.join(root, 'projects/loop-b.yml'));
      // Not UTF-8: readdir hands back U+FFFD for the byte, a name by which the file cannot be opened.
      await writeFile(Buffer.from(`${root}/projects/caf\xe9.yaml`, 'latin1'), 'c: 1\n');
      execFileSync('python3', [
        '-c',
        `import socket; socket.socket(socket.AF_UNIX).bind(${JSON.stringify(`${root}/s.yaml`)})`,
      ]);
      // The same kinds under names that are not YAML are none of the loader's business.
      await symlink(path.join(root, 'gone.md'), path.join(root, 'projects/dangling.md'));
      await writeFile(Buffer.from(`${root}/projects/caf\xe9.md`, 'latin1'), '# x\n');
      const refs = await new FsDesiredStateSource(root).list();
      const problems = Object.fromEntries(refs.filter((r) => r.problem).map((r) => [r.path, r.problem]));
      expect(problems).toEqual({
        'escape-dir': expect.stringContaining('a symbolic link to a directory outside the desired-state root'),
        'escape.yaml': expect.stringContaining('leaves the desired-state root'),
        'projects/caf\uFFFD.yaml': 'the file name is not valid UTF-8, so the file cannot be opened by name: rename it',
        'projects/dangling.yaml':
          'a symbolic link to a file that does not exist: it is not read; restore its target, or remove the link',
        'projects/loop-a.yml': 'a symbolic link loop (ELOOP): it is not read; remove the link',
        'projects/loop-b.yml': 'a symbolic link loop (ELOOP): it is not read; remove the link',
        's.yaml': 'a socket, not a regular file: it is not read; remove it, or replace it with the file itself',
      });
      expect(refs.filter((r) => !r.problem).map((r) => r.path)).toEqual([
        'alias.yaml',
        'projects/a.yaml',
        'projects/b.yml',
        'projects/nested/c.YAML',
        'settings.yaml',
      ]);
    },
  );

  it.runIf(process.platform === 'linux')(
    'as a non-root user: a YAML file in a directory listed but not searched has its errno; an unreadable directory is named',
    async (ctx) => {
      const asRoot = process.getuid?.() === 0;
      // As root the listing runs as `nobody`, who cannot read a clone under a root-only directory (mktemp -d, /root).
      if (asRoot && !nobodyCanRead(path.resolve('lambdas/adapters/local/desired-source-fs.ts'))) {
        return ctx.skip('running as root, and user nobody cannot read this repository');
      }
      await mkdir(path.join(root, 'listable'));
      await writeFile(path.join(root, 'listable/p.yaml'), 'p: 1\n');
      const script = `import { FsDesiredStateSource } from ${JSON.stringify(path.resolve('lambdas/adapters/local/desired-source-fs.ts'))};
        const listed = await new FsDesiredStateSource(${JSON.stringify(root)}).list().catch((e) => ({ code: e.code, path: e.path, message: e.message }));
        process.stdout.write(JSON.stringify(Array.isArray(listed) ? listed.find((r) => r.path === 'listable/p.yaml') : listed));`;
      // Root is never refused a stat or a readdir: list as nobody (the files stay readable).
      const user = asRoot ? ['runuser', '-u', 'nobody', '--'] : [];
      const [command, ...args] = [...user, process.execPath, '--import', 'tsx', '--input-type=module', '-e', script];
      const listAsUser = () => JSON.parse(execFileSync(command as string, args, { encoding: 'utf8' })) as unknown;
      await chmodTree(base, 0o755);
      await chmod(path.join(root, 'listable'), 0o744); // r--: names readable, entries not
      expect(listAsUser()).toEqual({
        path: 'listable/p.yaml',
        size: 0,
        problem: 'cannot be examined (EACCES): it is not read',
      });
      await chmod(path.join(root, 'projects/nested'), 0o311); // -wx: not listable
      expect(listAsUser()).toEqual({
        code: 'IO',
        path: 'projects/nested',
        message: 'the directory "projects/nested" cannot be listed (EACCES)',
      });
    },
  );

  it.runIf(process.platform === 'linux')(
    'a directory that cannot be opened by name or path is named relative to the root with why (not a misleading ENOENT)',
    async () => {
      const source = new FsDesiredStateSource(root);
      await mkdir(Buffer.from(`${root}/projects/caf\xe9`, 'latin1'));
      await expect(source.list()).rejects.toMatchObject({
        code: 'IO',
        path: 'projects/caf\uFFFD',
        message:
          'the directory "projects/caf\uFFFD" has a name that is not valid UTF-8, so it cannot be opened by name: rename it',
      });
      await rm(Buffer.from(`${root}/projects/caf\xe9`, 'latin1'), { recursive: true });
      // Deeper than PATH_MAX: made level by level (relative paths), as a generator or an unpacked archive can.
      const made = `import os\nos.chdir(${JSON.stringify(root)})\nfor _ in range(2100):\n  os.mkdir('d'); os.chdir('d')\n`;
      execFileSync('python3', ['-c', made]);
      const error = (await source.list().catch((e: unknown) => e)) as DesiredSourceError;
      expect(error.code).toBe('IO');
      expect(error.message).toMatch(
        /^the directory "d\/d\/.{50,}\.\.\..{40}" is nested too deep: its path \(\d{4} characters under the root\) is longer than the system allows \(ENAMETOOLONG\)$/,
      );
      execFileSync('rm', ['-rf', path.join(root, 'd')]);
    },
  );

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
    // Listed with their problems, and no tag: not files it can vouch for.
    await rm(path.join(root, 'escape.yaml'));
    await rm(path.join(root, 'escape-dir'));
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

describe('loading a directory holding an entry it cannot read', () => {
  it('is invalid with an issue at that entry (never a smaller valid state, never a source failure to retry)', async () => {
    const example = path.join(base, 'example');
    await cp(path.resolve('desired-state'), example, { recursive: true });
    const whole = await loadDesiredStateCached(new FsDesiredStateSource(example));
    expect(whole.result.ok).toBe(true);
    // A project file moved away, its link left behind: skipped, the project would silently leave the desired state.
    await rename(path.join(example, 'projects/search.yaml'), path.join(base, 'search.yaml'));
    await symlink(path.join(example, 'projects/moved/search.yaml'), path.join(example, 'projects/search.yaml'));
    const loaded = await loadDesiredStateCached(new FsDesiredStateSource(example));
    expect(loaded.result).toEqual({
      ok: false,
      issues: [
        {
          file: 'projects/search.yaml',
          line: 1,
          column: 1,
          path: '',
          message:
            'a symbolic link to a file that does not exist: it is not read; restore its target, or remove the link',
        },
      ],
    });
    expect(loaded.sourceError).toBeUndefined();
    expect(loaded.unhashedFiles).toEqual([{ path: 'projects/search.yaml', size: 0, reason: 'unreadable' }]);
  });

  it('a link to a directory outside the root is an issue at the link, whatever its name', async () => {
    const example = path.join(base, 'example');
    await cp(path.resolve('desired-state'), example, { recursive: true });
    await rename(path.join(example, 'templates'), path.join(base, 'shared-templates'));
    await symlink(path.join(base, 'shared-templates'), path.join(example, 'templates'));
    const loaded = await loadDesiredStateCached(new FsDesiredStateSource(example));
    expect(loaded.result.ok).toBe(false);
    const issues = loaded.result.ok ? [] : loaded.result.issues;
    expect(issues[issues.length - 1]).toEqual({
      file: 'templates',
      line: 1,
      column: 1,
      path: '',
      message:
        'a symbolic link to a directory outside the desired-state root: its files are not read; copy them in, or remove the link',
    });
    expect(loaded.sourceError).toBeUndefined();
  });
});
