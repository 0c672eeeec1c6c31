// Scenario: a hostile or sloppy client over real HTTP. Names that exist on every JavaScript object (`constructor`,
// `__proto__`, `toString`) are unknown enumeration values like any other, never a crash and never stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertBody, type EmulatorHarness, startHarness, W } from '../../helpers/emulator-client.ts';

let h: EmulatorHarness;
const unexpected: string[] = [];
beforeAll(async () => {
  h = await startHarness({ onError: (m) => unexpected.push(m) });
});
afterAll(async () => {
  await h.emu.close();
  expect(unexpected).toEqual([]);
});

const ALERTS = `/groups/${W.paymentsProd}/alertConfigs`;
const INHERITED = ['constructor', '__proto__', 'toString', 'hasOwnProperty'];

describe('names inherited from Object.prototype', () => {
  it.each(INHERITED)('notification typeName %s is UNSUPPORTED_NOTIFICATION_TYPE, not a 500', async (name) => {
    const res = await h.owner.post(ALERTS, alertBody({ notifications: [{ typeName: name }] }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorCode: 'UNSUPPORTED_NOTIFICATION_TYPE', parameters: [name] });
  });

  it.each(INHERITED)('server type %s is INVALID_ENUM_VALUE and nothing is stored', async (name) => {
    const path = `/usage/groups/${W.paymentsStaging}/defaultServerType`;
    const before = await h.owner.get(path);
    const put = await h.owner.put(path, { serverType: { name } });
    expect(put.status).toBe(400);
    expect(put.body).toMatchObject({ errorCode: 'INVALID_ENUM_VALUE', parameters: [name, 'serverType'] });
    const host = await h.owner.post('/usage/groups', { name: `p-${name}`, serverType: name, virtualHosts: [] });
    expect(host.status).toBe(400);
    expect(host.body).toMatchObject({ errorCode: 'INVALID_ENUM_VALUE', parameters: [name, 'serverType'] });
    expect((await h.owner.get(path)).text).toBe(before.text);
  });
});
