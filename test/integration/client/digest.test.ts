// Scenario: against the emulator, N sequential requests cost at most N+1 exchanges, expired nonces re-authenticate transparently, wrong keys fail after one challenge, and role refusals are auth errors.
import { beforeAll, describe, expect, it } from 'vitest';
import { OpsManagerAuthError } from '../../../lambdas/opsman/index.ts';
import { type EmulatorFixture, IDS, KEYS, startEmulatorFixture } from '../../helpers/client-emulator.ts';

let emu: EmulatorFixture;
beforeAll(async () => {
  emu = await startEmulatorFixture();
  return () => emu.close();
});

describe('Digest against the emulator', () => {
  it('N sequential requests cost at most N+1 exchanges (one challenge)', async () => {
    const client = emu.client();
    await emu.clearRequests();
    const N = 12;
    for (let i = 0; i < N; i++) {
      if (i % 3 === 0) await client.getTeam(IDS.acme, IDS.dbaOncall);
      else if (i % 3 === 1) await client.getAuditLogRotateConfig(IDS.paymentsProd);
      else await client.getProjectDefaultServerType(IDS.paymentsProd);
    }
    const log = await emu.requests();
    expect(log.total).toBeLessThanOrEqual(N + 1);
    expect(log.challenges).toBe(1);
    expect(log.entries.filter((e) => e.status === 200)).toHaveLength(N);
  });

  it('parallel requests from a cold client share one challenge, then reuse the nonce concurrently', async () => {
    const client = emu.client();
    await emu.clearRequests();
    await Promise.all(Array.from({ length: 16 }, () => client.getTeam(IDS.acme, IDS.dbaOncall)));
    await Promise.all(Array.from({ length: 16 }, () => client.getAuditLogRotateConfig(IDS.paymentsProd)));
    const log = await emu.requests();
    expect(log.challenges).toBe(1);
    expect(log.total).toBe(33);
  });

  it('an expired nonce (stale=true) re-authenticates transparently', async () => {
    const client = emu.client();
    await client.getTeam(IDS.acme, IDS.dbaOncall);
    await emu.expireNonces();
    await emu.clearRequests();
    const team = await client.getTeam(IDS.acme, IDS.dbaOncall);
    expect(team.name).toBe('dba-oncall');
    await client.getTeam(IDS.acme, IDS.dbaOncall);
    const log = await emu.requests();
    expect(log.entries.map((e) => e.status)).toEqual([401, 200, 200]);
    expect(log.challenges).toBe(1);
  });

  it('wrong credentials: OpsManagerAuthError after exactly one challenge, no loop', async () => {
    const client = emu.client({ publicKey: KEYS.owner.publicKey, privateKey: 'not-the-right-private-key' });
    await emu.clearRequests();
    const error = await client.getTeam(IDS.acme, IDS.dbaOncall).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerAuthError);
    expect(error).toMatchObject({ status: 401, method: 'GET', pathTemplate: '/orgs/{orgId}/teams/{teamId}' });
    const log = await emu.requests();
    expect(log.total).toBe(2);
    expect(log.challenges).toBe(2);
  });

  it('a key without the role gets an OpsManagerAuthError naming the errorCode', async () => {
    const client = emu.client(KEYS.readOnly);
    const error = await client
      .createAlertConfig(IDS.paymentsStaging, {
        eventTypeName: 'HOST_DOWN',
        notifications: [{ typeName: 'GROUP', intervalMin: 5, delayMin: 0, roles: ['GROUP_OWNER'] }],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerAuthError);
    expect(error).toMatchObject({ status: 401, errorCode: 'USER_UNAUTHORIZED' });
  });

  it('role refusals never condemn the key: its nonce is kept and what it may do still works', async () => {
    const client = emu.client(KEYS.readOnly);
    await emu.clearRequests();
    const body = {
      eventTypeName: 'HOST_DOWN',
      notifications: [{ typeName: 'GROUP', intervalMin: 5, delayMin: 0, roles: ['GROUP_OWNER'] }],
    };
    for (let i = 0; i < 3; i++) {
      const error = await client.createAlertConfig(IDS.paymentsStaging, body).catch((e: unknown) => e);
      expect((error as Error).message).toMatch(
        /refused the request for this API key \(its roles or access\) \(401 USER_UNAUTHORIZED/,
      );
    }
    await client.getTeam(IDS.acme, IDS.dbaOncall);
    const log = await emu.requests();
    // One challenge for the whole sequence: the first refusal kept its nonce, every later request reused it.
    expect(log.challenges).toBe(1);
    expect(log.entries.map((e) => e.status)).toEqual([401, 401, 401, 401, 200]);
  });

  it('the version manifest is read without credentials', async () => {
    const client = emu.client({ privateKey: 'irrelevant-here' });
    await emu.clearRequests();
    const doc = await client.getVersionManifest();
    expect(JSON.parse(doc.text)).toEqual(doc.value);
    const log = await emu.requests();
    expect(log.entries.map((e) => [e.route, e.status, e.publicKey])).toEqual([
      ['/unauth/versionManifest', 200, undefined],
    ]);
  });
});
