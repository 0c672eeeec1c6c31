// Scenario: a server answers an alert-config write with a success status and no body (204, or 200/201/202 empty): the
// write succeeded, so the client resolves null instead of failing it; a body, whatever the 2xx status, is returned.
import { afterEach, describe, expect, it } from 'vitest';
import { createOpsManagerClient } from '../../../lambdas/opsman/index.ts';
import { startDigestServer } from '../../helpers/client-digest-server.ts';
import { TEST_PRIVATE_KEY } from '../../helpers/client-fixtures.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function clientAnswering(status: number, json?: unknown) {
  const server = await startDigestServer({
    password: TEST_PRIVATE_KEY,
    handler: () => (json === undefined ? { status, text: '' } : { status, json }),
  });
  cleanups.push(() => server.close());
  const client = createOpsManagerClient({ baseUrl: server.baseUrl, publicKey: 'pubkey', privateKey: TEST_PRIVATE_KEY });
  cleanups.push(() => client.close());
  return client;
}

const body = {
  eventTypeName: 'HOST_DOWN',
  enabled: true,
  notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'] }],
};

describe('alert-config writes answered without a body', () => {
  it.each([204, 202, 201, 200])('%i without a body resolves null for POST, PUT and PATCH', async (status) => {
    const client = await clientAnswering(status);
    await expect(client.createAlertConfig('g1', body)).resolves.toBeNull();
    await expect(client.updateAlertConfig('g1', 'a1', body)).resolves.toBeNull();
    await expect(client.setAlertConfigEnabled('g1', 'a1', false)).resolves.toBeNull();
  });

  it('201 with the created config returns it', async () => {
    const client = await clientAnswering(201, { id: 'a1', ...body });
    await expect(client.createAlertConfig('g1', body)).resolves.toMatchObject({ id: 'a1' });
  });

  it('a read of one config still needs a body', async () => {
    const client = await clientAnswering(200);
    await expect(client.getAlertConfig('g1', 'a1')).rejects.toThrow(
      /the 200 response is empty, not the JSON object of an entity/,
    );
  });
});
