// Scenario: the admin API: reset to the seed, fault injection (status, 429 with Retry-After, reset, latency, phase after,
// times, probability, method and glob), clearing faults, the request log by route template, its refusal of requests
// made by web pages (an Origin header), and its absence by default.
import { request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../emulator/index.ts';
import { alertBody, type EmulatorHarness, startHarness, W } from '../../helpers/emulator-client.ts';

let h: EmulatorHarness;
beforeAll(async () => {
  h = await startHarness();
});
beforeEach(async () => {
  await h.admin('POST', '/reset');
});
afterAll(async () => {
  await h.emu.close();
});

const ALERTS = `/groups/${W.paymentsProd}/alertConfigs`;

describe('reset', () => {
  it('restores the seed and clears faults and the log', async () => {
    await h.owner.delete(`${ALERTS}/6c0100000000000000000001`);
    await h.admin('POST', '/faults', { path: '/usage/**', status: 503, times: 5 });
    expect((await h.admin('POST', '/reset')).body).toEqual({});
    expect((await h.owner.get(`${ALERTS}/6c0100000000000000000001`)).status).toBe(200);
    expect((await h.owner.get('/usage/groups')).status).toBe(200);
    expect((await h.admin('GET', '/requests')).body.total).toBe(2);
  });
});

describe('faults', () => {
  it('answers an injected status with the chosen errorCode, times N, then recovers', async () => {
    const added = await h.admin('POST', '/faults', {
      method: 'GET',
      path: '/groups/*/alertConfigs',
      status: 503,
      times: 2,
    });
    expect(added.body.id).toMatch(/^[0-9a-f]+$/);
    const a = await h.owner.get(ALERTS);
    const b = await h.owner.get(ALERTS);
    expect([a.status, b.status]).toEqual([503, 503]);
    expect(a.body).toMatchObject({ error: 503, errorCode: 'SERVICE_UNAVAILABLE', reason: 'Service Unavailable' });
    expect((await h.owner.get(ALERTS)).status).toBe(200);
  });

  it('answers 429 RATE_LIMITED with Retry-After', async () => {
    await h.admin('POST', '/faults', { path: '/groups/**', status: 429, retryAfter: 2 });
    const res = await h.owner.get(`/groups/${W.paymentsProd}/events`);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(res.body).toMatchObject({
      errorCode: 'RATE_LIMITED',
      detail: 'Resource /groups/** is limited to 100 requests every 1 minutes.',
    });
  });

  it('matches the method and the glob only', async () => {
    await h.admin('POST', '/faults', {
      method: 'POST',
      path: '/groups/*/alertConfigs',
      status: 500,
      errorCode: 'UNEXPECTED_ERROR',
    });
    expect((await h.owner.get(ALERTS)).status).toBe(200);
    expect((await h.owner.get(`${ALERTS}/6c0100000000000000000001`)).status).toBe(200);
    expect((await h.owner.post(ALERTS, alertBody())).body.errorCode).toBe('UNEXPECTED_ERROR');
  });

  it('resets the connection before the operation (nothing written)', async () => {
    await h.admin('POST', '/faults', { method: 'POST', path: ALERTS, reset: true });
    await expect(h.owner.post(ALERTS, alertBody({ eventTypeName: 'HOST_RECOVERING' }))).rejects.toThrow();
    const list = (await h.owner.get(ALERTS)).body.results.map((c: { eventTypeName: string }) => c.eventTypeName);
    expect(list).not.toContain('HOST_RECOVERING');
  });

  it('fails after the operation (an ambiguous write that did happen)', async () => {
    await h.admin('POST', '/faults', { method: 'POST', path: ALERTS, status: 502, phase: 'after' });
    expect((await h.owner.post(ALERTS, alertBody({ eventTypeName: 'HOST_RECOVERING' }))).status).toBe(502);
    const list = (await h.owner.get(ALERTS)).body.results.map((c: { eventTypeName: string }) => c.eventTypeName);
    expect(list).toContain('HOST_RECOVERING');
  });

  it('adds latency and then answers normally', async () => {
    // Behaviour, not timing: a client that gives up after 200 ms loses a request held 5 s, then the next one answers.
    const manifest = `${h.emu.url}/unauth/versionManifest`;
    await h.admin('POST', '/faults', { path: '/unauth/versionManifest', latencyMs: 5_000 });
    await expect(fetch(manifest, { signal: AbortSignal.timeout(200) })).rejects.toThrow(/aborted|timeout/i);
    expect([200, 404]).toContain((await fetch(manifest, { signal: AbortSignal.timeout(5_000) })).status);
    await h.admin('POST', '/faults', { path: ALERTS, latencyMs: 30 });
    expect((await h.owner.get(ALERTS)).status).toBe(200);
  });

  it('applies after authentication: a challenge is not consumed by a fault', async () => {
    await h.admin('POST', '/faults', { path: '/usage/groups', status: 500 });
    const unauth = await fetch(`${h.emu.url}/usage/groups`);
    expect(unauth.status).toBe(401);
    expect(
      (await h.as({ publicKey: 'roviewer', privateKey: '3b4c5d6e-7f80-4192-a3b4-c5d6e7f80912' }).get('/usage/groups'))
        .status,
    ).toBe(500);
  });

  it('never fires with probability 0, and DELETE clears them', async () => {
    await h.admin('POST', '/faults', { path: '/**', status: 500, probability: 0, times: 100 });
    expect((await h.owner.get(ALERTS)).status).toBe(200);
    await h.admin('POST', '/faults', { path: '/**', status: 500, times: 100 });
    expect((await h.admin('DELETE', '/faults')).body).toEqual({});
    expect((await h.owner.get(ALERTS)).status).toBe(200);
  });

  it.each([
    [{ status: 500 }, 'MISSING_ATTRIBUTE'],
    [{ path: 'groups', status: 500 }, 'INVALID_JSON_ATTRIBUTE'],
    [{ path: '/x' }, 'MISSING_ATTRIBUTE'],
    [{ path: '/x', status: 200 }, 'INVALID_JSON_ATTRIBUTE'],
    [{ path: '/x', status: 500, phase: 'during' }, 'INVALID_ENUM_VALUE'],
    [{ path: '/x', status: 500, probability: 2 }, 'INVALID_JSON_ATTRIBUTE'],
    [{ path: '/x', status: 500, colour: 'red' }, 'INVALID_ATTRIBUTE'],
    [{ path: '/x', status: 500, phase: { when: 'after' } }, 'INVALID_JSON_ATTRIBUTE'],
    [{ path: '/x', reset: false }, 'MISSING_ATTRIBUTE'],
    [{ path: '/x', latencyMs: 0 }, 'MISSING_ATTRIBUTE'],
    [null, 'INVALID_JSON'],
    [{ path: '/x', status: 500.5 }, 'INVALID_JSON_ATTRIBUTE'],
    [{ path: '/x', method: 'GE T', status: 500 }, 'INVALID_JSON_ATTRIBUTE'],
    [{ path: '/x', status: 500, reset: 'yes' }, 'INVALID_JSON_ATTRIBUTE'],
    [{ path: '/x', status: 500, errorCode: 'nope' }, 'INVALID_JSON_ATTRIBUTE'],
    [{ path: '/x', status: 500, times: 0 }, 'INVALID_JSON_ATTRIBUTE'],
    [{ path: '/x', status: 429, retryAfter: -1 }, 'INVALID_JSON_ATTRIBUTE'],
    [{ path: '/x', latencyMs: -1 }, 'INVALID_JSON_ATTRIBUTE'],
  ])('refuses fault %j', async (body, code) => {
    const res = await h.admin('POST', '/faults', body);
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe(code);
    expect(res.body.detail).not.toContain('[object Object]');
  });

  it('takes a member given as null as one left out', async () => {
    await h.admin('POST', '/faults', {
      method: 'GET',
      path: '/usage/groups',
      status: 503,
      times: null,
      latencyMs: null,
      errorCode: null,
      reset: null,
    });
    expect((await h.owner.get('/usage/groups')).body.errorCode).toBe('SERVICE_UNAVAILABLE');
    expect((await h.owner.get('/usage/groups')).status).toBe(200);
  });

  it('says which members make a fault when it has none (a fault doing nothing would only use up matches)', async () => {
    const res = await h.admin('POST', '/faults', { path: '/x', latencyMs: 0, times: 5 });
    expect(res.body).toMatchObject({
      errorCode: 'MISSING_ATTRIBUTE',
      detail: 'A fault needs at least one of status, reset: true or latencyMs above 0.',
    });
  });

  it('refuses a path written with the base, which would never match, saying what to write', async () => {
    for (const [path, rest] of [
      [`/api/public/v1.0${ALERTS}`, ALERTS],
      ['/api/public/v1.0/**', '/**'],
      ['/api/public/v1.0', '/'],
    ] as const) {
      const res = await h.admin('POST', '/faults', { path, status: 503 });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        errorCode: 'INVALID_JSON_ATTRIBUTE',
        detail: `A fault's path is matched after the base /api/public/v1.0, so this one would never match: write ${rest}.`,
      });
    }
    // A path that only starts with the same characters is another path, and so is accepted.
    expect((await h.admin('POST', '/faults', { path: '/api/public/v1.0x', status: 503 })).status).toBe(200);
    expect((await h.owner.get(ALERTS)).status).toBe(200);
  });
});

describe('api-keys', () => {
  const OLD = { publicKey: 'gitopsbt', privateKey: '7f3c2a9e-4b1d-4e8f-9a6c-1d2e3f4a5b6c' };

  it('a rotation refuses the old private key and accepts the new one; a reset brings the old one back', async () => {
    expect((await h.admin('PUT', '/api-keys/gitopsbt', { privateKey: 'rotated-key-1' })).body).toEqual({});
    expect((await h.as(OLD).get(ALERTS)).status).toBe(401);
    expect((await h.as({ ...OLD, privateKey: 'rotated-key-1' }).get(ALERTS)).status).toBe(200);
    await h.admin('POST', '/reset');
    expect((await h.as(OLD).get(ALERTS)).status).toBe(200);
  });

  it.each([
    ['an unknown key', '/api-keys/nosuchkey', { privateKey: 'k' }, 404, 'RESOURCE_NOT_FOUND'],
    ['a private key with a space', '/api-keys/gitopsbt', { privateKey: 'a b' }, 400, 'INVALID_JSON_ATTRIBUTE'],
    ['no private key', '/api-keys/gitopsbt', {}, 400, 'INVALID_JSON_ATTRIBUTE'],
  ])('refuse %s', async (_name, path, body, status, code) => {
    const res = await h.admin('PUT', path, body);
    expect([res.status, res.body.errorCode]).toEqual([status, code]);
    expect((await h.as(OLD).get(ALERTS)).status).toBe(200);
  });
});

describe('request log', () => {
  it('counts requests, challenges and routes by template', async () => {
    await h.admin('DELETE', '/requests');
    const client = h.as({ publicKey: 'gitopsbt', privateKey: '7f3c2a9e-4b1d-4e8f-9a6c-1d2e3f4a5b6c' });
    await client.get(ALERTS);
    await client.get(`/groups/${W.searchProd}/alertConfigs`);
    await client.get(`${ALERTS}/6c0100000000000000000001`);
    await client.get('/nowhere');
    const log = (await h.admin('GET', '/requests')).body;
    expect(log.total).toBe(5);
    expect(log.challenges).toBe(1);
    expect(log.byRoute).toEqual({
      'GET /groups/{groupId}/alertConfigs': 3,
      'GET /groups/{groupId}/alertConfigs/{alertConfigId}': 1,
      'GET (unmatched)': 1,
    });
    expect(log.entries[1]).toMatchObject({
      method: 'GET',
      path: ALERTS,
      route: '/groups/{groupId}/alertConfigs',
      status: 200,
      publicKey: 'gitopsbt',
      at: expect.stringMatching(/Z$/),
    });
    expect(log.entries[0]).toMatchObject({ status: 401 });
    expect(log.entries[0]).not.toHaveProperty('publicKey');
  });
});

describe('newer members (what a newer Ops Manager answers)', () => {
  const ONE = `${ALERTS}/6c0100000000000000000003`;
  const PATH = `/groups/${W.paymentsProd}/alertConfigs/6c0100000000000000000003/newer-members`;
  const MEMBERS = {
    config: { severityOverride: 'CRITICAL', metricThreshold: { scale: 'PER_SECOND' } },
    // The second entry has no notification to merge into: it adds none.
    notifications: [{ escalation: 'x' }, { escalation: 'y' }],
  };

  it('are answered on every read; a PATCH of enabled keeps them, a PUT (full replacement) resets them, reset forgets them', async () => {
    expect((await h.admin('PUT', PATH, MEMBERS)).body).toEqual({});
    const read = (await h.owner.get(ONE)).body;
    expect(read).toMatchObject({
      severityOverride: 'CRITICAL',
      metricThreshold: { scale: 'PER_SECOND', operator: 'GREATER_THAN' },
    });
    expect(read.notifications[0]).toMatchObject({ escalation: 'x', typeName: 'GROUP' });
    expect(read.notifications).toHaveLength(1);
    const listed = (await h.owner.get(ALERTS)).body.results.find(
      (c: { id: string }) => c.id === '6c0100000000000000000003',
    );
    expect(listed.severityOverride).toBe('CRITICAL');
    expect((await h.owner.patch(ONE, { enabled: false })).body.severityOverride).toBe('CRITICAL');
    const { id: _id, groupId: _g, created: _c, updated: _u, links: _l, ...rest } = read;
    const body = {
      ...rest,
      metricThreshold: { ...read.metricThreshold },
      notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'] }],
    };
    delete body.severityOverride;
    delete body.metricThreshold.scale;
    const put = await h.owner.put(ONE, body);
    expect(put.status).toBe(200);
    expect(put.body.severityOverride).toBeUndefined();
    expect(put.body.metricThreshold.scale).toBeUndefined();
    await h.admin('PUT', PATH, MEMBERS);
    await h.admin('POST', '/reset');
    expect((await h.owner.get(ONE)).body.severityOverride).toBeUndefined();
  });

  it('refuse a body that is not members, and an unknown config; the public API has no such route', async () => {
    await expect(h.admin('PUT', PATH, { config: [] })).resolves.toMatchObject({ status: 400 });
    for (const body of [null, { notifications: [1] }]) {
      await expect(h.admin('PUT', PATH, body)).resolves.toMatchObject({ status: 400 });
    }
    // A misspelt member is refused by name, not dropped (the config would silently get no newer members).
    const misspelt = await h.admin('PUT', PATH, { notification: [{ escalation: 'x' }] });
    expect([misspelt.status, misspelt.body.errorCode, misspelt.body.parameters]).toEqual([
      400,
      'INVALID_ATTRIBUTE',
      ['notification'],
    ]);
    await expect(h.admin('PUT', PATH.replace('0003/', '0009/'), MEMBERS)).resolves.toMatchObject({ status: 404 });
    expect((await h.owner.put(`${ONE}/newer-members`, MEMBERS)).status).toBe(404);
  });
});

describe('a known admin path with another method', () => {
  it.each([
    ['GET', '/faults', 'POST, DELETE'],
    ['PUT', '/reset/', 'POST'],
    ['POST', '/requests', 'GET, DELETE'],
    ['GET', '/nonces/expire', 'POST'],
    ['POST', '/api-keys/gitopsbt', 'PUT'],
    ['GET', `/groups/${W.paymentsProd}/alertConfigs/6c0100000000000000000003/newer-members`, 'PUT'],
  ])(
    '%s %s answers 405 naming the methods it has (not 404, which reads as "no admin API")',
    async (method, path, allow) => {
      const res = await h.admin(method, path);
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe(allow);
      expect(res.body.errorCode).toBe('METHOD_NOT_ALLOWED');
    },
  );
});

describe('a body past the size limit', () => {
  it('is refused with 413 and Connection: close (the rest of it is never read)', async () => {
    const emu = await startEmulator({ admin: true, maxBodyBytes: 100 });
    try {
      const body = JSON.stringify({ path: '/x', status: 500, pad: 'a'.repeat(200) });
      const answer = await new Promise<{ status?: number; connection?: string; text: string }>((resolve, reject) => {
        const req = request(`${emu.origin}/__emulator/faults`, { method: 'POST' }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode, connection: res.headers.connection, text }));
        });
        req.on('error', reject);
        // Chunked (no declared length): the emulator learns the size as it reads.
        req.write(body.slice(0, 50));
        req.end(body.slice(50));
      });
      expect(answer.status).toBe(413);
      expect(answer.connection).toBe('close');
      expect(JSON.parse(answer.text).errorCode).toBe('PAYLOAD_TOO_LARGE');
    } finally {
      await emu.close();
    }
  });
});

describe('requests from web pages', () => {
  it('are refused (403): a cross-site form POST from any page in the browser cannot reset or inject faults', async () => {
    await h.owner.delete(`${ALERTS}/6c0100000000000000000001`);
    // What a page's <form method=post enctype=text/plain> sends: a simple request, so no CORS pre-flight stops it.
    for (const [path, body] of [
      ['/reset', ''],
      ['/faults', '{"path":"/**","status":503,"times":1000}'],
    ] as const) {
      const res = await fetch(`${h.emu.origin}/__emulator${path}`, {
        method: 'POST',
        headers: { Origin: 'https://evil.example', 'Content-Type': 'text/plain' },
        body,
      });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ errorCode: 'FORBIDDEN' });
    }
    expect((await h.owner.get(`${ALERTS}/6c0100000000000000000001`)).status).toBe(404);
    expect((await h.owner.get(ALERTS)).status).toBe(200);
  });
});

describe('without admin', () => {
  it('does not exist', async () => {
    const emu = await startEmulator({});
    try {
      const res = await fetch(`${emu.origin}/__emulator/reset`, { method: 'POST' });
      expect(res.status).toBe(404);
      // Says why, so that the README's curl examples run against an emulator started without --admin are not a riddle.
      expect(await res.json()).toMatchObject({
        errorCode: 'RESOURCE_NOT_FOUND',
        detail: 'Cannot find resource /__emulator/reset: the admin API is off (start the emulator with --admin).',
      });
    } finally {
      await emu.close();
    }
  });
});
