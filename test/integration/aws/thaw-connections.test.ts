// Scenario: a warm Lambda is frozen between two runs for longer than the idle timeout of the NAT gateway (or load
// balancer) in front of Ops Manager, which forgets the connections its client kept and resets them at their next
// packet; Ops Manager's nonce expires meanwhile too. The first write of the run after the thaw must reach Ops Manager
// once: not fail as an ambiguous write that never left, nor count a refusal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../../lambdas/handlers/app-context.ts';
import { Runtime } from '../../../lambdas/handlers/runtime.ts';
import type { AlertConfigRequest } from '../../../lambdas/opsman/index.ts';
import {
  credentialsSecretConfig,
  type LoopbackSecretsManager,
  startCredentialsSecret,
} from '../../helpers/aws-secrets-server.ts';
import { type EmulatorFixture, IDS, KEYS, startEmulatorFixture } from '../../helpers/client-emulator.ts';
import { type IdleExpiryProxy, startIdleExpiryProxy } from '../../helpers/idle-expiry-proxy.ts';

const BODY = {
  eventTypeName: 'HOST_DOWN',
  enabled: true,
  notifications: [{ typeName: 'GROUP', intervalMin: 5, delayMin: 0, roles: ['GROUP_OWNER'] }],
} as unknown as AlertConfigRequest;

describe('a warm Lambda thawed after its connections expired on the way', { timeout: 30_000 }, () => {
  let emu: EmulatorFixture;
  let proxy: IdleExpiryProxy;
  let secrets: LoopbackSecretsManager;
  const saved = { ...process.env };

  beforeAll(async () => {
    emu = await startEmulatorFixture();
    const target = new URL(emu.origin);
    proxy = await startIdleExpiryProxy({ host: target.hostname, port: Number(target.port) });
    secrets = await startCredentialsSecret(KEYS.owner.publicKey, KEYS.owner.privateKey);
  });
  afterAll(async () => {
    process.env = saved;
    await proxy?.close();
    await secrets?.close();
    await emu?.close();
  });

  it('sends the first POST of the next run once, on a new connection, re-challenged', async () => {
    const runtime = new Runtime(credentialsSecretConfig(`${proxy.origin}/api/public/v1.0`), createApi);
    // Run 1: reads in parallel (several kept-alive connections) and caches the nonce.
    const first = await runtime.api();
    await Promise.all(
      [IDS.paymentsProd, IDS.paymentsStaging, IDS.searchProd, IDS.ledgerProd].map((id) =>
        first.api.listAlertConfigs(id),
      ),
    );
    const before = (await first.api.listAlertConfigs(IDS.paymentsStaging)).length;

    // Frozen: the NAT gateway forgets the connections, Ops Manager expires the nonce.
    proxy.expireIdle();
    await emu.expireNonces();
    await emu.clearRequests();

    // Run 2 on the same warm client: its first request is a POST.
    const second = await runtime.api();
    expect(second.api).toBe(first.api);
    runtime.calls.reset();
    const created = await second.api.createAlertConfig(IDS.paymentsStaging, BODY).catch((e: unknown) => e);
    expect(created, created instanceof Error ? created.message : '').toMatchObject({ eventTypeName: 'HOST_DOWN' });
    expect(proxy.resets()).toBe(0);
    // Created exactly once, and the expired nonce cost a challenge, not a refusal the run would count.
    expect(await first.api.listAlertConfigs(IDS.paymentsStaging)).toHaveLength(before + 1);
    const posts = (await emu.requests()).entries.filter((r) => r.method === 'POST');
    expect(posts.map((r) => r.status)).toEqual([401, 200]);
    expect(runtime.calls.authRefusals).toBe(0);
    await (first.api as unknown as { close(): Promise<void> }).close();
  });
});
