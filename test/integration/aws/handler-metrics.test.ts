// Scenario: the metrics the stack's alarms watch, as the reconcile handler publishes them (EMF lines on stdout): a
// refused event is EventRejected, a run that fails for good is RunFailed, and a run skipped because another holds the
// lease is neither (the RunFailed alarm must not fire on every overlap of the schedule and an upload), nor is a run
// stopped by a torn upload (DesiredStateInTransit instead).
import { describe, expect, it, vi } from 'vitest';
import { WORLD } from '../../helpers/aws-world.ts';
import { holdLeaseAsAnotherRun, useHandlerWorld } from '../../helpers/handler-world.ts';

/** Runs `fn` and returns the metric values of the EMF documents it printed, by name (summed). */
async function emfOf(fn: () => Promise<unknown>): Promise<Map<string, number>> {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  });
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  const seen = new Map<string, number>();
  for (const line of lines.join('').split('\n')) {
    if (!line.includes('"_aws"')) continue;
    const doc = JSON.parse(line) as { _aws: { CloudWatchMetrics: { Metrics: { Name: string }[] }[] } } & Record<
      string,
      unknown
    >;
    for (const { Name } of doc._aws.CloudWatchMetrics.flatMap((m) => m.Metrics)) {
      seen.set(Name, (seen.get(Name) ?? 0) + Number(doc[Name]));
    }
  }
  return seen;
}

describe('the alarms’ metrics from the reconcile handler', { timeout: 60_000 }, () => {
  const h = useHandlerWorld({ resetEach: true });
  const reconcile = (event: unknown) => h.reconcile(event, h.ctx());

  it('a malformed event: EventRejected, no run', async () => {
    let status = '';
    const seen = await emfOf(async () => {
      status = (await reconcile({ mode: 'aply' })).status;
    });
    expect(status).toBe('rejected');
    expect(seen.get('EventRejected')).toBe(1);
    expect(seen.has('RunFailed')).toBe(false);
  });

  it('a run that fails for good (a state from a newer version): RunFailed, no LastSuccess', async () => {
    h.world.s3.putDirect(WORLD.dataBucket, 'state/state.json', JSON.stringify({ formatVersion: 2, projects: {} }));
    let status = '';
    const seen = await emfOf(async () => {
      status = (await reconcile({ mode: 'apply' })).status;
    });
    expect(status).toBe('failed');
    expect(seen.get('RunFailed')).toBe(1);
    expect(seen.has('LastSuccess')).toBe(false);
    expect(seen.has('EventRejected')).toBe(false);
  });

  it('a lease held by a run in progress: skipped, neither RunFailed nor LastSuccess', async () => {
    holdLeaseAsAnotherRun(h.world);
    let status = '';
    const seen = await emfOf(async () => {
      status = (await reconcile({ mode: 'apply' })).status;
    });
    expect(status).toBe('skipped');
    expect(seen.has('RunFailed')).toBe(false);
    expect(seen.has('LastSuccess')).toBe(false);
  });

  it('a torn upload: DesiredStateInTransit, neither RunFailed nor LastSuccess', async () => {
    // A manifest of another upload (listing none of these files): every run an upload's first files start meets one,
    // so RunFailed would alarm on every upload; a torn state that persists fails the scheduled runs, which rethrow.
    const key = 'desired-state/.opsman-gitops-snapshot.json';
    h.world.s3.putDirect(WORLD.desiredBucket, key, '{"formatVersion":1,"files":[]}\n');
    let summary: { status: string; error?: unknown } = { status: '' };
    try {
      const seen = await emfOf(async () => {
        summary = await reconcile({ mode: 'apply' });
      });
      expect(summary).toMatchObject({ status: 'failed', error: { code: 'DESIRED_STATE_IN_TRANSIT', retryable: true } });
      expect(seen.get('DesiredStateInTransit')).toBe(1);
      expect(seen.has('RunFailed')).toBe(false);
      expect(seen.has('LastSuccess')).toBe(false);
    } finally {
      h.world.s3.buckets.get(WORLD.desiredBucket)?.delete(key);
    }
  });

  it('a run that completes: LastSuccess 1, no RunFailed', async () => {
    const seen = await emfOf(() => reconcile({ mode: 'plan' }));
    expect(seen.get('LastSuccess')).toBe(1);
    expect(seen.has('RunFailed')).toBe(false);
  });
});
