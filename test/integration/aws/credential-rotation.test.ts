// Scenario: the Ops Manager API key is rotated (the secret's AWSCURRENT and the key in Ops Manager) while a warm
// container still holds the old one in its 5-minute secrets cache. The run Ops Manager refuses reads the secret again
// and runs once more with the new key; a wrong key in the secret still fails, after exactly one extra secret read.
import { describe, expect, it } from 'vitest';
import { emulatorAdmin, WORLD } from '../../helpers/aws-world.ts';
import { useHandlerWorld } from '../../helpers/handler-world.ts';

const ROTATED = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const WRONG = 'ffffffff-4e5f-4a6b-8c7d-9e0f1a2b3c4d';

describe('a rotated Ops Manager API key under the handlers', { timeout: 60_000 }, () => {
  const h = useHandlerWorld({ resetEach: true });
  const secretReads = () => h.world.secrets.calls.get(WORLD.credentialsSecretId) ?? 0;
  const setSecret = (privateKey: string) =>
    h.world.secrets.secrets.set(WORLD.credentialsSecretId, JSON.stringify({ publicKey: WORLD.publicKey, privateKey }));
  const requests = async () =>
    (
      (await emulatorAdmin(h.world.emulator.origin, 'GET', 'requests')) as {
        entries: { method: string; status: number }[];
      }
    ).entries;

  it('rotated within the cache window: the refused run reads the secret once more and succeeds with the new key', async () => {
    setSecret(WORLD.privateKey);
    const first = await h.reconcile({ mode: 'plan' }, h.ctx());
    expect(first).toMatchObject({ status: 'ok' });
    const readsBefore = secretReads();

    await emulatorAdmin(h.world.emulator.origin, 'PUT', `api-keys/${WORLD.publicKey}`, { privateKey: ROTATED });
    setSecret(ROTATED);
    await emulatorAdmin(h.world.emulator.origin, 'DELETE', 'requests');
    const second = await h.reconcile({ mode: 'plan' }, h.ctx());

    expect(second).toMatchObject({ status: 'ok', targetsFailed: 0 });
    expect(secretReads()).toBe(readsBefore + 1);
    const log = await requests();
    // The old key was refused (so the cached value was used first), and nothing but reads reached Ops Manager.
    expect(log.some((e) => e.status === 401)).toBe(true);
    expect(log.filter((e) => e.method !== 'GET')).toEqual([]);
  });

  it('a wrong key in the secret still fails as before, after exactly one extra secret read per run', async () => {
    setSecret(WRONG);
    // The first run may meet a cached key from before and move to the wrong one; the second holds the wrong one.
    await h.reconcile({ mode: 'plan' }, h.ctx());
    const readsBefore = secretReads();
    const refused = await h.reconcile({ mode: 'plan' }, h.ctx());
    expect(refused).toMatchObject({ status: 'partial' });
    expect(JSON.stringify(refused)).toContain('OPSMAN_AUTH_ERROR');
    expect(secretReads()).toBe(readsBefore + 1);
    setSecret(WORLD.privateKey);
  });

  it('a refusal after a write was sent is not run again, even when the secret changed', async () => {
    setSecret(WORLD.privateKey);
    await h.reconcile({ mode: 'plan' }, h.ctx());
    // The first write is refused as a key without the role would be (401, no new challenge); the secret changed since.
    await emulatorAdmin(h.world.emulator.origin, 'POST', 'faults', {
      method: 'POST',
      path: '/**',
      status: 401,
      times: 1,
    });
    setSecret(ROTATED);
    await emulatorAdmin(h.world.emulator.origin, 'DELETE', 'requests');
    const readsBefore = secretReads();
    const applied = await h.reconcile({ mode: 'apply' }, h.ctx());
    expect(applied).toMatchObject({ status: 'partial' });
    expect(JSON.stringify(applied.failures)).toContain('refused the request for this API key');
    expect(secretReads()).toBe(readsBefore);
    // Every request of the run went out once, with the cached key: none was refused for the key itself.
    expect((await requests()).filter((e) => e.status === 401)).toHaveLength(1);
    setSecret(WORLD.privateKey);
  });
});
