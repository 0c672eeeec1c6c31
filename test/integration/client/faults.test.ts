// Scenario: the emulator's fault injection drives the client's retries (429 + Retry-After, 503 bursts, resets, latency past the timeout), and a POST reset after it was applied is an AmbiguousWriteError with no duplicate.
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AmbiguousWriteError, OpsManagerApiError } from '../../../lambdas/opsman/index.ts';
import { type EmulatorFixture, IDS, startEmulatorFixture } from '../../helpers/client-emulator.ts';
import { fakeClock, recordingObserver } from '../../helpers/client-fixtures.ts';

const ALERTS = '/groups/*/alertConfigs';
const BODY = {
  eventTypeName: 'HOST_DOWN',
  enabled: true,
  notifications: [{ typeName: 'GROUP', intervalMin: 5, delayMin: 0, roles: ['GROUP_OWNER'] }],
};

let emu: EmulatorFixture;
beforeAll(async () => {
  emu = await startEmulatorFixture();
  return () => emu.close();
});
beforeEach(async () => {
  await emu.reset();
});

function client(extra: Parameters<EmulatorFixture['client']>[0] = {}) {
  const clock = fakeClock();
  const observer = recordingObserver();
  return { clock, observer, client: emu.client({ clock, observer, random: () => 0.5, ...extra }) };
}

describe('retries driven by emulator faults', () => {
  it('429 with Retry-After: waits what the server asks, then succeeds', async () => {
    const { client: c, clock, observer } = client();
    await emu.fault({ method: 'GET', path: ALERTS, status: 429, errorCode: 'RATE_LIMITED', retryAfter: 2, times: 2 });
    const alerts = await c.listAlertConfigs(IDS.paymentsProd);
    expect(alerts.length).toBeGreaterThan(0);
    expect(clock.sleeps).toEqual([2000, 2000]);
    expect(observer.events).toEqual([
      expect.objectContaining({
        method: 'GET',
        pathTemplate: '/groups/{groupId}/alertConfigs',
        status: 200,
        attempts: 3,
      }),
    ]);
  });

  it('a 503 burst is retried with backoff up to maxAttempts', async () => {
    const { client: c, clock } = client();
    await emu.fault({ path: '/orgs/*/teams/*', status: 503, times: 3 });
    expect((await c.getTeam(IDS.acme, IDS.dbaOncall)).name).toBe('dba-oncall');
    expect(clock.sleeps).toEqual([125, 250, 500]);
  });

  it('a longer 503 burst exhausts the attempts with a typed error', async () => {
    const { client: c, observer } = client({ retry: { maxAttempts: 3 } });
    await emu.fault({ path: '/orgs/*/teams/*', status: 503, errorCode: 'SERVICE_UNAVAILABLE', times: 5 });
    await emu.clearRequests();
    const error = await c.getTeam(IDS.acme, IDS.dbaOncall).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerApiError);
    expect(error).toMatchObject({ status: 503, method: 'GET', pathTemplate: '/orgs/{orgId}/teams/{teamId}' });
    // The attempts are the ones configured (3, not the default 4, nor the 5 the fault would answer): no more were sent.
    expect(observer.events).toEqual([expect.objectContaining({ status: 503, attempts: 3 })]);
    expect((await emu.requests()).entries.filter((e) => e.status === 503)).toHaveLength(3);
  });

  it('connection resets on PUT are retried (PUT is idempotent)', async () => {
    const { client: c, observer } = client();
    await emu.fault({ method: 'PUT', path: '/groups/*/automationConfig/auditLogRotateConfig', reset: true, times: 2 });
    await c.setAuditLogRotateConfig(IDS.paymentsProd, { sizeThresholdMB: 500, timeThresholdHrs: 12 });
    expect(await c.getAuditLogRotateConfig(IDS.paymentsProd)).toMatchObject({
      sizeThresholdMB: 500,
      timeThresholdHrs: 12,
    });
    expect(observer.events[0]).toMatchObject({ method: 'PUT', status: 200, attempts: 3 });
  });

  it('latency past the headers timeout is retried', async () => {
    const { client: c, observer } = client({ timeouts: { headersMs: 300 } });
    await emu.fault({ method: 'GET', path: '/orgs/*/teams/*', latencyMs: 3000, times: 1 });
    expect((await c.getTeam(IDS.acme, IDS.dbaOncall)).name).toBe('dba-oncall');
    expect(observer.events[0]).toMatchObject({ status: 200, attempts: 2 });
  });
});

describe('POST ambiguity', () => {
  it('a POST applied then reset is an AmbiguousWriteError, never retried, no duplicate', async () => {
    const { client: c } = client();
    const before = await c.listAlertConfigs(IDS.paymentsStaging);
    await emu.fault({ method: 'POST', path: ALERTS, reset: true, phase: 'after', times: 1 });
    await emu.clearRequests();
    const error = await c.createAlertConfig(IDS.paymentsStaging, BODY).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AmbiguousWriteError);
    expect(error).toMatchObject({ method: 'POST', pathTemplate: '/groups/{groupId}/alertConfigs' });
    const log = await emu.requests();
    expect(log.entries.filter((e) => e.method === 'POST' && e.publicKey !== undefined)).toHaveLength(1);
    const after = await c.listAlertConfigs(IDS.paymentsStaging);
    expect(after).toHaveLength(before.length + 1);
  });

  it('a POST answered 503 after being applied is ambiguous too', async () => {
    const { client: c } = client();
    const before = await c.listAlertConfigs(IDS.paymentsStaging);
    await emu.fault({ method: 'POST', path: ALERTS, status: 503, phase: 'after', times: 1 });
    await expect(c.createAlertConfig(IDS.paymentsStaging, BODY)).rejects.toBeInstanceOf(AmbiguousWriteError);
    expect(await c.listAlertConfigs(IDS.paymentsStaging)).toHaveLength(before.length + 1);
  });

  it('a POST rate-limited before processing is retried and created once', async () => {
    const { client: c, clock } = client();
    const before = await c.listAlertConfigs(IDS.paymentsStaging);
    await emu.fault({ method: 'POST', path: ALERTS, status: 429, retryAfter: 1, phase: 'before', times: 1 });
    const created = await c.createAlertConfig(IDS.paymentsStaging, BODY);
    expect(created?.eventTypeName).toBe('HOST_DOWN');
    expect(clock.sleeps).toEqual([1000]);
    expect(await c.listAlertConfigs(IDS.paymentsStaging)).toHaveLength(before.length + 1);
  });
});
