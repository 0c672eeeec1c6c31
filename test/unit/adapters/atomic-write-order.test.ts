// Scenario: the durability steps of the local stores' atomic writes, in order: the temp file is fsynced before it is
// renamed (or linked) into place, and the directory is fsynced after. A power cut otherwise can leave state.json or
// lease.json empty (the rename reached the disk before the data), which no test of a running process would notice:
// the file-system calls are recorded here instead.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FsArchiveStore } from '../../../lambdas/adapters/local/archive-fs.ts';
import { FsStateStore } from '../../../lambdas/adapters/local/state-fs.ts';
import { emptyState } from '../../../lambdas/core/state.ts';

const calls = vi.hoisted(() => ({ events: [] as string[], fdPaths: new Map<number, string>() }));

/** The name shown for a path: temp files as `temp`, the test directory as `dir`. */
function shown(path: string): string {
  const name = basename(path);
  if (name.endsWith('.tmp')) return 'temp';
  return name.startsWith('local-write-order-') ? 'dir' : name;
}

vi.mock('node:fs/promises', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:fs/promises')>();
  const open: typeof original.open = async (...args: Parameters<typeof original.open>) => {
    const handle = await original.open(...args);
    const sync = handle.sync.bind(handle);
    const path = String(args[0]);
    handle.sync = async () => {
      calls.events.push(`fsync ${shown(path)}`);
      return sync();
    };
    return handle;
  };
  return { ...original, default: { ...original, open }, open };
});

vi.mock('node:fs', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:fs')>();
  type Callback = (error: NodeJS.ErrnoException | null, ...rest: unknown[]) => void;
  const open = (path: string, ...rest: unknown[]) => {
    const callback = rest.pop() as Callback;
    (original.open as (...a: unknown[]) => void)(path, ...rest, (error: NodeJS.ErrnoException | null, fd: number) => {
      if (!error) calls.fdPaths.set(fd, path);
      callback(error, fd);
    });
  };
  const fsync = (fd: number, callback: Callback) => {
    calls.events.push(`fsync ${shown(calls.fdPaths.get(fd) ?? '?')}`);
    original.fsync(fd, callback);
  };
  const rename = (from: string, to: string, callback: Callback) => {
    calls.events.push(`rename ${shown(from)} -> ${shown(to)}`);
    original.rename(from, to, callback);
  };
  const link = (from: string, to: string, callback: Callback) => {
    calls.events.push(`link ${shown(from)} -> ${shown(to)}`);
    original.link(from, to, callback);
  };
  const replaced = { open, fsync, rename, link };
  return { ...original, ...replaced, default: { ...original, ...replaced } };
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'local-write-order-'));
  calls.events.length = 0;
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The recorded calls from the first fsync of a temp file on. */
const fromTempSync = () => calls.events.slice(calls.events.indexOf('fsync temp'));

describe('atomic writes reach the disk in order', () => {
  it('state.json: temp fsynced, renamed over state.json, directory fsynced', async () => {
    await new FsStateStore(dir).write(emptyState('2026-01-01T00:00:00Z'), null);
    expect(fromTempSync()).toEqual(['fsync temp', 'rename temp -> state.json', 'fsync dir']);
  });

  it('lease.json, new: temp fsynced, linked as lease.json, directory fsynced', async () => {
    await new FsStateStore(dir).acquireLease({ owner: 'o', runId: 'r', ttlMs: 60_000 });
    expect(fromTempSync()).toEqual(['fsync temp', 'link temp -> lease.json', 'fsync dir']);
  });

  it('lease.json, renewed: temp fsynced, renamed over lease.json, directory fsynced', async () => {
    const store = new FsStateStore(dir);
    const lease = await store.acquireLease({ owner: 'o', runId: 'r', ttlMs: 60_000 });
    calls.events.length = 0;
    await store.renewLease(lease, 60_000);
    expect(fromTempSync()).toEqual(['fsync temp', 'rename temp -> lease.json', 'fsync dir']);
  });

  it('an archive object, chunked (putPieces) and ifAbsent: fsynced before it gets its name, directory after', async () => {
    const archive = new FsArchiveStore(dir);
    await archive.putPieces('a.json', ['{', '}']);
    expect(fromTempSync()).toEqual(['fsync temp', 'rename temp -> a.json', 'fsync dir']);
    calls.events.length = 0;
    await archive.put('b.json', '{}', { ifAbsent: true });
    expect(fromTempSync()).toEqual(['fsync temp', 'link temp -> b.json', 'fsync dir']);
  });
});
