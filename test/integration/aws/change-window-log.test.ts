// Scenario: the reconcile Lambda (real handler, loopback S3 and Secrets Manager, the emulator over Digest) runs an
// apply while a deny window of Settings.changeWindows is open for payments-prod: nothing is written there, the other
// projects are applied, and the log has one INFO `writes held by change window` line naming the target, the window and
// when it ends; the summary counts the held target.
import { describe, expect, it } from 'vitest';
import { WORLD } from '../../helpers/aws-world.ts';
import { W } from '../../helpers/emulator-client.ts';
import { useHandlerWorld } from '../../helpers/handler-world.ts';
import { captureProcessOutput } from '../../helpers/process-output.ts';

// The production level (the stack sets INFO): the lines an operator gets.
process.env.TEST_LOG_LEVEL = 'INFO';

const SETTINGS = 'desired-state/settings.yaml';
// Open whatever the real clock says when the test runs (the handler reads the system clock).
const FREEZE =
  '  changeWindows:\n' +
  '    - name: long-freeze\n' +
  '      kind: deny\n' +
  '      from: 2020-01-01T00:00:00Z\n' +
  '      until: 2099-01-01T00:00:00Z\n' +
  `      projects: [${W.paymentsProd}]\n`;

type Line = Record<string, unknown> & { level: string; message: string };

async function requests(origin: string): Promise<{ method: string; path: string }[]> {
  const res = await fetch(`${origin}/__emulator/requests`);
  return ((await res.json()) as { entries: { method: string; path: string }[] }).entries;
}

describe('change windows in the Lambda', { timeout: 60_000 }, () => {
  const h = useHandlerWorld({
    prepare: (world) => {
      const settings = world.s3.getText(WORLD.desiredBucket, SETTINGS);
      expect(settings).toContain('kind: Settings');
      world.s3.putDirect(WORLD.desiredBucket, SETTINGS, `${settings}${FREEZE}`);
    },
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
    const lines = text
      .split('\n')
      .filter((raw) => raw.startsWith('{'))
      .map((raw) => JSON.parse(raw) as Line)
      .filter((l) => l.message === 'writes held by change window');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'INFO',
      target: { type: 'project', id: W.paymentsProd, name: 'payments-prod' },
      windows: ['long-freeze'],
      kind: 'deny',
      until: '2099-01-01T00:00:00.000Z',
      hold: 'held by change window long-freeze (deny) until 2099-01-01T00:00:00.000Z',
    });
    expect(lines[0]?.writes).toBeGreaterThan(0);
    // A freeze is wanted, not an alarm: the run is a success for NoSuccessfulRun, and no failure metric counts it.
    const metrics = new Map<string, number>();
    for (const raw of text.split('\n').filter((l) => l.startsWith('{'))) {
      const doc = JSON.parse(raw) as Record<string, unknown>;
      if (!('_aws' in doc)) continue;
      const aws = doc._aws as { CloudWatchMetrics: { Metrics: { Name: string }[] }[] };
      for (const { Name } of aws.CloudWatchMetrics.flatMap((m) => m.Metrics)) metrics.set(Name, Number(doc[Name]));
    }
    expect(metrics.get('LastSuccess')).toBe(1);
    expect(metrics.get('TargetsFailed')).toBe(0);
    expect(metrics.get('RunFailed')).toBeUndefined();
  });
});
