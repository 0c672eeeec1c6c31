// Scenario: the reconcile Lambda applies, then its container is frozen longer than the idle timeout of the NAT gateway
// in front of S3, Secrets Manager and Ops Manager (each forgets the connections the container kept, and resets the
// next packet sent on one) and Ops Manager expires its nonce. The run after the thaw must be a clean run, not a failure.
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppContext } from '../../../lambdas/handlers/app-context.ts';
import { type AwsWorld, emulatorAdmin, fakeLambdaContext, startAwsWorld } from '../../helpers/aws-world.ts';
import { type IdleExpiryProxy, startIdleExpiryProxy } from '../../helpers/idle-expiry-proxy.ts';

/** A relay to `origin`'s host and port. */
function relayTo(origin: string): Promise<IdleExpiryProxy> {
  const url = new URL(origin);
  return startIdleExpiryProxy({ host: url.hostname, port: Number(url.port) });
}

describe('the reconcile Lambda thawed after its connections expired on the way', { timeout: 60_000 }, () => {
  let world: AwsWorld;
  const proxies: Record<'s3' | 'secrets' | 'opsman', IdleExpiryProxy | undefined> = {
    s3: undefined,
    secrets: undefined,
    opsman: undefined,
  };
  const saved = { ...process.env };

  beforeAll(async () => {
    world = await startAwsWorld({ mode: 'apply' });
    proxies.s3 = await relayTo(world.s3.endpoint);
    proxies.secrets = await relayTo(world.secrets.endpoint);
    proxies.opsman = await relayTo(world.emulator.origin);
    Object.assign(process.env, world.env, {
      AWS_ENDPOINT_URL_S3: proxies.s3.origin,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: proxies.secrets.origin,
      OPSMAN_BASE_URL: `${proxies.opsman.origin}/api/public/v1.0`,
    });
  });
  afterAll(async () => {
    process.env = saved;
    await Promise.all(Object.values(proxies).map((proxy) => proxy?.close()));
    await world?.close();
  });

  it('runs clean after the thaw, on new connections, and repeats nothing it applied', async () => {
    // Imported here: the module builds its own context from the environment when loaded.
    const { createReconcileHandler } = await import('../../../lambdas/handlers/reconcile.ts');
    const handler = createReconcileHandler(createAppContext());
    const ctx = (id: string) => fakeLambdaContext(id) as unknown as Context;
    const first = await handler({ mode: 'apply' }, ctx('req-1'));
    expect(first).toMatchObject({ status: 'ok' });
    expect(first.applied).toBeGreaterThan(0);

    // Frozen: the NAT gateway forgets every connection, Ops Manager expires its nonces.
    for (const proxy of Object.values(proxies)) proxy?.expireIdle();
    await emulatorAdmin(world.emulator.origin, 'POST', 'nonces/expire');

    const second = await handler({ mode: 'apply' }, ctx('req-2'));
    expect(second, JSON.stringify(second.error)).toMatchObject({ status: 'ok', applied: 0 });
    const resets = Object.fromEntries(Object.entries(proxies).map(([name, proxy]) => [name, proxy?.resets()]));
    expect(resets).toEqual({ s3: 0, secrets: 0, opsman: 0 });
  });
});
