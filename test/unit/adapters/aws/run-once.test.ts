// Scenario: what one handler run sets up around the core run, in a warm container: the idle AWS connections kept from
// earlier runs are dropped first, the API call counts start from zero (a run's apiCalls and the writes that decide a
// credential retry are its own, not the container's), the time-limit timer is cleared when the run ends, and the run's
// id does not stay on the logger's later lines.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RunReport } from '../../../../lambdas/core/model.ts';
import type { RunDependencies, RunRequest } from '../../../../lambdas/core/run-types.ts';
import { createLogger } from '../../../../lambdas/handlers/logging.ts';
import { createMetrics } from '../../../../lambdas/handlers/metrics.ts';
import { runOnce } from '../../../../lambdas/handlers/run-once.ts';
import { ApiCallCounter, type Runtime } from '../../../../lambdas/handlers/runtime.ts';
import { captureProcessOutput, jsonLogLines } from '../../../helpers/process-output.ts';

/** A report of a clean plan run with nothing to do; its apiCalls are what the run's counter said. */
function report(request: RunRequest, apiCalls: RunReport['apiCalls']): RunReport {
  const planned = { create: 0, update: 0, enable: 0, disable: 0, delete: 0, adopt: 0, noop: 0, blocked: 0, drift: 0 };
  return {
    runId: request.runId,
    mode: 'plan',
    command: 'plan',
    failures: [],
    results: [],
    warnings: [],
    apiCalls,
    plan: { desired: { digest: 'd', files: [] }, changes: [] },
    summary: { planned, applied: 0, failed: 0, drift: 0, blocked: 0, targetsFailed: 0 },
  } as unknown as RunReport;
}

/** A runtime with only what runOnce uses; `beginRun` counted, the call counter real. */
function fakeRuntime() {
  const runtime = {
    begun: 0,
    calls: new ApiCallCounter(),
    config: { leaseWaitMs: 0, opsManagerBaseUrl: 'https://opsman.example.com', desiredSnapshot: 'optional' },
    beginRun() {
      runtime.begun++;
    },
    async api() {
      return { api: {}, fingerprintKey: new Uint8Array(32), publicKey: 'pub' };
    },
    async reloadCredentials() {
      return false;
    },
  };
  return runtime;
}

/**
 * One runOnce of a fake core run that makes `calls` API calls, over `runtime`; `core` runs inside the core run (it may
 * report metrics or throw).
 */
async function runWith(
  runtime: ReturnType<typeof fakeRuntime>,
  calls: number,
  core: (deps: RunDependencies) => void = () => {},
  metrics = createMetrics(),
  request: Omit<RunRequest, 'runId' | 'owner' | 'leaseWaitMs'> = { command: 'plan', mode: 'plan' },
) {
  const logger = createLogger({ serviceName: 'test' });
  const run = async (request: RunRequest, deps: RunDependencies) => {
    for (let i = 0; i < calls; i++) runtime.calls.onRequest({ method: 'GET', pathTemplate: '/groups/{groupId}' });
    core(deps);
    return report(request, deps.apiCalls?.() ?? { total: -1, byEndpoint: {} });
  };
  const summary = await runOnce({
    runtime: runtime as unknown as Runtime,
    run,
    logger,
    metrics,
    context: { functionName: 'fn', awsRequestId: 'req-1', getRemainingTimeInMillis: () => 600_000 },
    trigger: 'manual',
    request,
  });
  return { summary, logger };
}

describe('one run of a handler in a warm container', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('drops the idle AWS connections before each run', async () => {
    const runtime = fakeRuntime();
    await captureProcessOutput(async () => {
      await runWith(runtime, 0);
      await runWith(runtime, 0);
    });
    expect(runtime.begun).toBe(2);
  });

  it("counts only the run's own API calls, not those of the runs before it", async () => {
    const runtime = fakeRuntime();
    let second: Awaited<ReturnType<typeof runWith>>['summary'] | undefined;
    await captureProcessOutput(async () => {
      await runWith(runtime, 5);
      second = (await runWith(runtime, 2)).summary;
    });
    expect(second?.apiCalls).toBe(2);
    expect(runtime.calls.writesSent).toBe(0);
  });

  it('clears the time-limit timer when the run ends: no abort pending after it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const runtime = fakeRuntime();
    await captureProcessOutput(() => runWith(runtime, 0));
    expect(vi.getTimerCount()).toBe(0);
  });

  it("leaves no run id on the logger's later lines", async () => {
    const runtime = fakeRuntime();
    const { text } = await captureProcessOutput(async () => {
      const { summary, logger } = await runWith(runtime, 0);
      logger.info('after the run', { ran: summary.runId });
    });
    const lines = jsonLogLines(text);
    expect(lines.find((l) => l.message === 'run starting')?.runId).toEqual(expect.any(String));
    const after = lines.find((l) => l.message === 'after the run');
    expect(after?.ran).toEqual(expect.any(String));
    expect(after?.runId).toBeUndefined();
    expect(after?.trigger).toBeUndefined();
  });

  it('says on its "run starting" line how many projects the event named, and the first 20 ids, not all of them', async () => {
    // A manual event may carry 200,000 ids (6 MB): every id on that line made it pass CloudWatch's 256 KB per event.
    const ids = Array.from({ length: 200_000 }, (_, i) => i.toString(16).padStart(24, '0'));
    const { text } = await captureProcessOutput(() =>
      runWith(fakeRuntime(), 0, () => {}, createMetrics(), { command: 'plan', mode: 'plan', projects: ids }),
    );
    const starting = jsonLogLines(text).filter((l) => l.message === 'run starting');
    expect(starting).toHaveLength(1);
    expect(starting[0]?.projects).toEqual({ count: 200_000, ids: ids.slice(0, 20) });
    expect(text.split('\n').every((line) => line.length < 16_000)).toBe(true);
    const all = await captureProcessOutput(() => runWith(fakeRuntime(), 0));
    expect(jsonLogLines(all.text).find((l) => l.message === 'run starting')).not.toHaveProperty('projects');
  });

  it('sends the metrics the core reported, and does not send them twice', async () => {
    const metrics = createMetrics();
    const sent: [string, number][] = [];
    vi.spyOn(metrics, 'addMetric').mockImplementation((name, _unit, value) => {
      sent.push([name, value]);
      return metrics;
    });
    await captureProcessOutput(() =>
      runWith(
        fakeRuntime(),
        0,
        (deps) => {
          deps.reporter.metric('ArchiveErrors', 2);
          deps.reporter.metric('ApiCalls', 42);
        },
        metrics,
      ),
    );
    expect(sent.filter(([name]) => name === 'ArchiveErrors')).toEqual([['ArchiveErrors', 2]]);
    expect(sent.filter(([name]) => name === 'ApiCalls')).toEqual([['ApiCalls', 42]]);
  });

  it('logs the stack of an unexpected error (INTERNAL), so a bug can be found', async () => {
    const { text } = await captureProcessOutput(() =>
      runWith(fakeRuntime(), 0, () => {
        throw new TypeError('cannot read properties of undefined');
      }),
    );
    const failed = jsonLogLines(text).find((l) => l.message === 'run failed');
    expect(failed).toMatchObject({ level: 'ERROR', code: 'INTERNAL', errorName: 'TypeError' });
    expect(String(failed?.stack)).toContain('TypeError: cannot read properties of undefined');
  });
});
