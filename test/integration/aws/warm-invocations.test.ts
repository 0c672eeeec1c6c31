// Scenario: one warm container serves many invocations (schedule applies and manual plans, as in production): what
// each run opens (sockets, timers, listeners) is closed by the next, and memory stays flat; nothing warns.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { emulatorAdmin, WORLD } from '../../helpers/aws-world.ts';
import { useHandlerWorld } from '../../helpers/handler-world.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const SCHEDULE = {
  version: '0',
  id: 'a1b2c3d4-0000-4000-8000-000000000001',
  'detail-type': 'Scheduled Event',
  source: 'aws.scheduler',
  account: '123456789012',
  time: '2026-03-01T00:00:00Z',
  region: 'eu-west-1',
  resources: [],
  detail: {},
};

describe('a warm container over many invocations', { timeout: 120_000 }, () => {
  const h = useHandlerWorld({ mode: 'apply' });

  /** Active sockets and timers, and the heap after a full collection. */
  async function measure() {
    // What the loopback world itself keeps per run (run reports in S3, the emulator's request log) is not the Lambda's.
    const data = h.world.s3.buckets.get(WORLD.dataBucket);
    for (const key of [...(data?.keys() ?? [])]) if (key.startsWith('archive/')) data?.delete(key);
    await emulatorAdmin(h.world.emulator.origin, 'DELETE', 'requests');
    const resources = process.getActiveResourcesInfo();
    gc();
    return {
      sockets: resources.filter((r) => r === 'TCPSocketWrap').length,
      timers: resources.filter((r) => r === 'Timeout').length,
      heap: process.memoryUsage().heapUsed,
    };
  }

  it('keeps sockets, timers and heap bounded over 60 runs, with no warning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    try {
      const statuses = new Map<string, number>();
      const run = async (i: number) => {
        const summary = await h.reconcile(i % 2 === 0 ? SCHEDULE : { mode: 'plan' }, h.ctx());
        statuses.set(summary.status, (statuses.get(summary.status) ?? 0) + 1);
      };
      for (let i = 0; i < 10; i++) await run(i);
      const warm = await measure();
      for (let i = 10; i < 60; i++) await run(i);
      const after = await measure();
      expect(Object.fromEntries(statuses)).toEqual({ ok: 60 });
      expect(after.sockets).toBeLessThanOrEqual(warm.sockets + 4);
      expect(after.timers).toBeLessThanOrEqual(warm.timers + 2);
      // 50 runs: a leak of 100 KB per run (a kept report, a client per run) would show as 5 MB.
      expect(after.heap - warm.heap).toBeLessThan(4 * 1024 * 1024);
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
