// Scenario: an error answered without Ops Manager's error JSON (a proxy's HTML 404, another server, a wrong base URL path) says which URL answered, what it sent (content type and a short safe excerpt) and what to check, instead of an empty detail; Ops Manager's own errors keep theirs.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseErrorBody } from '../../../lambdas/opsman/error-body.ts';
import {
  foreignAnswer,
  foreignDetail,
  MAX_EXCERPT,
  withUnknownPathHint,
} from '../../../lambdas/opsman/foreign-answer.ts';
import { createOpsManagerClient, OpsManagerApiError } from '../../../lambdas/opsman/index.ts';
import { TEST_PRIVATE_KEY } from '../../helpers/client-fixtures.ts';

const NGINX_404 =
  '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n';
const OM_404 = JSON.stringify({
  detail: 'No group with ID 5e2211c17a3e5a48f5497de9 exists.',
  error: 404,
  errorCode: 'GROUP_NOT_FOUND',
  parameters: ['5e2211c17a3e5a48f5497de9'],
  reason: 'Not Found',
});
const CLI = { baseUrl: '--base-url' };
const response = (text: string, contentType?: string) => ({
  status: 404,
  headers: contentType === undefined ? {} : { 'content-type': contentType },
  text,
});

describe('parseErrorBody: is it Ops Manager speaking?', () => {
  it.each([
    ['Ops Manager error JSON', OM_404, true],
    ['error and reason without a code', '{"error":404,"reason":"Not Found"}', true],
    ['an HTML page', NGINX_404, false],
    ['an empty body', '', false],
    ['some other JSON (Spring)', '{"timestamp":"x","status":404,"error":"Not Found","path":"/x"}', false],
    ['plain text', 'Not Found', false],
  ])('%s -> %s', (_name, text, expected) => {
    expect(parseErrorBody(text, 404).fromOpsManager).toBe(expected);
  });
});

describe('foreignAnswer: a safe excerpt', () => {
  it.each([
    ['an HTML page: its title', NGINX_404, 'text/html; charset=utf-8', 'text/html', '404 Not Found'],
    [
      'an HTML page without a title: its text, scripts left out, entities decoded',
      '<body><script>var key="x";</script><p>Gateway &amp; proxy:&nbsp;no route</p></body>',
      'text/html',
      'text/html',
      'Gateway & proxy: no route',
    ],
    ['plain text', 'no such path\n', 'text/plain', 'text/plain', 'no such path'],
    ['no content type, no body', '', undefined, 'no content type', ''],
    ['control characters are dropped', 'bad\u001b[31m red\u0007', 'text/plain', 'text/plain', 'bad [31m red'],
    [
      'an HTML page with an empty title: its text',
      '<html><head><title> </title></head><body>Service Unavailable</body></html>',
      'text/html',
      'text/html',
      'Service Unavailable',
    ],
    [
      'an HTML page sent without a content type: still its title',
      NGINX_404,
      undefined,
      'no content type',
      '404 Not Found',
    ],
    [
      'numeric character references decoded (hex and decimal)',
      'path&#x2F;to&#47;x &#0; end',
      'text/plain',
      'text/plain',
      'path/to/x end',
    ],
  ])('%s', (_name, text, type, contentType, excerpt) => {
    expect(foreignAnswer(response(text, type), [])).toEqual({ contentType, excerpt });
  });

  it('is clipped and scrubbed of the request secrets', () => {
    const long = foreignAnswer(response(`${'x'.repeat(300)}`, 'text/plain'), []);
    expect(long.excerpt).toHaveLength(MAX_EXCERPT);
    expect(long.excerpt.endsWith('...')).toBe(true);
    expect(foreignAnswer(response(`echo: ${TEST_PRIVATE_KEY}`, 'text/plain'), [TEST_PRIVATE_KEY]).excerpt).toBe(
      'echo: [REDACTED]',
    );
  });

  it('scrubs the secrets from a Location header too', () => {
    const answer = foreignAnswer(
      { status: 302, headers: { location: `https://sso.example/login/${TEST_PRIVATE_KEY}?next=x` }, text: '' },
      [TEST_PRIVATE_KEY],
    );
    expect(answer.location).toBe('https://sso.example/login/[REDACTED]?next=x');
  });

  it('never shows the start of a secret that the clip cuts through', () => {
    const cut = `${'x'.repeat(MAX_EXCERPT - 20)} ${TEST_PRIVATE_KEY}`;
    const { excerpt } = foreignAnswer(response(cut, 'text/plain'), [TEST_PRIVATE_KEY]);
    expect(excerpt).toBe(`${'x'.repeat(MAX_EXCERPT - 20)} [REDACTED]`);
    const detail = parseErrorBody(
      JSON.stringify({ errorCode: 'INVALID_JSON', detail: `${'y'.repeat(480)} ${TEST_PRIVATE_KEY}` }),
      400,
      [TEST_PRIVATE_KEY],
    ).detail;
    expect(detail).not.toContain(TEST_PRIVATE_KEY.slice(0, 6));
    expect(detail.endsWith(' [REDACTED]')).toBe(true);
  });
});

describe('foreignDetail and the base URL hints', () => {
  const url = new URL(
    'https://proxy.example:8443/om/api/public/v1.0/groups/g1/alertConfigs?pageNum=1&itemsPerPage=500',
  );

  it('404: which URL (without its query), what answered, check --base-url', () => {
    expect(foreignDetail(404, url, { contentType: 'text/html', excerpt: '404 Not Found' }, CLI)).toBe(
      'https://proxy.example:8443/om/api/public/v1.0/groups/g1/alertConfigs answered 404 without an Ops Manager error body (text/html: "404 Not Found"); ' +
        "check --base-url: it must be Ops Manager's Public API root (https://host:port/api/public/v1.0), and a proxy in front of Ops Manager must pass that path on",
    );
  });

  it.each([
    [400, 'The plain HTTP request was sent to HTTPS port', /speaks HTTPS on that port: write https:\/\/ in --base-url/],
    [502, 'Bad Gateway', /a proxy or load balancer answered for Ops Manager, which may be down/],
    [500, '', /\(text\/html, empty\); something other than Ops Manager answered/],
    [405, 'Method Not Allowed', /; check --base-url: it must be Ops Manager's Public API root/],
    [300, 'Multiple Choices', /; a redirect without a usable Location, which the client does not follow/],
  ])('%i %s', (status, excerpt, hint) => {
    expect(foreignDetail(status, url, { contentType: 'text/html', excerpt }, CLI)).toMatch(hint);
  });

  it('405 to a write: a proxy or firewall that does not pass the method on, the base URL only after', () => {
    expect(foreignDetail(405, url, { contentType: 'text/html', excerpt: 'Method Not Allowed' }, CLI, 'PATCH')).toMatch(
      /\(text\/html: "Method Not Allowed"\); the server, or a proxy in front of Ops Manager, does not allow PATCH there: it must pass PATCH on to Ops Manager \(else check --base-url: /,
    );
  });

  it('a status other than 405 to a write keeps its own hint: a 404 to a PUT is the base URL, not the method', () => {
    const detail = foreignDetail(404, url, { contentType: 'text/html', excerpt: '404 Not Found' }, CLI, 'PUT');
    expect(detail).toMatch(/; check --base-url: it must be Ops Manager's Public API root/);
    expect(detail).not.toContain('does not allow');
  });

  it("Ops Manager's own 404 for a path outside its API hints at the base URL; a missing object does not", () => {
    const outside = 'Cannot find resource /om/api/public/v1.0/groups/g1/alertConfigs.';
    expect(withUnknownPathHint(404, 'RESOURCE_NOT_FOUND', outside, CLI)).toMatch(
      /^Cannot find resource \/om\/api\/public\/v1\.0\/groups\/g1\/alertConfigs; check --base-url: /,
    );
    const team = 'Cannot find resource /api/public/v1.0/orgs/o1/teams/t1.';
    expect(withUnknownPathHint(404, 'RESOURCE_NOT_FOUND', team, CLI)).toBe(team);
    expect(withUnknownPathHint(404, 'GROUP_NOT_FOUND', 'No group with ID x exists.', CLI)).toBe(
      'No group with ID x exists.',
    );
    // Only RESOURCE_NOT_FOUND names a path: another code's detail is kept whatever it says.
    expect(withUnknownPathHint(404, 'ALERT_CONFIG_NOT_FOUND', outside, CLI)).toBe(outside);
  });
});

describe('through the client, over HTTP', () => {
  let server: Server;
  let base: string;
  let body = NGINX_404;
  let status = 404;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      const json = body.startsWith('{');
      res.writeHead(status, { 'content-type': json ? 'application/json' : 'text/html' }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/om/api/public/v1.0`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  async function errorOf(
    call: (client: ReturnType<typeof createOpsManagerClient>) => Promise<unknown> = (client) =>
      client.listAlertConfigs('5e2211c17a3e5a48f5497de3'),
  ): Promise<OpsManagerApiError> {
    const client = createOpsManagerClient({
      baseUrl: base,
      publicKey: 'pubkey',
      privateKey: TEST_PRIVATE_KEY,
      settingNames: { baseUrl: '--base-url' },
    });
    try {
      const error = await call(client).catch((e: unknown) => e);
      if (!(error instanceof OpsManagerApiError)) throw new Error(`expected an API error, got ${String(error)}`);
      return error;
    } finally {
      await client.close();
    }
  }

  it("a proxy's HTML 404: not from Ops Manager, with the URL, the excerpt and the hint", async () => {
    body = NGINX_404;
    status = 404;
    const error = await errorOf();
    expect(error).toMatchObject({ status: 404, errorCode: 'HTTP_404', fromOpsManager: false });
    expect(error.message).toBe(
      `GET /groups/{groupId}/alertConfigs failed: 404 HTTP_404: ${base}/groups/5e2211c17a3e5a48f5497de3/alertConfigs answered 404 without an Ops Manager error body (text/html: "404 Not Found"); ` +
        "check --base-url: it must be Ops Manager's Public API root (https://host:port/api/public/v1.0), and a proxy in front of Ops Manager must pass that path on",
    );
  });

  it("Ops Manager's own 404 keeps its code and detail", async () => {
    body = OM_404;
    status = 404;
    const error = await errorOf();
    expect(error).toMatchObject({ errorCode: 'GROUP_NOT_FOUND', fromOpsManager: true });
    expect(error.detail).toBe('No group with ID 5e2211c17a3e5a48f5497de9 exists.');
  });

  it("a proxy's 405 to a PATCH names the method it must pass on", async () => {
    body = '<html><head><title>405 Not Allowed</title></head><body>405 Not Allowed</body></html>';
    status = 405;
    const error = await errorOf((client) => client.setAlertConfigEnabled('5e2211c17a3e5a48f5497de3', 'a1', false));
    expect(error).toMatchObject({ status: 405, fromOpsManager: false });
    expect(error.message).toContain(
      'the server, or a proxy in front of Ops Manager, does not allow PATCH there: it must pass PATCH on to Ops Manager',
    );
  });
});
