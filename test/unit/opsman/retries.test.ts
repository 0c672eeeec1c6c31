// Scenario: against a scripted server, GET/PUT/PATCH/DELETE retry on 429/5xx/resets/timeouts within bounds, a POST is never retried once it may have been applied, and 4xx fail at once.
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connectFailureText } from '../../../lambdas/opsman/connect-failure.ts';
import {
  AmbiguousWriteError,
  type ClientOptions,
  createOpsManagerClient,
  OpsManagerApiError,
  OpsManagerTransportError,
} from '../../../lambdas/opsman/index.ts';
import { type ScriptedReply, type ScriptedRequest, startDigestServer } from '../../helpers/client-digest-server.ts';
import { fakeClock, recordingObserver, TEST_PRIVATE_KEY } from '../../helpers/client-fixtures.ts';
import { scriptedClient } from '../../helpers/scripted-client.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ALERT = {
  id: 'a1',
  groupId: 'g',
  enabled: true,
  eventTypeName: 'HOST_DOWN',
  notifications: [],
  matchers: [],
  links: [],
  created: '',
  updated: '',
};
const BODY = { eventTypeName: 'HOST_DOWN', notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'] }] };

/** A server answering authenticated requests from a script (one reply per request; the last repeats). */
async function scripted(replies: ScriptedReply[], extra: Partial<ClientOptions> = {}) {
  const seen: ScriptedRequest[] = [];
  const handler = (req: ScriptedRequest) => {
    seen.push(req);
    return replies[Math.min(seen.length - 1, replies.length - 1)] ?? { json: {} };
  };
  return { ...(await scriptedClient(handler, cleanups, extra)), seen };
}

describe('retries of idempotent requests', () => {
  it('retries a 503 burst with jittered exponential backoff', async () => {
    const { client, clock, observer, seen } = await scripted([{ status: 503 }, { status: 503 }, { json: ALERT }]);
    expect((await client.getAlertConfig('g', 'a1')).id).toBe('a1');
    expect(seen).toHaveLength(3);
    expect(clock.sleeps).toEqual([125, 250]); // random 0.5 x 250 ms x 2^(n-1)
    expect(observer.events).toEqual([
      expect.objectContaining({
        method: 'GET',
        pathTemplate: '/groups/{groupId}/alertConfigs/{alertConfigId}',
        status: 200,
        attempts: 3,
      }),
    ]);
  });

  it.each([
    ['delta-seconds', '7', 7000],
    ['an HTTP date', new Date(Date.parse('2026-01-01T00:00:03Z')).toUTCString(), 3000],
    ['a huge value (capped)', '86400', 60_000],
  ])('honours Retry-After as %s', async (_name, retryAfter, expected) => {
    const { client, clock } = await scripted([
      {
        status: 429,
        json: { error: 429, errorCode: 'RATE_LIMITED', detail: 'slow down' },
        headers: { 'retry-after': retryAfter },
      },
      { json: ALERT },
    ]);
    await client.setAlertConfigEnabled('g', 'a1', false);
    expect(clock.sleeps).toEqual([expected]);
  });

  it('says why a Retry-After past the request deadline is not waited out, and what to change', async () => {
    const { client, clock, seen } = await scripted(
      [
        {
          status: 429,
          json: { error: 429, errorCode: 'RATE_LIMITED', detail: 'slow down.' },
          headers: { 'retry-after': '3600' },
        },
        { json: ALERT },
      ],
      { retry: { deadlineMs: 20_000 } },
    );
    const error = await client.getAlertConfig('g', 'a1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerApiError);
    expect((error as Error).message).toBe(
      'GET /groups/{groupId}/alertConfigs/{alertConfigId} failed: 429 RATE_LIMITED: slow down; not retried: Ops Manager asked for a wait of 3600 s (Retry-After; at most 60 s is waited), which would pass the request deadline (20 s, retry.deadlineMs to change)',
    );
    expect(seen).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('names no cap for a Retry-After of exactly the longest wait (60 s is waited in full)', async () => {
    const { client, seen } = await scripted(
      [
        {
          status: 429,
          json: { error: 429, errorCode: 'RATE_LIMITED', detail: 'slow down' },
          headers: { 'retry-after': '60' },
        },
        { json: ALERT },
      ],
      { retry: { deadlineMs: 20_000 } },
    );
    const error = await client.getAlertConfig('g', 'a1').catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      'GET /groups/{groupId}/alertConfigs/{alertConfigId} failed: 429 RATE_LIMITED: slow down; not retried: Ops Manager asked for a wait of 60 s (Retry-After), which would pass the request deadline (20 s, retry.deadlineMs to change)',
    );
    expect(seen).toHaveLength(1);
  });

  it("says why a Retry-After past the request's end time is not waited out (a Lambda near its limit)", async () => {
    const { client, clock, seen } = await scripted([
      {
        status: 503,
        json: { error: 503, errorCode: 'SERVICE_UNAVAILABLE', detail: 'busy' },
        headers: { 'retry-after': '30' },
      },
      { json: ALERT },
    ]);
    const ending = client.withEndBy(new Date(clock.now().getTime() + 10_000), 'the run ends in 10 s');
    const error = await ending.getAlertConfig('g', 'a1').catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      'GET /groups/{groupId}/alertConfigs/{alertConfigId} failed: 503 SERVICE_UNAVAILABLE: busy; not retried: Ops Manager asked for a wait of 30 s (Retry-After), which would pass the time the request must end by (the run ends in 10 s)',
    );
    expect(seen).toHaveLength(1);
    // The client's own backoff reaching the end time is no Retry-After: the last error stands as it was.
    const own = await scripted(
      [{ status: 503, json: { error: 503, errorCode: 'SERVICE_UNAVAILABLE', detail: 'busy' } }],
      {
        retry: { deadlineMs: 100 },
      },
    );
    const plain = await own.client.getAlertConfig('g', 'a1').catch((e: unknown) => e);
    expect((plain as Error).message).toMatch(/failed: 503 SERVICE_UNAVAILABLE: busy( \(after \d attempts\))?$/);
  });

  it('honours Retry-After on a 503 too', async () => {
    const { client, clock } = await scripted([{ status: 503, headers: { 'retry-after': '3' } }, { json: ALERT }]);
    await client.getAlertConfig('g', 'a1');
    expect(clock.sleeps).toEqual([3000]);
  });

  it.each([500, 502, 504])('retries %i on PUT and DELETE', async (status) => {
    // Each write meets the error once, then succeeds: the DELETE must be retried on its own, not just follow a PUT.
    const { client, seen } = await scripted([{ status }, { json: ALERT }, { status }, { json: {} }]);
    await client.updateAlertConfig('g', 'a1', BODY);
    await client.deleteAlertConfig('g', 'a1');
    expect(seen.map((r) => r.method)).toEqual(['PUT', 'PUT', 'DELETE', 'DELETE']);
  });

  it('retries a connection reset on GET', async () => {
    const { client, seen } = await scripted(['reset', { json: ALERT }]);
    expect((await client.getAlertConfig('g', 'a1')).id).toBe('a1');
    expect(seen).toHaveLength(2);
  });

  it('gives up after maxAttempts with the last error', async () => {
    const { client, seen, observer } = await scripted([
      { status: 503, json: { errorCode: 'SERVICE_UNAVAILABLE', detail: 'down' } },
    ]);
    const error = await client.getAlertConfig('g', 'a1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerApiError);
    expect(error).toMatchObject({ status: 503, errorCode: 'SERVICE_UNAVAILABLE', detail: 'down' });
    expect(seen).toHaveLength(4);
    expect(observer.events[0]).toMatchObject({ status: 503, attempts: 4 });
    // The message says the retries were spent, so a person does not retry by hand at once.
    expect((error as Error).message).toBe(
      'GET /groups/{groupId}/alertConfigs/{alertConfigId} failed: 503 SERVICE_UNAVAILABLE: down (after 4 attempts)',
    );
    expect(error).toMatchObject({ attempts: 4 });
  });

  it('counts a retry before a final answer: a 503, then a 404, is said "after 2 attempts"', async () => {
    const { client, seen } = await scripted([
      { status: 503, json: { errorCode: 'SERVICE_UNAVAILABLE', detail: 'down' } },
      { status: 404, json: { errorCode: 'ALERT_CONFIG_NOT_FOUND', detail: 'gone' } },
    ]);
    const error = await client.getAlertConfig('g', 'a1').catch((e: unknown) => e);
    expect(seen).toHaveLength(2);
    expect((error as Error).message).toBe(
      'GET /groups/{groupId}/alertConfigs/{alertConfigId} failed: 404 ALERT_CONFIG_NOT_FOUND: gone (after 2 attempts)',
    );
    expect(error).toMatchObject({ attempts: 2 });
  });

  it('says nothing of attempts when the first answer was final', async () => {
    const { client } = await scripted([{ status: 404, json: { errorCode: 'ALERT_CONFIG_NOT_FOUND', detail: 'gone' } }]);
    const error = await client.getAlertConfig('g', 'a1').catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      'GET /groups/{groupId}/alertConfigs/{alertConfigId} failed: 404 ALERT_CONFIG_NOT_FOUND: gone',
    );
    expect(error).toMatchObject({ attempts: 1 });
  });

  it('tells the observer of each wait before a retry: what the attempt got, the wait and whose it is', async () => {
    const waits: unknown[] = [];
    const { client } = await scripted(
      [
        {
          status: 429,
          json: { error: 429, errorCode: 'RATE_LIMITED', detail: 'slow down' },
          headers: { 'retry-after': '7' },
        },
        'reset',
        { status: 503 },
        { json: ALERT },
      ],
      { observer: { onRequest: () => {}, onRetryWait: (event) => void waits.push(event) } },
    );
    await client.getAlertConfig('g', 'a1');
    const common = {
      method: 'GET',
      pathTemplate: '/groups/{groupId}/alertConfigs/{alertConfigId}',
      path: '/api/public/v1.0/groups/g/alertConfigs/a1',
      maxAttempts: 4,
    };
    expect(waits).toEqual([
      { ...common, got: '429 RATE_LIMITED', attempt: 1, waitMs: 7000, retryAfter: true },
      {
        ...common,
        got: expect.stringMatching(/^no response \([A-Z_]+\)$/),
        attempt: 2,
        waitMs: 250,
        retryAfter: false,
      },
      { ...common, got: '503 HTTP_503', attempt: 3, waitMs: 500, retryAfter: false },
    ]);
  });

  it('stops when the next wait would pass the deadline', async () => {
    const { client, seen, clock } = await scripted(
      [{ status: 429, headers: { 'retry-after': '30' } }, { json: ALERT }],
      {
        retry: { deadlineMs: 10_000 },
      },
    );
    await expect(client.getAlertConfig('g', 'a1')).rejects.toMatchObject({ name: 'OpsManagerApiError', status: 429 });
    expect(seen).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('aborts an attempt that runs past the total deadline', async () => {
    const { client, seen } = await scripted([{ json: ALERT, delayMs: 4000 }], {
      clock: { now: () => new Date(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
      retry: { deadlineMs: 1500 },
    });
    const error = await client.getAlertConfig('g', 'a1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerTransportError);
    expect((error as Error).message).toMatch(
      /did not answer within the request deadline \(1.5 s, retry.deadlineMs to change\)/,
    );
    expect(seen.length).toBeLessThanOrEqual(1); // never a second attempt
  });

  it.each([400, 404, 409])('never retries %i', async (status) => {
    const { client, seen } = await scripted([
      { status, json: { error: status, errorCode: 'INVALID_ATTRIBUTE', detail: 'Invalid attribute foo specified.' } },
    ]);
    const error = await client.getAlertConfig('g', 'a1').catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'OpsManagerApiError', status, errorCode: 'INVALID_ATTRIBUTE', method: 'GET' });
    expect(seen).toHaveLength(1);
  });

  it('maps a non-JSON error body to HTTP_<status>, saying it was not from Ops Manager and quoting it', async () => {
    const { client } = await scripted([{ status: 418, text: 'teapot here' }]);
    const error = await client.getTeam('o', 't').catch((e: unknown) => e);
    expect(error).toMatchObject({ errorCode: 'HTTP_418', fromOpsManager: false });
    expect((error as { detail: string }).detail).toMatch(
      /\/orgs\/o\/teams\/t answered 418 without an Ops Manager error body \([^:]+: "teapot here"\)/,
    );
  });

  it('retries a response slower than the headers timeout', async () => {
    const { client, seen } = await scripted([{ json: ALERT, delayMs: 2500 }, { json: ALERT }], {
      timeouts: { headersMs: 200 },
    });
    expect((await client.getAlertConfig('g', 'a1')).id).toBe('a1');
    expect(seen).toHaveLength(2);
  });
});

describe('POST is never blindly retried', () => {
  it('a reset after the authenticated POST was sent is an AmbiguousWriteError, with no duplicate', async () => {
    const { client, seen, server } = await scripted(['reset', { json: ALERT }]);
    const error = await client.createAlertConfig('g', BODY).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AmbiguousWriteError);
    expect(error).toMatchObject({
      code: 'OPSMAN_AMBIGUOUS_WRITE',
      method: 'POST',
      pathTemplate: '/groups/{groupId}/alertConfigs',
    });
    expect(((error as Error).cause as { code?: string }).code).toBe('UND_ERR_SOCKET');
    expect((error as Error).message).toBe(
      'POST /groups/{groupId}/alertConfigs: the connection failed after the request was sent; it may or may not have been applied',
    );
    expect(seen).toHaveLength(1);
    expect(server.log.filter((e) => e.method === 'POST' && e.authorization !== undefined)).toHaveLength(1);
  });

  it.each([500, 502, 503, 504])('a %i answer to a POST is ambiguous too', async (status) => {
    const { client, seen } = await scripted([{ status }, { json: ALERT }]);
    const error = await client.createAlertConfig('g', BODY).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AmbiguousWriteError);
    expect((error as Error).cause).toMatchObject({ name: 'OpsManagerApiError', status });
    // The answer came: the message says what it was, not that a connection failed.
    expect((error as Error).message).toMatch(
      new RegExp(
        `^POST /groups/\\{groupId\\}/alertConfigs: the answer to the request was ${status}( [A-Z_]+)?, a server error; it may or may not have been applied$`,
      ),
    );
    expect(seen).toHaveLength(1);
  });

  it('a timeout waiting for the POST answer is ambiguous', async () => {
    const { client, seen } = await scripted([{ json: ALERT, delayMs: 2500 }], { timeouts: { headersMs: 200 } });
    await expect(client.createAlertConfig('g', BODY)).rejects.toBeInstanceOf(AmbiguousWriteError);
    expect(seen).toHaveLength(1);
  });

  it('a 429 on POST was refused unprocessed, so it is retried', async () => {
    const { client, seen } = await scripted([{ status: 429, headers: { 'retry-after': '1' } }, { json: ALERT }]);
    expect((await client.createAlertConfig('g', BODY))?.id).toBe('a1');
    expect(seen).toHaveLength(2);
  });

  it('a POST refused at connect time never left, so it is retried (then fails as a transport error)', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const address = probe.address() as { port: number };
        probe.close(() => resolve(address.port));
      });
    });
    const observer = recordingObserver();
    const client = createOpsManagerClient({
      baseUrl: `http://127.0.0.1:${port}/api/public/v1.0`,
      publicKey: 'pubkey',
      privateKey: TEST_PRIVATE_KEY,
      clock: fakeClock(),
      observer,
      retry: { maxAttempts: 3 },
    });
    cleanups.push(() => client.close());
    const error = await client.createAlertConfig('g', BODY).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerTransportError);
    expect(error).toMatchObject({ attempts: 3 });
    expect(((error as Error).cause as { code?: string }).code).toBe('ECONNREFUSED');
    // None of the three reached the wire: no API call is reported (the error still counts the attempts made).
    expect(observer.events).toEqual([]);
  });

  it('a refused connection says what it means and names the setting that chose the address', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const address = probe.address() as { port: number };
        probe.close(() => resolve(address.port));
      });
    });
    const client = createOpsManagerClient({
      baseUrl: `http://127.0.0.1:${port}/api/public/v1.0`,
      publicKey: 'pubkey',
      privateKey: TEST_PRIVATE_KEY,
      clock: fakeClock(),
      retry: { maxAttempts: 2 },
      settingNames: { baseUrl: '--base-url (or OPSMAN_BASE_URL)' },
    });
    cleanups.push(() => client.close());
    const error = await client.listAlertConfigs('g').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerTransportError);
    expect((error as Error).message).toContain(
      `connect ECONNREFUSED 127.0.0.1:${port}: nothing accepts connections at that address; check that Ops Manager is running and that --base-url (or OPSMAN_BASE_URL) names its host and port`,
    );
  });

  it("behind a proxy a refused connection is the proxy's, so the base URL is not blamed", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const address = probe.address() as { port: number };
        probe.close(() => resolve(address.port));
      });
    });
    const client = createOpsManagerClient({
      baseUrl: 'http://om.example:8080/api/public/v1.0',
      publicKey: 'pubkey',
      privateKey: TEST_PRIVATE_KEY,
      clock: fakeClock(),
      retry: { maxAttempts: 2 },
      proxy: { httpProxy: `http://127.0.0.1:${port}` },
      settingNames: { baseUrl: '--base-url (or OPSMAN_BASE_URL)' },
    });
    cleanups.push(() => client.close());
    const error = await client.listAlertConfigs('g').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerTransportError);
    expect((error as Error).message).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
    expect((error as Error).message).not.toContain('--base-url');
  });

  it('a host name that does not resolve names the setting to check; other failures keep their text', () => {
    const setting = '--base-url (or OPSMAN_BASE_URL)';
    expect(connectFailureText('ENOTFOUND', 'getaddrinfo ENOTFOUND om.example', setting)).toBe(
      'getaddrinfo ENOTFOUND om.example: no such host name; check the host in --base-url (or OPSMAN_BASE_URL)',
    );
    expect(connectFailureText('ECONNRESET', 'read ECONNRESET', setting)).toBe('read ECONNRESET');
  });
});

describe('concurrency limiter', () => {
  it('never has more than maxConcurrency requests in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    const server = await startDigestServer({
      password: TEST_PRIVATE_KEY,
      handler: async () => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 20));
        inFlight -= 1;
        return { json: { id: 't', name: 'n', links: [] } };
      },
    });
    const client = createOpsManagerClient({
      baseUrl: server.baseUrl,
      publicKey: 'pubkey',
      privateKey: TEST_PRIVATE_KEY,
      maxConcurrency: 3,
    });
    cleanups.push(
      () => server.close(),
      () => client.close(),
    );
    await client.getTeam('o', 't');
    const results = await Promise.all(Array.from({ length: 20 }, () => client.getTeam('o', 't')));
    expect(results).toHaveLength(20);
    expect(peak).toBeLessThanOrEqual(3);
    expect(peak).toBeGreaterThan(1);
  });
});
