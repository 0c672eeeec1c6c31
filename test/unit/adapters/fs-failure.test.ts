// Scenario: a state or archive directory that cannot be written fails with one sentence naming the operation, the path and the cause (a file in the path, permission denied, no space, read-only), never Node's bare "ENOTDIR: not a directory, mkdir ...".
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsArchiveStore } from '../../../lambdas/adapters/local/archive-fs.ts';
import { FingerprintKeyError, loadFingerprintKey } from '../../../lambdas/adapters/local/fingerprint-key.ts';
import { describeFsCause, FsStoreError, fsFailure } from '../../../lambdas/adapters/local/fs-failure.ts';
import { FsStateStore } from '../../../lambdas/adapters/local/state-fs.ts';
import { ensureWritableDirectory } from '../../../lambdas/adapters/local/writable-dir.ts';
import { StateConflictError } from '../../../lambdas/core/errors.ts';
import { emptyState } from '../../../lambdas/core/state.ts';

let dir: string;
/** A regular file: any path under it fails with ENOTDIR, even for root (chmod does not stop root). */
let file: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'fs-failure-'));
  file = path.join(dir, 'a-file');
  await writeFile(file, 'x');
});
afterEach(async () => {
  await chmod(dir, 0o755).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

const errno = (code: string, message = `${code}: failed, open '/x'`) => Object.assign(new Error(message), { code });

/** Root bypasses directory permissions, so a permission test proves nothing there. */
const RUNNING_AS_ROOT = process.getuid?.() === 0;
const execFileAsync = promisify(execFile);

describe('describeFsCause', () => {
  it('names the file that stands where a directory should be', () => {
    expect(describeFsCause(path.join(file, 'archive', 'x.json'), errno('ENOTDIR'))).toBe(
      `${file} is a file, not a directory (ENOTDIR)`,
    );
    expect(describeFsCause(file, errno('EEXIST'))).toBe(`${file} is a file, not a directory (EEXIST)`);
  });

  it('ENOENT names the first part of the path that is missing: the file, or the directory it was to go in', () => {
    expect(describeFsCause(path.join(dir, 'x.json'), errno('ENOENT'))).toBe(
      `${path.join(dir, 'x.json')} does not exist (ENOENT)`,
    );
    expect(describeFsCause(path.join(dir, 'new', 'sub', 'x.json'), errno('ENOENT'))).toBe(
      `${path.join(dir, 'new')} does not exist (ENOENT)`,
    );
  });

  it.each([
    ['ENOSPC', 'no space left on the device (ENOSPC)'],
    ['EROFS', 'the file system is read-only (EROFS)'],
    ['EDQUOT', 'the disk quota is used up (EDQUOT)'],
    ['EPERM', 'operation not permitted (EPERM)'],
    ['EMFILE', 'too many open files (EMFILE)'],
  ])('%s in words', (code, words) => {
    expect(describeFsCause(path.join(dir, 'x'), errno(code))).toBe(words);
  });

  it('permission denied: on a read, and on a write in a directory this user can write (an ACL, a LSM)', () => {
    expect(describeFsCause(path.join(dir, 'x'), errno('EACCES'), 'read')).toBe(
      'permission denied (no read permission) (EACCES)',
    );
    // `dir` is this user's own (mkdtemp, 0700), so it is writable as root and as anyone else: no blame on it.
    expect(describeFsCause(path.join(dir, 'x'), errno('EACCES'))).toBe('permission denied (EACCES)');
  });

  it("an unknown code keeps Node's words without the code and path around them", () => {
    expect(describeFsCause('/x', errno('EWEIRD', "EWEIRD: something odd, open '/x'"))).toBe('something odd (EWEIRD)');
    expect(describeFsCause('/x', new Error('plain'))).toBe('plain');
  });

  it('fsFailure keeps errors that are already precise', () => {
    const conflict = new StateConflictError('a', 'b');
    expect(fsFailure('write', '/x', conflict)).toBe(conflict);
    const wrapped = fsFailure('write', '/x', errno('ENOSPC'));
    expect(wrapped).toBeInstanceOf(FsStoreError);
    expect(wrapped).toMatchObject({ path: '/x', errno: 'ENOSPC', code: 'FS_STORE_ERROR' });
    expect(wrapped.message).toBe('cannot write /x: no space left on the device (ENOSPC)');
  });
});

describe('the stores under a file', () => {
  const BLOCKED = () => `${file} is a file, not a directory (ENOTDIR)`;

  it('archive: a write says which directory it could not create and why; a read finds nothing', async () => {
    const store = new FsArchiveStore(path.join(file, 'archive'));
    const where = path.join(file, 'archive', 'usage', '2026-11');
    for (const ifAbsent of [false, true]) {
      await expect(store.put('usage/2026-11/a.json', '{}', { ifAbsent })).rejects.toThrow(
        `cannot create the archive directory ${where}: ${BLOCKED()}`,
      );
    }
    await expect(store.putPieces('usage/2026-11/b.json', ['{}'])).rejects.toThrow(BLOCKED());
    expect(await store.get('usage/2026-11/a.json')).toBeNull();
  });

  it('state: read, write, lease and unlock each name the path and the cause', async () => {
    const stateDir = path.join(file, 'state');
    const store = new FsStateStore(stateDir);
    await expect(store.read()).rejects.toThrow(`cannot read ${path.join(stateDir, 'state.json')}: ${BLOCKED()}`);
    await expect(store.write(emptyState('x'), null)).rejects.toThrow(
      `cannot create the state directory ${stateDir}: ${BLOCKED()}`,
    );
    await expect(store.acquireLease({ owner: 'me', runId: 'r1', ttlMs: 1000 })).rejects.toThrow(
      `cannot create the state directory ${stateDir}: ${BLOCKED()}`,
    );
    await expect(store.forceReleaseLease('r1')).rejects.toThrow(
      `cannot create the lock file ${path.join(stateDir, 'lease.json.lock')}: ${BLOCKED()}`,
    );
  });

  it('fingerprint key: says it cannot create the state directory, not that it cannot read the key', async () => {
    const stateDir = path.join(file, 'state');
    const error = await loadFingerprintKey(stateDir, {}).catch((e: unknown) => e);
    // Coded as the state stores code a directory they cannot create, not as a key problem.
    expect(error).toBeInstanceOf(FsStoreError);
    expect(error).not.toBeInstanceOf(FingerprintKeyError);
    expect(error).toMatchObject({ code: 'FS_STORE_ERROR', path: stateDir, errno: 'ENOTDIR' });
    expect((error as Error).message).toBe(`cannot create the state directory ${stateDir}: ${BLOCKED()}`);
  });
});

// Node's recursive mkdir never settles under /proc: every store creating a directory there used to hang its command.
describe.skipIf(process.platform !== 'linux')('the stores under /proc fail at once instead of hanging', () => {
  const dir = '/proc/self/opsman-gitops-test/state';
  it.each([
    ['state', () => new FsStateStore(dir).write(emptyState('x'), null)],
    ['lease', () => new FsStateStore(dir).acquireLease({ owner: 'me', runId: 'r1', ttlMs: 1000 })],
    ['archive', () => new FsArchiveStore(dir).put('usage/2026-11/a.json', '{}')],
    ['fingerprint key', () => loadFingerprintKey(dir, {})],
    ['writable check', () => ensureWritableDirectory(dir, 'the archive directory')],
  ])('%s', async (_name, act) => {
    const outcome = await Promise.race([
      act().then(
        () => 'resolved',
        (error: unknown) => error,
      ),
      new Promise((resolve) => setTimeout(() => resolve('still pending after 3 s'), 3_000).unref()),
    ]);
    expect(outcome).toBeInstanceOf(FsStoreError);
  });
});

describe('ensureWritableDirectory', () => {
  it('checks a missing directory and leaves nothing behind, not even the directories it created', async () => {
    await ensureWritableDirectory(path.join(dir, 'new', 'archive'), 'the archive directory');
    expect((await readdir(dir)).sort()).toEqual(['a-file']);
  });

  it('leaves an existing directory and its files as they were', async () => {
    const target = path.join(dir, 'archive');
    await mkdir(target);
    await writeFile(path.join(target, 'kept.json'), '{}');
    await ensureWritableDirectory(target, 'the archive directory');
    expect(await readdir(target)).toEqual(['kept.json']);
  });

  it('refuses a path under a file, and a file in place of the directory', async () => {
    await expect(ensureWritableDirectory(path.join(file, 'archive'), 'the archive directory')).rejects.toThrow(
      `cannot create the archive directory ${path.join(file, 'archive')}: ${file} is a file, not a directory (ENOTDIR)`,
    );
    await expect(ensureWritableDirectory(file, 'the archive directory')).rejects.toThrow(
      `cannot create the archive directory ${file}: ${file} is a file, not a directory (EEXIST)`,
    );
  });

  // Root writes into a 0555 directory, so as root the check runs in a child process as `nobody`.
  it('refuses a directory without write permission, naming it', async (ctx) => {
    const readOnly = path.join(dir, 'read-only');
    await mkdir(readOnly);
    await chmod(readOnly, 0o555);
    await chmod(dir, 0o711); // `nobody` must reach read-only/ through the test's own directory
    const first = await writableCheckAsNonRoot(readOnly);
    if (first === null) return ctx.skip('running as root, and user nobody cannot read this repository');
    expect(first).toBe(
      `cannot write in the archive directory ${readOnly}: permission denied: ${readOnly} is not writable by this user (EACCES)`,
    );
    expect(await writableCheckAsNonRoot(path.join(readOnly, 'sub'))).toBe(
      `cannot create the archive directory ${path.join(readOnly, 'sub')}: permission denied: ${readOnly} is not writable by this user (EACCES)`,
    );
  });
});

/** The module under test, as a file URL a child process can import. */
const WRITABLE_DIR_MODULE = new URL('../../../lambdas/adapters/local/writable-dir.ts', import.meta.url).href;
/** The repository root, where `--import tsx` is found. */
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The message ensureWritableDirectory(target) rejects with ('ok' when it passes), for a user who is not root: this
 * process when it is not root, else a child process running as `nobody` (uid 65534), since root writes anywhere;
 * null when that child cannot read the repository.
 */
async function writableCheckAsNonRoot(target: string): Promise<string | null> {
  if (!RUNNING_AS_ROOT) {
    return ensureWritableDirectory(target, 'the archive directory').then(
      () => 'ok',
      (error: unknown) => (error as Error).message,
    );
  }
  const script = `import(${JSON.stringify(WRITABLE_DIR_MODULE)}).then((m) => m.ensureWritableDirectory(process.argv[1], 'the archive directory')).then(() => 'ok', (e) => e.message).then((text) => process.stdout.write(text));`;
  const asNobody = { uid: 65534, gid: 65534, cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '' } };
  // Can `nobody` read the module and tsx at all? Not when the repository is under /root: no one to check as.
  const readable = `require('node:fs').accessSync(${JSON.stringify(fileURLToPath(WRITABLE_DIR_MODULE))}); require.resolve('tsx');`;
  const canRead = await execFileAsync(process.execPath, ['-e', readable], asNobody).then(
    () => true,
    () => false,
  );
  if (!canRead) return null;
  const { stdout } = await execFileAsync(process.execPath, ['--import', 'tsx', '-e', script, target], asNobody);
  return stdout;
}
