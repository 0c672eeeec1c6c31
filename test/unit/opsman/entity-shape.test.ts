// Scenario: a Digest-protected loopback server answers a read of one entity (a team, an alert config, an event, a physical host) 2xx with something that is no JSON object (no body, 204, null, a list, a string, a number); the client fails the read naming the route, the status answered and what came instead.
import { afterEach, describe, expect, it } from 'vitest';
import { type OpsManagerClient, OpsManagerResponseError } from '../../../lambdas/opsman/index.ts';
import { scriptedClient } from '../../helpers/scripted-client.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function clientAnswering(status: number, text: string) {
  return (await scriptedClient(() => ({ status, text }), cleanups)).client;
}

const READS: [string, (c: OpsManagerClient) => Promise<unknown>][] = [
  ['GET /orgs/{orgId}/teams/{teamId}', (c) => c.getTeam('o1', 't1')],
  ['GET /groups/{groupId}/alertConfigs/{alertConfigId}', (c) => c.getAlertConfig('g1', 'a1')],
  ['GET /groups/{groupId}/events/{eventId}', (c) => c.getProjectEvent('g1', 'e1')],
  ['GET /usage/groups/{physicalHostId}', (c) => c.getPhysicalHost('h1')],
];

describe('a read of one entity answered with something that is no JSON object', () => {
  it.each([
    [200, '', 'empty'],
    [204, '', 'empty'],
    [200, 'null', 'null'],
    [200, '[{"id":"a1"}]', 'a list'],
    [200, '"hello"', 'a bare string'],
    [200, '42', 'a bare number'],
    [200, 'true', 'a bare boolean'],
  ])('%i %j is refused as %s, with the status answered', async (status, text, kind) => {
    const client = await clientAnswering(status, text);
    for (const [route, read] of READS) {
      const error = await read(client).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(OpsManagerResponseError);
      expect((error as OpsManagerResponseError).status).toBe(status);
      expect((error as Error).message).toBe(
        `${route}: the ${status} response is ${kind}, not the JSON object of an entity`,
      );
    }
  });

  it('a JSON object is returned as served', async () => {
    const client = await clientAnswering(200, '{"id":"t1","name":"ops"}');
    await expect(client.getTeam('o1', 't1')).resolves.toEqual({ id: 't1', name: 'ops' });
  });
});
