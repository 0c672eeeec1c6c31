// Scenario: a warm Lambda keeps its Ops Manager client between runs. A run that met a silent Ops Manager (a request
// used its whole deadline with nothing answered) leaves the client's silence verdict behind; the next run (Lambda's
// retry of the failed invocation a minute later, a manual invocation) must still ask Ops Manager, which has recovered
// meanwhile, instead of failing every request unsent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFactory, Runtime } from '../../../lambdas/handlers/runtime.ts';
import { createOpsManagerClient } from '../../../lambdas/opsman/client.ts';
import { OpsManagerTransportError } from '../../../lambdas/opsman/errors.ts';
import {
  credentialsSecretConfig,
  type LoopbackSecretsManager,
  startCredentialsSecret,
} from '../../helpers/aws-secrets-server.ts';
import { type DigestServer, startDigestServer } from '../../helpers/client-digest-server.ts';

const PRIVATE_KEY = '7f3c2a9e-4b1d-4e8f-9a6c-1d2e3f4a5b6c';

describe('the silence verdict between runs of a warm Lambda', { timeout: 30_000 }, () => {
  let server: DigestServer;
  let secrets: LoopbackSecretsManager;
  let hung = true;
  const saved = { ...process.env };

  beforeAll(async () => {
    // Answers its challenges, then never answers a signed request while `hung`.
    server = await startDigestServer({
      username: 'gitopsbt',
      password: PRIVATE_KEY,
      handler: () => (hung ? new Promise<never>(() => undefined) : { json: { id: 't1', name: 'team' } }),
    });
    secrets = await startCredentialsSecret('gitopsbt', PRIVATE_KEY);
  });
  afterAll(async () => {
    process.env = saved;
    await server?.close();
    await secrets?.close();
  });

  it('does not carry into the next run: its first request is sent', async () => {
    // The production factory's client with a 500 ms deadline (the verdict then stands 500 ms, as 120 s does in production).
    const factory: ApiFactory = (options) =>
      createOpsManagerClient({ ...options, retry: { deadlineMs: 500, maxAttempts: 1 } });
    const config = credentialsSecretConfig(server.baseUrl);
    const runtime = new Runtime(config, factory);

    // Run 1: Ops Manager is silent; a request uses its whole deadline and the next one is refused unsent.
    const first = await runtime.api();
    const timedOut = await first.api.getTeam('o1', 't1').catch((e: unknown) => e);
    expect((timedOut as Error).message).toContain('did not answer within the request deadline');
    const refused = await first.api.getTeam('o1', 't1').catch((e: unknown) => e);
    expect((refused as Error).message).toContain('not sent: Ops Manager has answered no request since');

    // Ops Manager recovers; run 2 starts at once (well within the verdict's window) on the same warm client.
    hung = false;
    const second = await runtime.api();
    expect(second.api).toBe(first.api);
    const sentBefore = server.log.length;
    const team = await second.api.getTeam('o1', 't1').catch((e: unknown) => e);
    expect(team, team instanceof OpsManagerTransportError ? team.message : '').toEqual({ id: 't1', name: 'team' });
    expect(server.log.length).toBeGreaterThan(sentBefore);
    await (second.api as unknown as { close(): Promise<void> }).close();
  });
});
