// Scenario: the client talks HTTPS to the emulator signed by a throw-away CA (caFile), refuses it without the CA, and no error or stderr output from any failure carries the private key or an Authorization header.
import { inspect } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { OpsManagerError, OpsManagerTransportError } from '../../../lambdas/opsman/index.ts';
import { type EmulatorFixture, IDS, KEYS, startEmulatorFixture } from '../../helpers/client-emulator.ts';
import { fakeClock } from '../../helpers/client-fixtures.ts';
import { createTestPki, type TestPki } from '../../helpers/client-tls.ts';

let pki: TestPki;
let emu: EmulatorFixture;
/** Plain HTTP: the emulator's reset faults do not work over TLS yet (resetAndDestroy throws on a TLS socket). */
let plain: EmulatorFixture;
beforeAll(async () => {
  pki = await createTestPki();
  emu = await startEmulatorFixture({ tls: { cert: pki.cert, key: pki.key } });
  plain = await startEmulatorFixture();
  return async () => {
    await emu.close();
    await plain.close();
    await pki.cleanup();
  };
});

describe('HTTPS to the emulator', () => {
  it('works with caFile', async () => {
    expect(emu.url.startsWith('https://')).toBe(true);
    const client = emu.client({ caFile: pki.caFile });
    expect((await client.getTeam(IDS.acme, IDS.dbaOncall)).name).toBe('dba-oncall');
    expect((await client.listAlertConfigs(IDS.paymentsProd)).length).toBeGreaterThan(0);
  });

  it('is refused without the CA, at once', async () => {
    const error = await emu
      .client()
      .getTeam(IDS.acme, IDS.dbaOncall)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerTransportError);
    expect(error).toMatchObject({ attempts: 1 });
  });
});

describe('the private key never leaks', () => {
  const FORBIDDEN = [KEYS.owner.privateKey, 'Digest username', 'response="'];
  const WEBHOOK_SECRET = 'whsec-integration-LEAKCANARY';

  it('in any error, its string forms, JSON, inspect, causes or stderr', async () => {
    const written: string[] = [];
    const original = process.stderr.write;
    process.stderr.write = ((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    const errors: unknown[] = [];
    try {
      const good = plain.client({ clock: fakeClock(), retry: { maxAttempts: 2 } });
      const body = {
        eventTypeName: 'HOST_DOWN',
        notifications: [{ typeName: 'WEBHOOK', webhookUrl: 'https://hooks.example/x', webhookSecret: WEBHOOK_SECRET }],
      };
      await plain.fault({ method: 'POST', path: '/groups/*/alertConfigs', reset: true, phase: 'after' });
      errors.push(await good.createAlertConfig(IDS.paymentsStaging, body).catch((e: unknown) => e));
      await plain.fault({ method: 'PUT', path: '/groups/*/alertConfigs/*', reset: true, times: 5 });
      errors.push(await good.updateAlertConfig(IDS.paymentsStaging, 'nope', body).catch((e: unknown) => e));
      await plain.fault({ path: '/orgs/*/teams/*', status: 503, times: 5 });
      errors.push(await good.getTeam(IDS.acme, IDS.dbaOncall).catch((e: unknown) => e));
      errors.push(
        await good.createAlertConfig(IDS.paymentsStaging, { ...body, eventTypeName: 'NOPE' }).catch((e: unknown) => e),
      );
      const wrong = plain.client({ privateKey: `${KEYS.owner.privateKey}0` });
      errors.push(await wrong.getTeam(IDS.acme, IDS.dbaOncall).catch((e: unknown) => e));
      const untrusted = emu.client();
      errors.push(await untrusted.getTeam(IDS.acme, IDS.dbaOncall).catch((e: unknown) => e));
      const insecure = emu.client({ insecureSkipVerify: true });
      expect((await insecure.getTeam(IDS.acme, IDS.dbaOncall)).name).toBe('dba-oncall');
    } finally {
      process.stderr.write = original;
    }
    expect(errors).toHaveLength(6);
    for (const error of errors) {
      expect(error).toBeInstanceOf(OpsManagerError);
      let current: unknown = error;
      while (current instanceof Error) {
        const views = [
          String(current),
          current.stack ?? '',
          JSON.stringify(current),
          inspect(current, { depth: 10, showHidden: true }),
        ];
        for (const view of views)
          for (const secret of [...FORBIDDEN, WEBHOOK_SECRET]) expect(view).not.toContain(secret);
        current = current.cause;
      }
    }
    expect(written.join('')).toContain('TLS certificate verification is DISABLED');
    for (const secret of [...FORBIDDEN, WEBHOOK_SECRET]) expect(written.join('')).not.toContain(secret);
  });
});
