// Scenario: the reconcile Lambda (real handler, loopback S3 and Secrets Manager, the emulator over Digest) runs an
// apply while a deny window of Settings.changeWindows is open for payments-prod: nothing is written there, the other
// projects are applied, and the log has one INFO `writes held by change window` line naming the target, the window and
// when it ends; the summary counts the held target.
import { describe, expect, it } from 'vitest';
import { W } from '../../helpers/emulator-client.ts';
import { useHandlerWorld } from '../../helpers/handler-world.ts';
import { addLongFreeze, LONG_FREEZE_HOLD } from '../../helpers/long-freeze.ts';
import { captureProcessOutput, jsonLogLines } from '../../helpers/process-output.ts';

// The production level (the stack sets INFO): the lines an operator gets.
process.env.TEST_LOG_LEVEL = 'INFO';

async function requests(origin: string): Promise<{ method: string; path: string }[]> {
  const res = await fetch(`${origin}/__emulator/requests`);
  return ((await res.json()) as { entries: { method: string; path: string }[] }).entries;
}

describe('change windows in the Lambda', { timeout: 60_000 }, () => {
  const h = useHandlerWorld({
    prepare: addLongFreeze,
  });

  it('holds the frozen project, applies the others, and logs the hold with its window and end', async () => {
    let summary: Record<string, unknown> = {};
    const { text } = await captureProcessOutput(async () => {
      summary = await h.reconcile({ mode: 'apply' }, h.ctx());
    });
    expect(summary.status, JSON.stringify(summary)).toBe('ok');
    expect(summary.heldByWindows).toBe(1);
    expect(summary.applied).toBeGreaterThan(0);
    const writes = (await requests(h.world.emulator.origin)).filter((r) => r.method !== 'GET');
    expect(writes.length).toBeGreaterThan(0);
    expect(writes.filter((r) => r.path.includes(W.paymentsProd))).toEqual([]);
    const lines = jsonLogLines(text).filter((l) => l.message === 'writes held by change window');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'INFO',
      target: { type: 'project', id: W.paymentsProd, name: 'payments-prod' },
      windows: ['long-freeze'],
      kind: 'deny',
      until: '2099-01-01T00:00:00.000Z',
      hold: LONG_FREEZE_HOLD,
    });
    expect(lines[0]?.writes).toBeGreaterThan(0);
    // A freeze is wanted, not an alarm: the run is a success for NoSuccessfulRun, and no failure metric counts it.
    const metrics = new Map<string, number>();
    for (const doc of jsonLogLines(text, { emf: true })) {
      const aws = doc._aws as { CloudWatchMetrics: { Metrics: { Name: string }[] }[] };
      for (const { Name } of aws.CloudWatchMetrics.flatMap((m) => m.Metrics)) metrics.set(Name, Number(doc[Name]));
    }
    expect(metrics.get('LastSuccess')).toBe(1);
    expect(metrics.get('TargetsFailed')).toBe(0);
    expect(metrics.get('RunFailed')).toBeUndefined();
  });
});
