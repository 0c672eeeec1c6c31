// Scenario: a whole handler run at DEBUG level, a throttled run (whose log says it waits for a retry), and a run with
// refused credentials, never print a secret value: captured stdout/stderr scanned.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAppContext } from '../../../lambdas/handlers/app-context.ts';
import { createReconcileHandler } from '../../../lambdas/handlers/reconcile.ts';
import { type AwsWorld, emulatorAdmin, fakeLambdaContext, startAwsWorld, WORLD } from '../../helpers/aws-world.ts';
import { captureProcessOutput } from '../../helpers/process-output.ts';

const localSecrets = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', '..', '..', 'desired-state', 'local-secrets.json'), 'utf8'),
) as Record<string, Record<string, string>>;
const SECRET_VALUES = [WORLD.privateKey, ...Object.values(localSecrets).flatMap((o) => Object.values(o))];

describe('handler logs never carry secrets', () => {
  let world: AwsWorld;
  /** The credentials secret as the world started with it. */
  let credentials: string;
  const saved = { ...process.env };
  beforeAll(async () => {
    world = await startAwsWorld({ mode: 'apply' });
    const stored = world.secrets.secrets.get(WORLD.credentialsSecretId);
    credentials = typeof stored === 'string' ? stored : '';
    expect(JSON.parse(credentials)).toEqual({ publicKey: WORLD.publicKey, privateKey: WORLD.privateKey });
    Object.assign(process.env, world.env, { POWERTOOLS_LOG_LEVEL: 'DEBUG' });
  });
  // A test that breaks the credentials secret gets the good one back, whatever its outcome.
  afterEach(() => {
    world.secrets.secrets.set(WORLD.credentialsSecretId, credentials);
  });
  afterAll(async () => {
    process.env = saved;
    await world?.close();
  });

  it('an apply run at DEBUG level', async () => {
    const handler = createReconcileHandler(createAppContext());
    const { text, result } = await captureProcessOutput(() =>
      handler({ mode: 'apply' }, fakeLambdaContext('req-log-1') as unknown as Context),
    );
    expect(result).toMatchObject({ status: 'ok' });
    expect(text).toContain('"message":"run finished"');
    for (const secret of SECRET_VALUES) expect(text).not.toContain(secret);
  });

  it("a throttled run: the production wiring logs the wait a 429's Retry-After asks for", async () => {
    await emulatorAdmin(world.emulator.origin, 'POST', 'faults', {
      method: 'GET',
      path: '/groups/*/alertConfigs',
      status: 429,
      retryAfter: 1,
      times: 1,
    });
    const handler = createReconcileHandler(createAppContext());
    const { text, result } = await captureProcessOutput(() =>
      handler({ mode: 'plan' }, fakeLambdaContext('req-log-429') as unknown as Context),
    );
    expect(result).toMatchObject({ status: 'ok' });
    const line = text.split('\n').find((l) => l.includes('"message":"Ops Manager request will be retried"'));
    expect(line, text).toBeDefined();
    expect(JSON.parse(line as string)).toMatchObject({
      level: 'WARN',
      got: '429 RATE_LIMITED',
      attempt: 1,
      waitMs: 1000,
      retryAfter: true,
    });
    for (const secret of SECRET_VALUES) expect(text).not.toContain(secret);
  });

  it('a run whose credentials Ops Manager refuses, and a malformed credentials secret', async () => {
    world.secrets.secrets.set(
      WORLD.credentialsSecretId,
      JSON.stringify({ publicKey: WORLD.publicKey, privateKey: `${WORLD.privateKey}-wrong` }),
    );
    const refused = await captureProcessOutput(() =>
      createReconcileHandler(createAppContext())(
        { mode: 'plan' },
        fakeLambdaContext('req-log-2') as unknown as Context,
      ),
    );
    // The core fails each target on its own: the run is partial, every target failed with the auth error.
    expect(refused.result).toMatchObject({ status: 'partial', targetsFailed: 6 });
    expect(JSON.stringify(refused.result)).toContain('OPSMAN_AUTH_ERROR');
    world.secrets.secrets.set(
      WORLD.credentialsSecretId,
      `{"publicKey": "${WORLD.publicKey}", "privateKey": "${WORLD.privateKey}",`,
    );
    const malformed = await captureProcessOutput(() =>
      createReconcileHandler(createAppContext())(
        { mode: 'plan' },
        fakeLambdaContext('req-log-3') as unknown as Context,
      ),
    );
    expect(malformed.result).toMatchObject({ status: 'failed', error: { code: 'SECRET_NOT_JSON' } });
    for (const text of [refused.text, malformed.text, JSON.stringify([refused.result, malformed.result])]) {
      for (const secret of [...SECRET_VALUES, `${WORLD.privateKey}-wrong`]) expect(text).not.toContain(secret);
    }
  });
});
