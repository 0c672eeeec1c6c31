// Scenario: the Lambda's runtime against an Ops Manager that never answers: the function's log gets one warning
// ("Ops Manager has not answered yet", with the method, the path with its ids and no query string, how long it waited
// and the deadline) while the requests are still waiting, not only the deadline's error at the end; several stalled
// requests at once make one warning.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFactory, Runtime } from '../../../lambdas/handlers/runtime.ts';
import { stallLog } from '../../../lambdas/handlers/stall-log.ts';
import { createOpsManagerClient } from '../../../lambdas/opsman/client.ts';
import {
  credentialsSecretConfig,
  type LoopbackSecretsManager,
  startCredentialsSecret,
} from '../../helpers/aws-secrets-server.ts';
import { type HungServer, startHungServer } from '../../helpers/hung-server.ts';

const PROJECT = '5e2211c17a3e5a48f5497de3';

describe('stall warnings in the Lambda log', { timeout: 30_000 }, () => {
  let hung: HungServer;
  let secrets: LoopbackSecretsManager;
  const saved = { ...process.env };

  beforeAll(async () => {
    hung = await startHungServer();
    // The runtime's own Secrets Manager client finds the loopback server through the SDK's environment.
    secrets = await startCredentialsSecret('gitopsbt', '7f3c2a9e-4b1d-4e8f-9a6c-1d2e3f4a5b6c');
  });
  afterAll(async () => {
    process.env = saved;
    await hung?.close();
    await secrets?.close();
  });

  it('logs one warning while three requests wait, then the requests fail at their deadline', async () => {
    const warnings: { message: string; extra: Record<string, unknown>[] }[] = [];
    const logger = {
      warn: (message: string, ...extra: Record<string, unknown>[]) => warnings.push({ message, extra }),
    };
    // The production factory's client, with a stall after 100 ms and a 1.5 s deadline instead of 15 s and 120 s.
    const factory: ApiFactory = (options) =>
      createOpsManagerClient({ ...options, stallAfterMs: 100, retry: { deadlineMs: 1_500, maxAttempts: 1 } });
    const config = credentialsSecretConfig(hung.baseUrl);
    const runtime = new Runtime(config, factory, { onStall: stallLog(logger, 60_000) });
    const { api } = await runtime.api();
    const reads = [
      api.listAlertConfigs(PROJECT),
      api.getProjectDefaultServerType(PROJECT),
      api.getAuditLogRotateConfig(PROJECT),
    ].map((p) =>
      p.then(
        () => 'answered',
        (error: unknown) => (error as Error).message,
      ),
    );
    const outcomes = await Promise.all(reads);
    for (const outcome of outcomes) expect(outcome).not.toBe('answered');
    expect(warnings).toHaveLength(1);
    const [warning] = warnings;
    expect(warning?.message).toBe('Ops Manager has not answered yet');
    const fields = warning?.extra[0] as {
      request: { method: string; path: string };
      waitedMs: number;
      deadlineMs: number;
    };
    expect(fields.request.method).toBe('GET');
    expect(fields.request.path).toMatch(new RegExp(`^/api/public/v1\\.0/.*${PROJECT}`));
    expect(fields.request.path).not.toContain('?');
    // Date.now() against the timer's monotonic clock: a millisecond either way.
    expect(fields.waitedMs).toBeGreaterThanOrEqual(90);
    expect(fields.waitedMs).toBeLessThan(1_500);
    expect(fields.deadlineMs).toBe(1_500);
    expect(JSON.stringify(warnings)).not.toContain('7f3c2a9e');
  });

  it('without a stall hook the runtime hands the client its call counter alone', () => {
    const seen: unknown[] = [];
    const factory: ApiFactory = (options) => {
      seen.push(options.observer);
      throw new Error('stop here');
    };
    const config = credentialsSecretConfig(hung.baseUrl);
    const runtime = new Runtime(config, factory);
    return runtime.api().then(
      () => expect.unreachable(),
      () => expect(seen).toEqual([runtime.calls]),
    );
  });
});
