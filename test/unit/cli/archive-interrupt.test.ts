// Scenario: an archive interrupted by Ctrl-C starts no new write (a run report excepted: it records the interrupt),
// while reads go through; what was not archived is the report's list of incomplete parts.
import { describe, expect, it } from 'vitest';
import { StoppableArchiveStore } from '../../../lambdas/cli/archive-interrupt.ts';
import { notArchived } from '../../../lambdas/core/archive-run.ts';
import type { ArchiveStore } from '../../../lambdas/core/ports.ts';

/** A store that records the keys it was asked to write. */
function recordingStore(): ArchiveStore & { puts: string[] } {
  const puts: string[] = [];
  return {
    puts,
    describe: () => 'memory',
    put: async (key) => {
      puts.push(key);
      return { key, created: true, location: `memory:${key}` };
    },
    get: async () => null,
  };
}

describe('StoppableArchiveStore', () => {
  it('writes until the signal is aborted, then refuses every new write but the run report', async () => {
    const inner = recordingStore();
    const stop = new AbortController();
    const store = new StoppableArchiveStore(inner, stop.signal);
    await store.put('manifests/index.json', '[]');
    stop.abort('Ctrl-C (SIGINT)');
    await expect(store.put('usage/2026-11/host-assignments.json', '{}')).rejects.toThrow(
      'usage/2026-11/host-assignments.json: not written: the archive was stopped before this write started',
    );
    await store.put('reports/2026-11-26/r.json', '{}');
    expect(await store.get('manifests/latest.json')).toBeNull();
    expect(inner.puts).toEqual(['manifests/index.json', 'reports/2026-11-26/r.json']);
  });
});

describe('notArchived', () => {
  it('lists the parts the run named incomplete, none when it named none', () => {
    expect(notArchived(undefined)).toEqual([]);
    expect(notArchived({ errors: [] })).toEqual([]);
    const parts = ['version manifest', 'usage 2026-11: host assignments'];
    expect(notArchived({ errors: ['whatever the wording'], incomplete: parts })).toEqual(parts);
  });
});
