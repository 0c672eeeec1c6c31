// Scenario: a request whose every attempt failed to connect (connection refused) never reached Ops Manager: the
// observer reports no API call for it, as for a request refused unsent (docs/client.md, RequestObserver).
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { RequestObserver } from '../../../lambdas/core/ports.ts';
import { createOpsManagerClient } from '../../../lambdas/opsman/client.ts';

/** A loopback port nothing listens on: one just released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('observer and attempts that never connected', () => {
  it('reports no API call for a request refused at connect on every attempt', async () => {
    const events: Parameters<RequestObserver['onRequest']>[0][] = [];
    const api = createOpsManagerClient({
      baseUrl: `http://127.0.0.1:${await closedPort()}/api/public/v1.0`,
      publicKey: 'abcdefgh',
      privateKey: '7f3c2a9e-4b1d-4e8f-9a6c-1d2e3f4a5b6c',
      retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2, maxRetryAfterMs: 10, deadlineMs: 5_000 },
      observer: { onRequest: (event) => void events.push(event) },
    });
    try {
      const error = await api.listAlertConfigs('5e2211c17a3e5a48f5497de3').catch((e: unknown) => e);
      expect(String(error)).toMatch(/ECONNREFUSED/);
      // Every one of the three attempts was made, and refused.
      expect(error).toMatchObject({ attempts: 3 });
    } finally {
      await api.close();
    }
    expect(events).toEqual([]);
  });
});
