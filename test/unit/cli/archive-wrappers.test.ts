// Scenario: the CLI's archive store is the local directory behind two wrappers (RecordingArchiveStore, then
// StoppableArchiveStore for `archive`); a run report written through them is still streamed (putPieces), not encoded
// whole and written with one put, and is still recorded and still written after an interrupt.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FsArchiveStore } from '../../../lambdas/adapters/local/archive-fs.ts';
import { StoppableArchiveStore } from '../../../lambdas/cli/archive-interrupt.ts';
import { RecordingArchiveStore } from '../../../lambdas/cli/runtime.ts';
import { PLAN_FORMAT_VERSION, type RunReport } from '../../../lambdas/core/model.ts';
import { reportBytes, writeReport } from '../../../lambdas/core/report.ts';

const REPORT: RunReport = {
  formatVersion: PLAN_FORMAT_VERSION,
  runId: 'run-1',
  startedAt: '2026-03-01T10:00:00.000Z',
  finishedAt: '2026-03-01T10:00:01.000Z',
  mode: 'apply',
  plan: {
    formatVersion: PLAN_FORMAT_VERSION,
    runId: 'run-1',
    createdAt: '2026-03-01T10:00:00.000Z',
    mode: 'apply',
    desired: { digest: 'd', files: [] },
    liveDigests: {},
    changes: [],
    failures: [],
  },
  results: [],
  failures: [],
  summary: {
    planned: {
      blocked: 0,
      drift: 0,
      adopt: 0,
      create: 0,
      update: 0,
      enable: 0,
      disable: 0,
      delete: 0,
      release: 0,
      noop: 0,
    },
    applied: 0,
    failed: 0,
    drift: 0,
    blocked: 0,
    targetsFailed: 0,
  },
  apiCalls: { total: 0, byEndpoint: {} },
  durationsMs: { total: 1 },
};

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'archive-wrappers-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the CLI archive wrappers and putPieces', () => {
  it('a run report written through both wrappers is streamed by the inner store, recorded, and written after a stop', async () => {
    const inner = new FsArchiveStore(dir);
    const put = vi.spyOn(inner, 'put');
    const putPieces = vi.spyOn(inner, 'putPieces');
    const recording = new RecordingArchiveStore(inner);
    const stop = new AbortController();
    const store = new StoppableArchiveStore(recording, stop.signal);
    stop.abort('Ctrl-C (SIGINT)');

    const location = await writeReport(store, REPORT);

    expect(putPieces).toHaveBeenCalledTimes(1);
    expect(put).not.toHaveBeenCalled();
    expect(location).toBe(join(dir, 'reports', '2026-03-01', 'run-1.json'));
    expect(await readFile(location, 'utf8')).toBe(new TextDecoder().decode(reportBytes(REPORT)));
    expect(recording.reportLocation('run-1')).toBe(location);
  });

  it('after a stop, a streamed write other than a report is refused as put is', async () => {
    const store = new StoppableArchiveStore(new FsArchiveStore(dir), AbortSignal.abort('Ctrl-C (SIGINT)'));
    await expect(store.putPieces?.('usage/2026-11/a.json', ['{}'])).rejects.toThrow(
      'usage/2026-11/a.json: not written: the archive was stopped before this write started',
    );
  });

  it('neither wrapper offers putPieces over a store without it (callers then use put)', () => {
    const plain = { describe: () => 'memory', put: vi.fn(), get: async () => null };
    const recording = new RecordingArchiveStore(plain);
    expect(recording.putPieces).toBeUndefined();
    expect(new StoppableArchiveStore(recording, new AbortController().signal).putPieces).toBeUndefined();
  });
});
