// Scenario: across every kind of failure, no thrown error (message, stack, toString, JSON, util.inspect, causes) and no stderr output contains the private key, an Authorization header or a secret body field.
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpsManagerClient, OpsManagerError } from '../../../lambdas/opsman/index.ts';
import { scrub, secretForms } from '../../../lambdas/opsman/sanitize.ts';
import { type DigestServer, startDigestServer } from '../../helpers/client-digest-server.ts';
import { fakeClock, TEST_PRIVATE_KEY } from '../../helpers/client-fixtures.ts';

const WEBHOOK_SECRET = 'whsec-LEAKCANARY-0123456789';
const SERVICE_KEY = 'pd-service-key-LEAKCANARY';
const FORBIDDEN = [TEST_PRIVATE_KEY, WEBHOOK_SECRET, SERVICE_KEY, 'Digest username', 'response="', 'cnonce='];
const BODY = {
  eventTypeName: 'HOST_DOWN',
  notifications: [
    { typeName: 'WEBHOOK', webhookUrl: 'https://hooks.example/x', webhookSecret: WEBHOOK_SECRET },
    { typeName: 'PAGER_DUTY', serviceKey: SERVICE_KEY },
  ],
};

let server: DigestServer;
let mode = '';
beforeAll(async () => {
  server = await startDigestServer({
    password: TEST_PRIVATE_KEY,
    challenge: (nonce, stale) =>
      mode === 'malformed'
        ? `Digest realm="${TEST_PRIVATE_KEY}`
        : `Digest realm="MMS Public API", nonce="${nonce}", algorithm=MD5, qop="auth", stale=${stale}`,
    handler: (req) => {
      if (mode === 'echo') {
        return {
          status: 400,
          json: {
            error: 400,
            errorCode: 'INVALID_ATTRIBUTE',
            detail: `bad ${req.body} auth ${req.headers.authorization} key ${TEST_PRIVATE_KEY}`,
          },
        };
      }
      if (mode === 'echo-text') return { status: 502, text: `upstream said ${req.headers.authorization} ${req.body}` };
      // A proxy's page that quotes the body: the PagerDuty key starts 90 characters in, across the excerpt's cut.
      if (mode === 'echo-body')
        return { status: 400, text: `bad: ${req.body}`, headers: { 'content-type': 'text/plain' } };
      if (mode === 'echo-slashes')
        return {
          status: 400,
          json: { error: 400, errorCode: 'INVALID_JSON', detail: req.body.replaceAll('/', '\\/') },
        };
      if (mode === 'echo-encoded')
        return {
          status: 400,
          // The values quoted as a URL's query would carry them.
          json: {
            error: 400,
            errorCode: 'INVALID_ATTRIBUTE',
            detail: `rejected ?${new URLSearchParams((JSON.parse(req.body) as { notifications: Record<string, string>[] }).notifications[0]).toString().replaceAll('+', '%20')}`,
          },
        };
      if (mode === 'echo-html') {
        // A firewall's page quoting the body with every punctuation mark as a character reference (decimal and hex).
        const quoted = req.body.slice(req.body.indexOf('"webhookUrl"'));
        const html = quoted
          .replace(/[^A-Za-z0-9 ]/g, (ch) => `&#${ch.charCodeAt(0)};`)
          .replace('ESCAPED', 'ESC&#x41;PED');
        return { status: 403, text: `<html><body>${html}</body></html>`, headers: { 'content-type': 'text/html' } };
      }
      if (mode === 'echo-prefix') {
        // A validator quoting each value it refuses cut short, as Jackson and most Java validators do.
        const sent = JSON.parse(req.body) as { notifications: Record<string, string>[] };
        const quoted = sent.notifications.flatMap((n) => Object.values(n)).map((v) => `"${v.slice(0, 20)}..."`);
        return {
          status: 400,
          json: { error: 400, errorCode: 'INVALID_ATTRIBUTE', detail: `too long: ${quoted.join(', ')}` },
        };
      }
      if (mode === 'echo-decoded' || mode === 'echo-normalised') {
        // A server that parsed the URL before quoting it: percent-decoded, or as its URL parser writes it back
        // (host lower-cased, user and password left out).
        const sent = JSON.parse(req.body) as { notifications: Record<string, string>[] };
        const url = sent.notifications[0]?.webhookUrl ?? '';
        let quoted = decodeURIComponent(url);
        if (mode === 'echo-normalised') {
          const parsed = new URL(url);
          parsed.username = '';
          parsed.password = '';
          quoted = parsed.href;
        }
        return { status: 400, json: { error: 400, errorCode: 'INVALID_ATTRIBUTE', detail: `unreachable: ${quoted}` } };
      }
      if (mode === 'echo-gson' || mode === 'echo-entities') {
        // Ops Manager's detail quoting the raw body as Gson writes a string (< > & = ' as \u escapes), or with HTML's
        // character references (&amp; &quot;, as an HTML-escaping validator writes it).
        const quoted =
          mode === 'echo-gson'
            ? req.body.replace(/[<>&=']/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)
            : req.body.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');
        return { status: 400, json: { error: 400, errorCode: 'INVALID_ATTRIBUTE', detail: `rejected ${quoted}` } };
      }
      if (mode === 'reset') return 'reset';
      if (mode === 'unavailable') return { status: 503, json: { errorCode: 'X', detail: TEST_PRIVATE_KEY } };
      return { json: {} };
    },
  });
  return () => server.close();
});

function scan(label: string, error: unknown): void {
  expect(error, label).toBeInstanceOf(Error);
  const views: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth++) {
    views.push(
      String(current),
      current.stack ?? '',
      current.message,
      JSON.stringify(current),
      inspect(current, { depth: 10, showHidden: true }),
    );
    current = current.cause;
  }
  for (const view of views) for (const secret of FORBIDDEN) expect(view, `${label}: ${secret}`).not.toContain(secret);
}

const stderr: string[] = [];
const originalWrite = process.stderr.write;
beforeAll(() => {
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  return () => {
    process.stderr.write = originalWrite;
  };
});
afterAll(() => {
  for (const text of stderr) for (const secret of FORBIDDEN) expect(text).not.toContain(secret);
});

function client(overrides: Record<string, unknown> = {}) {
  return createOpsManagerClient({
    baseUrl: server.baseUrl,
    publicKey: 'pubkey',
    privateKey: TEST_PRIVATE_KEY,
    clock: fakeClock(),
    retry: { maxAttempts: 2 },
    ...overrides,
  });
}

describe('no secret in any error', () => {
  const cases: [string, string, Record<string, unknown>, (c: ReturnType<typeof client>) => Promise<unknown>][] = [
    ['wrong credentials', '', { privateKey: `${TEST_PRIVATE_KEY}-wrong` }, (c) => c.createAlertConfig('g', BODY)],
    ['server echoes body, header and key in detail', 'echo', {}, (c) => c.createAlertConfig('g', BODY)],
    ['server echoes them in a non-JSON 502', 'echo-text', {}, (c) => c.updateAlertConfig('g', 'a', BODY)],
    ['ambiguous POST after a reset', 'reset', {}, (c) => c.createAlertConfig('g', BODY)],
    ['transport error after retries', 'reset', {}, (c) => c.updateAlertConfig('g', 'a', BODY)],
    ['503 exhaustion with the key in detail', 'unavailable', {}, (c) => c.getTeam('o', 't')],
    ['malformed challenge quoting the key', 'malformed', {}, (c) => c.getTeam('o', 't')],
    [
      'connection refused',
      '',
      { baseUrl: 'http://127.0.0.1:9/api/public/v1.0' },
      (c) => c.createAlertConfig('g', BODY),
    ],
    ['TLS failure', '', { tlsToPlainServer: true }, (c) => c.getTeam('o', 't')],
  ];

  it.each(cases)('%s', async (label, serverMode, overrides, call) => {
    mode = serverMode;
    const { tlsToPlainServer, ...rest } = overrides;
    const c = client(tlsToPlainServer ? { baseUrl: server.baseUrl.replace('http:', 'https:') } : rest);
    try {
      const error = await call(c).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpsManagerError);
      scan(label, error);
    } finally {
      await c.close();
    }
  });

  it('invalid options never quote the private key', () => {
    for (const privateKey of [`${TEST_PRIVATE_KEY} with space`, `${TEST_PRIVATE_KEY}"`]) {
      let caught: unknown;
      try {
        client({ privateKey });
      } catch (error) {
        caught = error;
      }
      scan('options', caught);
    }
  });

  it('the client object itself does not show the key', () => {
    const c = client();
    expect(inspect(c, { depth: 10, showHidden: true })).not.toContain(TEST_PRIVATE_KEY);
    expect(JSON.stringify(c)).not.toContain(TEST_PRIVATE_KEY);
    return c.close();
  });

  it('a secret that a foreign excerpt cuts short is not shown in part', async () => {
    mode = 'echo-body';
    const c = client();
    const body = { eventTypeName: 'HOST_DOWN', notifications: [{ typeName: 'PAGER_DUTY', serviceKey: SERVICE_KEY }] };
    const error = await c.createAlertConfig('g', body).catch((e: unknown) => e);
    await c.close();
    expect(error).toBeInstanceOf(OpsManagerError);
    expect((error as Error).message).toContain('answered 400 without an Ops Manager error body (text/plain: "bad: {');
    // The excerpt is clipped to 100 characters: what is left of the key must not be shown either.
    scan('echo-body', error);
    expect((error as Error).message).not.toContain(SERVICE_KEY.slice(0, 6));
  });

  it('errors serialise their useful fields', async () => {
    mode = 'echo';
    const c = client();
    const error = await c.getTeam('o', 't').catch((e: unknown) => e);
    await c.close();
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({
      name: 'OpsManagerApiError',
      code: 'OPSMAN_API_ERROR',
      status: 400,
      errorCode: 'INVALID_ATTRIBUTE',
      method: 'GET',
      pathTemplate: '/orgs/{orgId}/teams/{teamId}',
    });
  });
});

describe('a secret in the form a server quotes it', () => {
  // A body quoted raw holds each secret JSON-escaped: a quote or a backslash in the secret changes its text there.
  const ESCAPED_SECRET = 'whsec-"ESCAPED\\LEAK-0123"';
  const URL_SECRET = 'https://hooks.example/T0/B1/ENCODEDLEAK?x=1&y=2';
  const SPECIAL = {
    eventTypeName: 'HOST_DOWN',
    notifications: [{ typeName: 'WEBHOOK', webhookUrl: URL_SECRET, webhookSecret: ESCAPED_SECRET }],
  };
  const FRAGMENTS = ['ESCAPED', 'ENCODEDLEAK'];

  it.each([
    ['Ops Manager detail quoting the raw body', 'echo'],
    ['non-JSON 502 quoting the raw body', 'echo-text'],
    ['JSON-escaped with escaped slashes', 'echo-slashes'],
    ['percent-encoded', 'echo-encoded'],
    ['an HTML page with numeric character references', 'echo-html'],
  ])('%s', async (_label, serverMode) => {
    mode = serverMode;
    const c = client();
    const error = await c.createAlertConfig('g', SPECIAL).catch((e: unknown) => e);
    await c.close();
    expect(error).toBeInstanceOf(OpsManagerError);
    scan(serverMode, error);
    const views = [String(error), (error as Error).stack ?? '', inspect(error, { depth: 10, showHidden: true })];
    for (const view of views) for (const fragment of FRAGMENTS) expect(view, fragment).not.toContain(fragment);
  });
});

describe('a secret a server quotes with some of its characters escaped', () => {
  // Each secret's tail, past its first escaped character, is what a cut-short match alone would leave in view.
  const URL_SECRET = 'https://hooks.example/T0/B1?sig=abcdef0123456789&token=QUERYLEAK-0123';
  const WEBHOOK = "whsec=x&TAILLEAK<'0123'>";
  const BODY_ESCAPED = {
    eventTypeName: 'HOST_DOWN',
    notifications: [{ typeName: 'WEBHOOK', webhookUrl: URL_SECRET, webhookSecret: WEBHOOK }],
  };

  it.each([
    ['as Gson writes a string (\\u003d for =)', 'echo-gson'],
    ['with HTML character references (&amp;)', 'echo-entities'],
  ])('%s is redacted whole', async (_label, serverMode) => {
    mode = serverMode;
    const c = client();
    const error = await c.createAlertConfig('g', BODY_ESCAPED).catch((e: unknown) => e);
    await c.close();
    expect(error).toBeInstanceOf(OpsManagerError);
    scan(serverMode, error);
    const views = [String(error), (error as Error).stack ?? '', inspect(error, { depth: 10, showHidden: true })];
    for (const view of views) {
      for (const fragment of ['QUERYLEAK', 'TAILLEAK', 'abcdef0123456789']) expect(view).not.toContain(fragment);
    }
    // The rest of the quoted body is still shown.
    expect(String(error)).toContain('WEBHOOK');
  });

  it('maps a match back through escapes of one and of two UTF-16 units, and leaves unescaped text as it is', () => {
    const secret = 'tok=\u{1F511}&LEAK-0123';
    const escaped = 'tok\\u003d&#x1F511;&amp;LEAK-0123';
    expect(scrub(`a %41 &amp; \\u0041 b ${escaped} c &#0; d`, [secret])).toBe(
      'a %41 &amp; \\u0041 b [REDACTED] c &#0; d',
    );
    // Cut short: redacted once its decoded text reaches twelve characters, not before.
    expect(scrub(`cut ${escaped.slice(0, 30)} end`, [secret])).toBe('cut [REDACTED] end');
    expect(scrub(`cut ${escaped.slice(0, 24)} end`, [secret])).toBe(`cut ${escaped.slice(0, 24)} end`);
  });
});

describe('a secret a server quotes cut short', () => {
  it('is redacted from its twelfth character on, never shown in part', async () => {
    mode = 'echo-prefix';
    const long = {
      typeName: 'WEBHOOK',
      webhookUrl: 'https://hooks.example/x',
      webhookSecret: `PARTIALLEAK-${'0'.repeat(300)}`,
    };
    const c = client();
    const error = await c
      .createAlertConfig('g', { eventTypeName: 'HOST_DOWN', notifications: [long] })
      .catch((e: unknown) => e);
    await c.close();
    expect(error).toBeInstanceOf(OpsManagerError);
    const views = [String(error), (error as Error).stack ?? '', inspect(error, { depth: 10, showHidden: true })];
    for (const view of views) expect(view).not.toContain('PARTIALLEAK');
    // The refusal itself is still told: only the quoted secrets are gone. The webhook URL cut within its host shows
    // no more than Ops Manager's own redaction keeps (scheme and host): it stays.
    expect(String(error)).toContain('too long: "WEBHOOK...", "https://hooks.exampl...", "[REDACTED]..."');
  });
});

describe('a secret URL a server quotes as it parsed it', () => {
  const URL_SECRET = 'https://bot:USERINFOLEAK@Hooks.Example/T0/B1/DECODED%2FLEAK%20X?x=1';
  it.each([
    ['percent-decoded', 'echo-decoded', 'DECODED/LEAK X'],
    ['normalised without its user and password', 'echo-normalised', 'DECODED%2FLEAK%20X'],
  ])('%s', async (_label, serverMode, fragment) => {
    mode = serverMode;
    const c = client();
    const body = { eventTypeName: 'HOST_DOWN', notifications: [{ typeName: 'WEBHOOK', webhookUrl: URL_SECRET }] };
    const error = await c.createAlertConfig('g', body).catch((e: unknown) => e);
    await c.close();
    expect(error).toBeInstanceOf(OpsManagerError);
    const views = [String(error), (error as Error).stack ?? '', inspect(error, { depth: 10, showHidden: true })];
    for (const view of views) {
      expect(view).not.toContain('LEAK');
      expect(view).not.toContain(fragment);
    }
    expect(String(error)).toContain('unreachable: [REDACTED]');
  });
});

describe('the forms of a secret scrub() looks for', () => {
  it('never a decoded form as short as ordinary text, and a form-encoded one with its "+" as a space', () => {
    // `%41%42%43` decodes to `ABC`: scrubbing that would hit every "ABC" of a message.
    expect(secretForms('%41%42%43')).not.toContain('ABC');
    expect(scrub('ABC failed', ['%41%42%43'])).toBe('ABC failed');
    // A server that decoded a form field shows `a+b%21` as `a b!`.
    expect(scrub('rejected: token a b!cdef', ['a+b%21cdef'])).toBe('rejected: token [REDACTED]');
  });
});
