// Scenario: the cap on alert configurations per project: a POST past it answers 400 MAX_ALERT_CONFIGS_PER_GROUP_EXCEEDED
// and stores nothing, concurrent POSTs never overshoot it, other projects and replacements are unaffected, a delete
// makes room again; a bad cap is refused at start.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_EMULATOR_OPTIONS, EmulatorError, startEmulator } from '../../../emulator/index.ts';
import { alertBody, type EmulatorHarness, startHarness, W } from '../../helpers/emulator-client.ts';

const CAP = 6;
let h: EmulatorHarness;
beforeAll(async () => {
  h = await startHarness({ maxAlertConfigsPerGroup: CAP });
});
beforeEach(async () => {
  await h.admin('POST', '/reset');
});
afterAll(async () => {
  await h.emu.close();
});

const BASE = `/groups/${W.paymentsProd}/alertConfigs`;
const total = async (path = BASE) => ((await h.owner.get(path)).body as { totalCount: number }).totalCount;

describe('alert configurations per project', () => {
  it('answers the POST past the cap with the five-field 400 and stores nothing', async () => {
    expect(await total()).toBe(4); // the seed's default alerts
    expect((await h.owner.post(BASE, alertBody())).status).toBe(200);
    expect((await h.owner.post(BASE, alertBody())).status).toBe(200);
    const refused = await h.owner.post(BASE, alertBody());
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      detail: `Maximum number of alert configurations per group (${CAP}) in ${W.paymentsProd} exceeded while trying to add alert configurations.`,
      error: 400,
      errorCode: 'MAX_ALERT_CONFIGS_PER_GROUP_EXCEEDED',
      parameters: [CAP, W.paymentsProd],
      reason: 'Bad Request',
    });
    expect(await total()).toBe(CAP);
  });

  it('lets concurrent POSTs fill the room left and no more', async () => {
    await h.owner.get(BASE); // caches the nonce, so the POSTs below go out signed and together
    const results = await Promise.all(Array.from({ length: 5 }, () => h.owner.post(BASE, alertBody())));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 400, 400, 400]);
    expect(await total()).toBe(CAP);
  });

  it('still replaces, toggles and deletes in a full project, and a delete makes room', async () => {
    await h.owner.post(BASE, alertBody());
    const last = await h.owner.post(BASE, alertBody());
    const one = `${BASE}/${String(last.body.id)}`;
    expect((await h.owner.put(one, alertBody({ enabled: false }))).status).toBe(200);
    expect((await h.owner.patch(one, { enabled: true })).status).toBe(200);
    expect((await h.owner.post(BASE, alertBody())).status).toBe(400);
    expect((await h.owner.delete(one)).status).toBe(200);
    expect((await h.owner.post(BASE, alertBody())).status).toBe(200);
  });

  it('counts each project on its own', async () => {
    await h.owner.post(BASE, alertBody());
    await h.owner.post(BASE, alertBody());
    const other = `/groups/${W.ledgerProd}/alertConfigs`;
    expect((await h.owner.post(other, alertBody())).status).toBe(200);
  });

  it('defaults far above the benchmark (at most 1,000 alert configs per project, plus the defaults)', () => {
    expect(DEFAULT_EMULATOR_OPTIONS.maxAlertConfigsPerGroup).toBe(10_000);
  });

  it.each([-1, 1.5, Number.NaN])('refuses a cap of %s at start', async (cap) => {
    const started = startEmulator({ maxAlertConfigsPerGroup: cap, onError: () => undefined });
    await expect(started).rejects.toBeInstanceOf(EmulatorError);
    await expect(started).rejects.toMatchObject({ code: 'INVALID_OPTION' });
  });
});
