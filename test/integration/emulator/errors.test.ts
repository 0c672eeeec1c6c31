// Scenario: every bad-input class over HTTP returns the five-field body with its documented code; unknown routes 404,
// wrong methods 405, oversized bodies 413, compressed bodies 415; malformed traffic never kills the server and never
// leaks a stack trace.
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  alertBody,
  digestHeader,
  type EmulatorHarness,
  K,
  parseChallenge,
  startHarness,
  W,
} from '../../helpers/emulator-client.ts';

let h: EmulatorHarness;
beforeAll(async () => {
  h = await startHarness({ maxBodyBytes: 64 * 1024 });
});
afterAll(async () => {
  await h.emu.close();
});

const ALERTS = `/groups/${W.paymentsProd}/alertConfigs`;
const FIVE = ['detail', 'error', 'errorCode', 'parameters', 'reason'];

describe('bad input', () => {
  it.each([
    ['malformed JSON', '{"eventTypeName":', 'INVALID_JSON', []],
    ['an empty body', '', 'INVALID_JSON', []],
    ['a JSON array', '[]', 'INVALID_JSON', []],
    ['a wrong type', JSON.stringify(alertBody({ matchers: 'all' })), 'INVALID_JSON_ATTRIBUTE', ['matchers']],
    ['an unknown field', JSON.stringify(alertBody({ severity: 'high' })), 'INVALID_ATTRIBUTE', ['severity']],
    ['a missing field', JSON.stringify({ notifications: [] }), 'MISSING_ATTRIBUTE', ['eventTypeName']],
    [
      'a bad enum',
      JSON.stringify(alertBody({ eventTypeName: 'LUNAR_ECLIPSE' })),
      'INVALID_ENUM_VALUE',
      ['LUNAR_ECLIPSE', 'eventTypeName'],
    ],
    ['no notifications', JSON.stringify(alertBody({ notifications: [] })), 'MISSING_NOTIFICATIONS', []],
    [
      'a short interval',
      JSON.stringify(
        alertBody({ notifications: [{ typeName: 'EMAIL', emailAddress: 'a@b.example', intervalMin: 1 }] }),
      ),
      'NOTIFICATION_INTERVAL_OUT_OF_RANGE',
      [],
    ],
    [
      'a metric alert without threshold',
      JSON.stringify(alertBody({ eventTypeName: 'OUTSIDE_METRIC_THRESHOLD' })),
      'MISSING_METRIC_THRESHOLD',
      ['OUTSIDE_METRIC_THRESHOLD'],
    ],
    [
      'a required notification field missing',
      JSON.stringify(alertBody({ notifications: [{ typeName: 'PAGER_DUTY' }] })),
      'MISSING_ATTRIBUTE',
      ['notifications[0].serviceKey'],
    ],
  ])('%s', async (_name, raw, code, parameters) => {
    const res = await h.owner.request('POST', ALERTS, undefined, raw);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body).sort()).toEqual(FIVE);
    expect(res.body).toMatchObject({ error: 400, errorCode: code, parameters, reason: 'Bad Request' });
  });

  it('answers unknown ids with their own codes', async () => {
    expect((await h.owner.get(`/groups/${W.missing}/events`)).body.errorCode).toBe('GROUP_NOT_FOUND');
    expect((await h.owner.get(`/orgs/${W.missing}/events`)).body.errorCode).toBe('ORG_NOT_FOUND');
    expect((await h.owner.get(`${ALERTS}/${W.missing}`)).body).toEqual({
      detail: `No alert configuration with ID ${W.missing} exists in group ${W.paymentsProd}.`,
      error: 404,
      errorCode: 'ALERT_CONFIG_NOT_FOUND',
      parameters: [W.missing, W.paymentsProd],
      reason: 'Not Found',
    });
    expect((await h.owner.get(`/groups/${W.paymentsProd}/events/${W.missing}`)).body.errorCode).toBe(
      'RESOURCE_NOT_FOUND',
    );
  });
});

describe('routes and methods', () => {
  it('answers an unknown route with 404 RESOURCE_NOT_FOUND', async () => {
    const res = await h.owner.get('/groups/x/alertConfigs/y/z');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      errorCode: 'RESOURCE_NOT_FOUND',
      parameters: ['/api/public/v1.0/groups/x/alertConfigs/y/z'],
    });
    expect((await fetch(`${h.emu.origin}/elsewhere`)).status).toBe(404);
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const res = await h.owner.request('POST', `/groups/${W.paymentsProd}/events`, {});
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect(res.body).toMatchObject({ error: 405, errorCode: 'METHOD_NOT_ALLOWED', reason: 'Method Not Allowed' });
    const several = await h.owner.request('PATCH', '/usage/groups/6e0000000000000000000001', {});
    expect(several.headers.get('allow')).toBe('GET, HEAD, PUT, DELETE');
  });

  it('never serves the admin API under the public base', async () => {
    expect((await h.owner.request('POST', '/__emulator/reset')).status).toBe(404);
  });
});

describe('oversized bodies', () => {
  it('answers 413 and keeps serving', async () => {
    const big = JSON.stringify(alertBody({ pad: 'x'.repeat(70 * 1024) }));
    const res = await h.owner.request('POST', ALERTS, undefined, big);
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ error: 413, errorCode: 'PAYLOAD_TOO_LARGE', reason: 'Payload Too Large' });
    expect((await h.owner.get(ALERTS)).status).toBe(200);
  });
});

describe('content codings', () => {
  /** POSTs `body` to the alert configs with this Content-Encoding, answering the Digest challenge once. */
  async function postEncoded(encoding: string, body: Uint8Array | string) {
    const first = await fetch(`${h.emu.url}${ALERTS}`);
    const nonce = parseChallenge(first.headers.get('www-authenticate')).nonce ?? '';
    const authorization = digestHeader(K.owner, 'POST', `/api/public/v1.0${ALERTS}`, nonce, '00000001');
    const res = await fetch(`${h.emu.url}${ALERTS}`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json', 'content-encoding': encoding },
      body,
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  }

  const count = async () => ((await h.owner.get(ALERTS)).body as { totalCount: number }).totalCount;

  it.each([
    ['gzip', 'gzip'],
    ['deflate', 'deflate'],
    ['GZIP', 'gzip'],
    ['identity, gzip', 'gzip'],
  ])('refuses a body with Content-Encoding %s with 415, storing nothing', async (encoding, named) => {
    const before = await count();
    const res = await postEncoded(encoding, gzipSync(JSON.stringify(alertBody())));
    expect(res.status).toBe(415);
    expect(res.headers.get('accept-encoding')).toBe('identity');
    expect(Object.keys(res.body).sort()).toEqual(FIVE);
    expect(res.body).toMatchObject({
      error: 415,
      errorCode: 'UNSUPPORTED_CONTENT_ENCODING',
      parameters: [named],
      reason: 'Unsupported Media Type',
    });
    expect(await count()).toBe(before);
  });

  it('accepts the identity coding', async () => {
    const res = await postEncoded('identity', JSON.stringify(alertBody()));
    expect(res.status).toBe(200);
    expect((await h.owner.delete(`${ALERTS}/${String(res.body.id)}`)).status).toBe(200);
  });
});

function raw(bytes: string, closeAfterMs = 300): Promise<string> {
  return new Promise((resolve) => {
    const url = new URL(h.emu.origin);
    const socket = connect(Number(url.port), url.hostname);
    let out = '';
    socket.on('data', (d) => {
      out += d.toString('latin1');
    });
    socket.on('error', () => resolve(out));
    socket.on('close', () => resolve(out));
    socket.write(bytes);
    setTimeout(() => socket.destroy(), closeAfterMs);
  });
}

describe('malformed traffic', () => {
  it.each([
    ['a garbage request line', 'HELLO\r\n\r\n'],
    ['a bad header', 'GET /api/public/v1.0/groups HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'],
    [
      'a truncated body',
      'POST /api/public/v1.0/unauth/versionManifest HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"a',
    ],
    ['a bad percent-encoding', 'GET /api/public/v1.0/groups/%E0%A4%A/alertConfigs HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['an odd method', 'BREW /api/public/v1.0/unauth/versionManifest HTTP/1.1\r\nHost: x\r\n\r\n'],
    [
      'a garbage Digest header',
      'GET /api/public/v1.0/groups HTTP/1.1\r\nHost: x\r\nAuthorization: Digest ,,,="\r\n\r\n',
    ],
    ['binary noise', '\u0000\u00ff\u0001\u0002\r\n\r\n\r\n'],
  ])('survives %s without a stack trace', async (_name, bytes) => {
    const out = await raw(bytes);
    expect(out).not.toMatch(/\bat .*\(.*:\d+:\d+\)/);
    expect(out).not.toContain('Error:');
    expect((await h.owner.get(ALERTS)).status).toBe(200);
  });

  it('rejects a bad percent-encoding with 404 after authentication', async () => {
    const res = await h.owner.get('/groups/%E0%A4%A/alertConfigs');
    expect(res.status).toBe(404);
  });
});
