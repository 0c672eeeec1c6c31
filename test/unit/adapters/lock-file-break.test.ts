// Scenario: breaking a stale lock file (lock-file.ts). A `.break` file a process killed while breaking left behind
// is itself removed once stale, so the lock can be taken again (not refused for good); and a lock file found stale
// but replaced by another process's fresh lock before this one breaks it is left alone (that process holds it), as is
// one that replaced this process's own lock while it worked.
import { mkdtemp, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { withLockFile } from '../../../lambdas/adapters/local/lock-file.ts';

const hook = vi.hoisted(() => ({ beforeBreak: undefined as (() => Promise<void>) | undefined }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:fs/promises')>();
  const open = async (...args: Parameters<typeof original.open>) => {
    if (String(args[0]).endsWith('.break')) await hook.beforeBreak?.();
    return original.open(...args);
  };
  return { ...original, default: { ...original, open }, open };
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lock-file-break-'));
  hook.beforeBreak = undefined;
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const OPTIONS = { staleLockMs: 1_000, lockWaitMs: 300 };
const longAgo = new Date(Date.now() - 60_000);

describe('breaking a stale lock file', () => {
  it('a stale .break file left by a killed process is removed: the lock is taken', async () => {
    const lock = join(dir, 'x.lock');
    await writeFile(lock, '');
    await writeFile(`${lock}.break`, '');
    await utimes(lock, longAgo, longAgo);
    await utimes(`${lock}.break`, longAgo, longAgo);
    await expect(withLockFile(lock, async () => 'ran', OPTIONS)).resolves.toBe('ran');
  });

  it("a stale lock replaced by another process's fresh one meanwhile is not removed: it waits, then says so", async () => {
    const lock = join(dir, 'x.lock');
    await writeFile(lock, '');
    await utimes(lock, longAgo, longAgo);
    let fresh: number | undefined;
    hook.beforeBreak = async () => {
      if (fresh !== undefined) return;
      // Another process broke the stale lock and took its own, between this one's look and its break.
      await rm(lock);
      await writeFile(lock, 'other');
      fresh = (await stat(lock)).mtimeMs;
    };
    const ran = vi.fn(async () => 'ran');
    await expect(withLockFile(lock, ran, OPTIONS)).rejects.toThrow(/is held by another process/);
    expect(ran).not.toHaveBeenCalled();
    expect((await stat(lock)).mtimeMs).toBe(fresh);
  });

  it("a holder whose lock was taken over meanwhile leaves the new holder's lock in place when it ends", async () => {
    const lock = join(dir, 'x.lock');
    let theirs: number | undefined;
    await withLockFile(
      lock,
      async () => {
        await rm(lock);
        await writeFile(lock, 'theirs');
        theirs = (await stat(lock)).ino;
      },
      OPTIONS,
    );
    expect((await stat(lock)).ino).toBe(theirs);
  });

  // A heartbeat left running would keep the next holder's lock fresh for good: a killed holder's never went stale.
  it('stops refreshing the lock file once released', async () => {
    const lock = join(dir, 'x.lock');
    await withLockFile(lock, async () => undefined, { staleLockMs: 30, lockWaitMs: 300 });
    await writeFile(lock, 'a killed process’s');
    await utimes(lock, longAgo, longAgo);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(Date.now() - (await stat(lock)).mtimeMs).toBeGreaterThan(30_000);
  });
});
