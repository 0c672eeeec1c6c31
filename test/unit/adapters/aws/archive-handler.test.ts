// Scenario: how the archive handler answers a run that failed for good. A scheduled run that failed on an error a retry
// can pass is rethrown (Lambda retries it the same day); one that failed on an error a retry meets again is answered,
// as is every manual run (the person who invoked it reads the answer). A refused event counts as EventRejected.
import type { Context } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import type { RunReport } from '../../../../lambdas/core/model.ts';
import { createArchiveHandler } from '../../../../lambdas/handlers/archive.ts';
import { createLogger } from '../../../../lambdas/handlers/logging.ts';
import { createMetrics } from '../../../../lambdas/handlers/metrics.ts';
import { ApiCallCounter, type Runtime } from '../../../../lambdas/handlers/runtime.ts';
import { captureProcessOutput } from '../../../helpers/process-output.ts';
import { schedulerEvent } from '../../../helpers/scheduler-event.ts';

const SCHEDULE = schedulerEvent('opsman-gitops-archive');

const context = { functionName: 'opsman-gitops-archive', awsRequestId: 'req-1' } as unknown as Context;

/** An archive handler whose core run throws `error`; the metrics it sent, by name. */
function handlerFailingWith(error: Error) {
  const runtime = {
    calls: new ApiCallCounter(),
    config: { leaseWaitMs: 0, opsManagerBaseUrl: 'https://opsman.example.com', desiredSnapshot: 'optional' },
    beginRun() {},
    async api() {
      return { api: {}, fingerprintKey: new Uint8Array(32), publicKey: 'pub' };
    },
    async reloadCredentials() {
      return false;
    },
  };
  const metrics = createMetrics();
  const sent: string[] = [];
  vi.spyOn(metrics, 'addMetric').mockImplementation((name) => {
    sent.push(name);
    return metrics;
  });
  vi.spyOn(metrics, 'publishStoredMetrics').mockImplementation(() => metrics);
  const app = { logger: createLogger({ serviceName: 'test' }), metrics, runtime: runtime as unknown as Runtime };
  const run = async (): Promise<RunReport> => {
    throw error;
  };
  return { handler: createArchiveHandler(app, run), sent };
}

const retryable = () => Object.assign(new Error('PutObject failed (503)'), { code: 'S3_ACCESS' });
const final = () => Object.assign(new Error('GetObject failed (403)'), { code: 'S3_ACCESS_DENIED' });

describe('the archive handler over a run that failed for good', () => {
  it('a scheduled run failed on a retryable error is rethrown', async () => {
    const { handler } = handlerFailingWith(retryable());
    await captureProcessOutput(async () => {
      await expect(handler(SCHEDULE, context)).rejects.toThrow(/^S3_ACCESS: PutObject failed \(503\)/);
    });
  });

  it('a manual run failed on a retryable error is answered, not rethrown', async () => {
    const { handler } = handlerFailingWith(retryable());
    const { result } = await captureProcessOutput(() => handler({}, context));
    expect(result).toMatchObject({
      status: 'failed',
      trigger: 'manual',
      error: { code: 'S3_ACCESS', retryable: true },
    });
  });

  it('a scheduled run failed on an error a retry meets again is answered, not rethrown', async () => {
    const { handler } = handlerFailingWith(final());
    const { result } = await captureProcessOutput(() => handler(SCHEDULE, context));
    expect(result).toMatchObject({ status: 'failed', trigger: 'schedule', error: { retryable: false } });
  });

  it('a refused event is EventRejected, with no run', async () => {
    const { handler, sent } = handlerFailingWith(retryable());
    const { result, text } = await captureProcessOutput(() => handler({ mode: 'apply' }, context));
    expect(result).toMatchObject({ status: 'rejected' });
    expect(sent).toContain('EventRejected');
    expect(sent).not.toContain('RunFailed');
    // The next step is the archive function's: {} or a schedule, never the reconcile function's options.
    const line = text
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { message?: string; nextStep?: string })
      .find((l) => l.message === 'event rejected');
    expect(line?.nextStep).toMatch(/or \{\} for a manual run: it takes no options$/);
    expect(line?.nextStep).not.toMatch(/dryRun|ignoreWindows|"mode"/);
  });
});
