// Scenario: an Ops Manager that accepts connections and never answers. A request that waits is reported once per stall
// (with its path and deadline) whatever its attempts; its deadline counts from when it was sent and the error names
// the setting that changes it; once a request used its whole deadline with nothing answered meanwhile, requests not
// yet sent fail at once, unsent, until Ops Manager answers again or one more deadline passes. A server that answers
// other requests meanwhile condemns nothing.
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestStallEvent } from '../../../lambdas/core/ports.ts';
import {
  AmbiguousWriteError,
  type ClientOptions,
  createOpsManagerClient,
  type OpsManagerClient,
  OpsManagerTransportError,
} from '../../../lambdas/opsman/index.ts';
import { startDigestServer } from '../../helpers/client-digest-server.ts';
import { TEST_PRIVATE_KEY } from '../../helpers/client-fixtures.ts';
import { eventually, startHungServer } from '../../helpers/hung-server.ts';

const GROUP = '5e2211c17a3e5a48f5497de3';
const BODY = { eventTypeName: 'HOST_DOWN', notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'] }] };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A Digest server whose authenticated requests matching `hang` (`METHOD /path`) never get an answer. */
async function hangingOn(hang: RegExp) {
  const server = await startDigestServer({
    password: TEST_PRIVATE_KEY,
    handler: (req) => (hang.test(`${req.method} ${req.pathname}`) ? new Promise<never>(() => undefined) : { json: {} }),
  });
  cleanups.push(() => server.close());
  return server;
}

async function hung() {
  const server = await startHungServer();
  cleanups.push(() => server.close());
  return server;
}

/** A client recording its request and stall events; the test's server is closed before it (cleanups run reversed). */
function clientOf(baseUrl: string, extra: Partial<ClientOptions> = {}) {
  const stalls: RequestStallEvent[] = [];
  const requests: { pathTemplate: string; attempts: number; status: number | null }[] = [];
  const client: OpsManagerClient = createOpsManagerClient({
    baseUrl,
    publicKey: 'pubkey',
    privateKey: TEST_PRIVATE_KEY,
    observer: { onRequest: (e) => void requests.push(e), onStall: (e) => void stalls.push(e) },
    ...extra,
  });
  cleanups.unshift(() => client.close());
  return { client, stalls, requests };
}

describe('a request Ops Manager does not answer', () => {
  it('is reported once when it stalls, with its path and deadline, however many attempts it makes', async () => {
    const server = await hung();
    const { client, stalls, requests } = clientOf(server.baseUrl, {
      stallAfterMs: 100,
      retry: { deadlineMs: 2_000, baseDelayMs: 1, maxDelayMs: 1 },
      timeouts: { headersMs: 400 },
    });
    const error = await client.listAlertConfigs(GROUP).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerTransportError);
    expect(requests[0]?.attempts).toBeGreaterThan(1); // the headers timeout ended attempts before the deadline
    expect(stalls).toEqual([
      {
        method: 'GET',
        pathTemplate: '/groups/{groupId}/alertConfigs',
        path: `/api/public/v1.0/groups/${GROUP}/alertConfigs`,
        waitedMs: expect.any(Number),
        deadlineMs: 2_000,
      },
    ]);
    expect(stalls[0]?.waitedMs).toBeGreaterThanOrEqual(90);
  });

  it('is reported again after an answer, and a quick one is never reported', async () => {
    let calls = 0;
    const server = await startDigestServer({
      password: TEST_PRIVATE_KEY,
      handler: (req) => {
        if (req.pathname.endsWith('/quick')) return { json: { id: 'quick' } };
        calls += 1;
        return calls === 1 ? { status: 503, delayMs: 600 } : { json: { id: 'slow' }, delayMs: 600 };
      },
    });
    cleanups.push(() => server.close());
    const { client, stalls } = clientOf(server.baseUrl, {
      stallAfterMs: 150,
      retry: { baseDelayMs: 1, maxDelayMs: 1 },
    });
    expect(await client.getTeam('o1', 'quick')).toEqual({ id: 'quick' });
    expect(stalls).toEqual([]);
    expect(await client.getTeam('o1', 'slow')).toEqual({ id: 'slow' });
    // The 503 was an answer: the retry's wait is a new stall.
    expect(stalls.map((s) => s.path)).toEqual([
      '/api/public/v1.0/orgs/o1/teams/slow',
      '/api/public/v1.0/orgs/o1/teams/slow',
    ]);
  });

  it('fails at its deadline with a message naming the setting that changes it', async () => {
    const server = await hung();
    const { client } = clientOf(server.baseUrl, {
      retry: { deadlineMs: 1_000 },
      settingNames: { requestDeadline: '--request-timeout' },
    });
    const error = await client.getProjectDefaultServerType(GROUP).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerTransportError);
    expect((error as Error).message).toBe(
      'GET /usage/groups/{groupId}/defaultServerType: no response after 1 attempt(s): Ops Manager did not answer within the request deadline (1 s, --request-timeout to change)',
    );
    expect((error as Error).message).not.toContain('retry.deadlineMs');
  });
});

describe('an Ops Manager that answers nothing for a whole deadline', () => {
  it('makes the requests not yet sent fail at once, unsent, queued ones included', async () => {
    const server = await hung();
    const { client, requests } = clientOf(server.baseUrl, {
      maxConcurrency: 1,
      retry: { deadlineMs: 500 },
      settingNames: { requestDeadline: '--request-timeout' },
    });
    // The second request waits for the only slot; the deadline counts from when a request is sent, so it would
    // wait a deadline of its own after the first one's.
    const first = client.listAlertConfigs(GROUP).catch((e: unknown) => e);
    const queued = client.getAuditLogRotateConfig(GROUP).catch((e: unknown) => e);
    expect(await first).toBeInstanceOf(OpsManagerTransportError);
    const error = await queued;
    expect(error).toBeInstanceOf(OpsManagerTransportError);
    expect((error as Error).message).toMatch(
      /^GET \/groups\/\{groupId\}\/automationConfig\/auditLogRotateConfig: not sent: Ops Manager has answered no request since \S+Z \(GET \/groups\/\{groupId\}\/alertConfigs got no answer within its deadline; deadline 0\.5 s, --request-timeout to change\); requests fail at once until it answers again or until \S+Z$/,
    );
    const later = await client.getOrgDefaultServerType('o1').catch((e: unknown) => e);
    expect((later as Error).message).toContain('not sent: Ops Manager has answered no request since');
    expect(server.requests()).toEqual([`GET /api/public/v1.0/groups/${GROUP}/alertConfigs?pageNum=1&itemsPerPage=500`]);
    // The observer counts API calls: the two requests refused unsent made none.
    expect(requests.map((r) => r.pathTemplate)).toEqual(['/groups/{groupId}/alertConfigs']);
  });

  it('is recognised too when a request ends after headers timeouts, before its deadline', async () => {
    const server = await hung();
    const { client } = clientOf(server.baseUrl, {
      retry: { deadlineMs: 60_000, maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
      timeouts: { headersMs: 300 },
      settingNames: { requestDeadline: '--request-timeout' },
    });
    const first = await client.getTeam('o1', 't1').catch((e: unknown) => e);
    expect((first as Error).message).toBe(
      'GET /orgs/{orgId}/teams/{teamId}: no response after 2 attempt(s): Ops Manager sent no response headers within 0.3 s (each attempt; request deadline 60 s, --request-timeout to change)',
    );
    const next = await client.getTeam('o1', 't2').catch((e: unknown) => e);
    expect((next as Error).message).toMatch(
      /^GET \/orgs\/\{orgId\}\/teams\/\{teamId\}: not sent: Ops Manager has answered no request since \S+ \(GET \/orgs\/\{orgId\}\/teams\/\{teamId\} got no response headers in 2 attempt\(s\); deadline 60 s, --request-timeout to change\)/,
    );
    expect(server.requests()).toHaveLength(2);
  });

  it('sends again once one more deadline has passed', async () => {
    const server = await hung();
    let offset = 0;
    const clock = {
      now: () => new Date(Date.now() + offset),
      sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
    };
    const { client } = clientOf(server.baseUrl, { retry: { deadlineMs: 300 }, clock });
    await client.getTeam('o1', 't1').catch(() => undefined);
    await expect(client.getTeam('o1', 't2')).rejects.toThrow(/not sent/);
    expect(server.requests()).toHaveLength(1);
    offset += 300;
    const error = await client.getTeam('o1', 't3').catch((e: unknown) => e);
    expect((error as Error).message).toContain('did not answer within the request deadline');
    expect(server.requests()).toHaveLength(2);
  });

  it('sends again as soon as a request in flight is answered', async () => {
    // Deadline D: the hanging request is sent at 0 and condemns the server at D; the late one is sent at D/2 and
    // answered at 1.25 D, inside its own deadline (1.5 D). D/4 of slack on either side.
    const D = 3_000;
    const server = await startDigestServer({
      password: TEST_PRIVATE_KEY,
      handler: (req) => {
        if (req.pathname.endsWith('/hang')) return new Promise<never>(() => undefined);
        if (req.pathname.endsWith('/late')) return { json: { id: 'late' }, delayMs: 0.75 * D };
        return { json: { id: 'now' } };
      },
    });
    cleanups.push(() => server.close());
    const { client } = clientOf(server.baseUrl, { retry: { deadlineMs: D, maxAttempts: 1 } });
    await client.getTeam('o1', 'warm-up'); // caches the nonce: the next requests go out signed at once
    const hang = client.getTeam('o1', 'hang').catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, D / 2));
    const late = client.getTeam('o1', 'late');
    expect(((await hang) as Error).message).toContain('did not answer within the request deadline');
    await expect(client.getTeam('o1', 'meanwhile')).rejects.toThrow(/not sent/);
    expect(await late).toEqual({ id: 'late' });
    expect(await client.getTeam('o1', 'after')).toEqual({ id: 'now' });
    expect(server.log.map((e) => e.url.split('/').pop())).not.toContain('meanwhile');
  });

  it('does not say that a write it stops retrying was never sent', async () => {
    // A signed POST and a signed PUT hang; both attempts end at the 300 ms headers timeout. The POST is never retried,
    // so it condemns the silent server; the PUT's retry, 200 ms later, is refused. Its first attempt was sent, signed.
    const server = await hangingOn(/^(POST|PUT) /);
    const { client, requests } = clientOf(server.baseUrl, {
      retry: { deadlineMs: 60_000, maxAttempts: 4, baseDelayMs: 200, maxDelayMs: 200 },
      timeouts: { headersMs: 300 },
      random: () => 0.999,
    });
    await client.getTeam('o1', 'warm-up'); // caches the nonce: the writes go out signed at once
    const post = client.createAlertConfig(GROUP, BODY).catch((e: unknown) => e);
    const put = client.updateAlertConfig(GROUP, 'a1', BODY).catch((e: unknown) => e);
    expect(await post).toBeInstanceOf(AmbiguousWriteError);
    const error = await put;
    expect(error).toBeInstanceOf(OpsManagerTransportError);
    expect(server.log.filter((e) => e.method === 'PUT' && e.authorization !== undefined)).toHaveLength(1);
    // The observer counts the attempts that reached the wire: the refused retry is not one.
    expect(requests.find((r) => r.pathTemplate === '/groups/{groupId}/alertConfigs/{alertConfigId}')?.attempts).toBe(1);
    // Not "not sent" and `attempts: 0`: the PUT was sent once and may have been applied.
    expect(error).toMatchObject({ attempts: 1 });
    expect((error as Error).message).toMatch(
      /^PUT \/groups\/\{groupId\}\/alertConfigs\/\{alertConfigId\}: not sent again after 1 attempt\(s\): Ops Manager has answered no request since /,
    );
  });

  it('is not condemned for one slow request while it answers others', async () => {
    const server = await startDigestServer({
      password: TEST_PRIVATE_KEY,
      handler: (req) => (req.pathname.endsWith('/hang') ? new Promise<never>(() => undefined) : { json: { id: 'ok' } }),
    });
    cleanups.push(() => server.close());
    const { client } = clientOf(server.baseUrl, { retry: { deadlineMs: 800, maxAttempts: 1 } });
    await client.getTeam('o1', 'warm-up');
    const slow = client.getTeam('o1', 'hang').catch((e: unknown) => e);
    await eventually(() => server.log.some((e) => e.url.endsWith('/hang')), 'the slow request to arrive');
    expect(await client.getTeam('o1', 'answered')).toEqual({ id: 'ok' });
    expect(((await slow) as Error).message).toContain('did not answer within the request deadline');
    expect(await client.getTeam('o1', 'next')).toEqual({ id: 'ok' });
  });
});
