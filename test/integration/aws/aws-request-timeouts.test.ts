// Scenario: S3 and Secrets Manager accept the function's connections and never answer (a route that drops packets
// without a reset, an overloaded endpoint). Each request must give up within the runtime's AWS timeouts, retried by
// the SDK, and end as a retryable failure: never hang the run until Lambda kills it, past the deadline that saves the
// state and releases the lease.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AWS_TIMEOUTS } from '../../../lambdas/handlers/aws-connections.ts';
import { classifyError } from '../../../lambdas/handlers/errors.ts';
import { STOP_BEFORE_TIMEOUT_MS } from '../../../lambdas/handlers/run-once.ts';
import { Runtime } from '../../../lambdas/handlers/runtime.ts';
import { FAKE_AWS_CREDENTIALS, LOOPBACK_REGION } from '../../helpers/aws-clients.ts';
import { credentialsSecretConfig } from '../../helpers/aws-secrets-server.ts';
import { type HungServer, startHungServer } from '../../helpers/hung-server.ts';

const noApi = () => {
  throw new Error('no Ops Manager in this test');
};

describe('AWS requests that are never answered', { timeout: 20_000 }, () => {
  let hung: HungServer;
  const saved = { ...process.env };

  beforeAll(async () => {
    hung = await startHungServer();
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_S3: hung.origin,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: hung.origin,
      AWS_S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: FAKE_AWS_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: FAKE_AWS_CREDENTIALS.secretAccessKey,
      AWS_REGION: LOOPBACK_REGION,
    });
  });
  afterAll(async () => {
    process.env = saved;
    await hung?.close();
  });

  it('fail retryably within the timeouts, each of the SDK attempts on its own connection', async () => {
    // The production wiring with the idle timeout shortened from 10 s to 300 ms.
    const runtime = new Runtime(credentialsSecretConfig('https://om.example.com/api/public/v1.0'), noApi, undefined, {
      connectMs: 1_000,
      idleMs: 300,
    });
    const started = Date.now();
    const [state, desired, credentials] = await Promise.all(
      [runtime.state.read(), runtime.source.list(), runtime.api()].map((p) =>
        p.then(
          () => 'answered',
          (error: unknown) => error,
        ),
      ),
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(classifyError(state)).toMatchObject({ code: 'S3_ACCESS', retryable: true });
    expect((state as Error).message).toContain('TimeoutError');
    expect(classifyError(desired)).toMatchObject({ code: 'S3_ACCESS', retryable: true });
    expect(classifyError(credentials)).toMatchObject({ code: 'SECRET_UNAVAILABLE', retryable: true });
    // The SDK retried each timed-out request (three attempts apiece), on a new connection each time.
    expect(hung.connections()).toBe(9);
  });

  it('default timeouts: the SDK attempts of one request end inside the margin a run keeps before its timeout', () => {
    const attempts = 3; // the SDK's default (standard retry mode), which the runtime's clients keep
    expect(attempts * (AWS_TIMEOUTS.connectMs + AWS_TIMEOUTS.idleMs)).toBeLessThan(STOP_BEFORE_TIMEOUT_MS);
  });
});
