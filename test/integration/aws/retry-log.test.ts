// Scenario: the Lambda's runtime against an Ops Manager that throttles: the function's log gets one warning ("Ops
// Manager request will be retried", with the method, the path with its ids and no query string, the status and error
// code it got, the attempt, the wait and that the wait is the server's Retry-After) before the retry, and the request
// then succeeds; a short backoff logs nothing, and nothing secret is in the log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryLog } from '../../../lambdas/handlers/retry-log.ts';
import { type ApiFactory, Runtime } from '../../../lambdas/handlers/runtime.ts';
import { createOpsManagerClient } from '../../../lambdas/opsman/client.ts';
import {
  credentialsSecretConfig,
  type LoopbackSecretsManager,
  startCredentialsSecret,
} from '../../helpers/aws-secrets-server.ts';
import { type DigestServer, type ScriptedReply, startDigestServer } from '../../helpers/client-digest-server.ts';

const PROJECT = '5e2211c17a3e5a48f5497de3';
const PRIVATE_KEY = '7f3c2a9e-4b1d-4e8f-9a6c-1d2e3f4a5b6c';
const LIST = { results: [], totalCount: 0, links: [] };

describe('retry warnings in the Lambda log', { timeout: 30_000 }, () => {
  let secrets: LoopbackSecretsManager;
  const servers: DigestServer[] = [];
  const saved = { ...process.env };

  beforeAll(async () => {
    secrets = await startCredentialsSecret('gitopsbt', PRIVATE_KEY);
  });
  afterAll(async () => {
    process.env = saved;
    await secrets?.close();
    for (const server of servers) await server.close();
  });

  async function logged(replies: ScriptedReply[]) {
    let seen = 0;
    const server = await startDigestServer({
      username: 'gitopsbt',
      password: PRIVATE_KEY,
      handler: () => replies[Math.min(seen++, replies.length - 1)] as ScriptedReply,
    });
    servers.push(server);
    const warnings: { message: string; extra: Record<string, unknown>[] }[] = [];
    const logger = {
      warn: (message: string, ...extra: Record<string, unknown>[]) => warnings.push({ message, extra }),
    };
    // The production factory's client; the Retry-After wait of 1 s is really slept.
    const factory: ApiFactory = (options) => createOpsManagerClient({ ...options, random: () => 0.5 });
    const runtime = new Runtime(credentialsSecretConfig(server.baseUrl), factory, { onRetryWait: retryLog(logger) });
    const { api } = await runtime.api();
    await expect(api.listAlertConfigs(PROJECT)).resolves.toEqual([]);
    return warnings;
  }

  it("logs the wait a 429's Retry-After asks for, then the request succeeds", async () => {
    const warnings = await logged([
      {
        status: 429,
        json: { error: 429, errorCode: 'RATE_LIMITED', detail: 'slow down' },
        headers: { 'retry-after': '1' },
      },
      { json: LIST },
    ]);
    expect(warnings).toEqual([
      {
        message: 'Ops Manager request will be retried',
        extra: [
          {
            request: { method: 'GET', path: `/api/public/v1.0/groups/${PROJECT}/alertConfigs` },
            got: '429 RATE_LIMITED',
            attempt: 1,
            maxAttempts: 4,
            waitMs: 1000,
            retryAfter: true,
          },
        ],
      },
    ]);
    expect(JSON.stringify(warnings)).not.toContain(PRIVATE_KEY.slice(0, 8));
  });

  it('logs nothing for a backoff under a second', async () => {
    expect(await logged([{ status: 503 }, { json: LIST }])).toEqual([]);
  });
});
