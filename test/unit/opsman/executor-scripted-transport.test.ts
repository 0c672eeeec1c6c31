// Scenario: the executor's retry and scrub decisions on transport failures a real server cannot easily stage: a
// transport error whose text quotes the private key or a secret body field never shows it (message or cause), and a
// POST whose unsigned challenge request was reset (nothing Ops Manager could act on) is retried, not ambiguous; and
// a retry that gets its slot only after its deadline has passed is not sent.
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import type { HttpRequest } from '../../../lambdas/opsman/auth-exchange.ts';
import {
  AmbiguousWriteError,
  OpsManagerAbortedError,
  OpsManagerApiError,
  OpsManagerAuthError,
  OpsManagerResponseTooLargeError,
  OpsManagerTransportError,
  OpsManagerValidationError,
} from '../../../lambdas/opsman/index.ts';
import type { ClientOptions } from '../../../lambdas/opsman/options.ts';
import { resolveClientOptions } from '../../../lambdas/opsman/options-resolve.ts';
import { RequestExecutor } from '../../../lambdas/opsman/request-executor.ts';
import { fakeClock, recordingObserver, TEST_PRIVATE_KEY } from '../../helpers/client-fixtures.ts';

const BASE = 'http://om.test:8080/api/public/v1.0';
const WEBHOOK_SECRET = 'whsec-LEAKCANARY-scripted-0123';

type Step = { error: Error } | { status: number; headers?: Record<string, string | string[]>; text: string };

/** A dispatcher answering each request with the next scripted step; records whether each carried credentials. */
function scripted(steps: Step[]) {
  const signed: boolean[] = [];
  const dispatcher = {
    request: async (options: { headers: Record<string, string> }) => {
      signed.push(options.headers.authorization !== undefined);
      const step = steps.shift();
      if (step === undefined) throw new Error('no step left');
      if ('error' in step) throw step.error;
      return { statusCode: step.status, headers: step.headers ?? {}, body: Readable.from([Buffer.from(step.text)]) };
    },
  } as unknown as Dispatcher;
  return { dispatcher, signed };
}

function executor(dispatcher: Dispatcher, maxAttempts = 3, extra: Partial<ClientOptions> = {}): RequestExecutor {
  const options = resolveClientOptions({
    baseUrl: BASE,
    publicKey: 'pubkey',
    privateKey: TEST_PRIVATE_KEY,
    clock: fakeClock(),
    retry: { maxAttempts },
    ...extra,
  });
  return new RequestExecutor(options, dispatcher);
}

function request(method: HttpRequest['method'], body?: Record<string, unknown>): HttpRequest {
  return {
    method,
    pathTemplate: '/groups/{groupId}/alertConfigs',
    url: new URL(`${BASE}/groups/g1/alertConfigs`),
    auth: true,
    secrets: body === undefined ? [] : [WEBHOOK_SECRET],
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  };
}

const coded = (code: string, message: string) => Object.assign(new Error(message), { code });
const CHALLENGE: Step = {
  status: 401,
  headers: {
    'www-authenticate': 'Digest realm="MMS Public API", nonce="n1", algorithm=MD5, qop="auth"',
    'content-type': 'application/json',
  },
  text: '{"error":401,"errorCode":"USER_UNAUTHORIZED","detail":"no"}',
};

/** Every text of an error and its causes. */
function views(error: unknown): string {
  const out: string[] = [];
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    out.push(current.message, current.stack ?? '', JSON.stringify(current));
    current = current.cause;
  }
  return out.join('\n');
}

describe('a transport error that quotes a secret', () => {
  it('never shows the private key or a secret body field, in the message or the cause', async () => {
    const quoting = `socket hang up (sent ${TEST_PRIVATE_KEY} and ${WEBHOOK_SECRET})`;
    const { dispatcher } = scripted([CHALLENGE, { error: coded('ECONNRESET', quoting) }]);
    const error = await executor(dispatcher, 1)
      .execute(request('PUT', { webhookSecret: WEBHOOK_SECRET }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerTransportError);
    const text = views(error);
    expect(text).toContain('socket hang up');
    expect(text).not.toContain(TEST_PRIVATE_KEY);
    expect(text).not.toContain(WEBHOOK_SECRET);
  });
});

describe('a headers timeout', () => {
  it("says which wait it was and what a person can change, not undici's bare text", async () => {
    const { dispatcher } = scripted([CHALLENGE, { error: coded('UND_ERR_HEADERS_TIMEOUT', 'Headers Timeout Error') }]);
    const error = await executor(dispatcher, 1, { timeouts: { headersMs: 5_000 } })
      .execute(request('GET'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerTransportError);
    expect((error as Error).message).toBe(
      'GET /groups/{groupId}/alertConfigs: no response after 1 attempt(s): Ops Manager sent no response headers within 5 s (each attempt; request deadline 120 s, retry.deadlineMs to change)',
    );
  });
});

describe('a POST whose unsigned request was reset', () => {
  it('is retried (nothing signed left, so nothing can have been applied), not reported as ambiguous', async () => {
    const { dispatcher, signed } = scripted([
      { error: coded('ECONNRESET', 'socket hang up') },
      CHALLENGE,
      { status: 201, headers: { 'content-type': 'application/json' }, text: '{"id":"a1"}' },
    ]);
    const response = await executor(dispatcher).execute(request('POST', { eventTypeName: 'HOST_DOWN' }));
    expect(response.status).toBe(201);
    expect(signed).toEqual([false, false, true]);
  });

  it('a reset after the signed POST left is ambiguous, never retried', async () => {
    const { dispatcher, signed } = scripted([CHALLENGE, { error: coded('ECONNRESET', 'socket hang up') }]);
    const error = await executor(dispatcher)
      .execute(request('POST', { eventTypeName: 'HOST_DOWN' }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AmbiguousWriteError);
    expect(signed).toEqual([false, true]);
  });
});

describe('a retry that gets its slot at or after its deadline', () => {
  // At the deadline exactly, the attempt would have no time left: it is not sent either.
  it.each([10_000, 10_001])('is not sent %i ms after the first attempt: the last error stands', async (waited) => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const clock = {
      now: () => new Date(now),
      sleep: async (ms: number) => {
        now += ms;
      },
    };
    const sent: string[] = [];
    let releaseSlow: () => void = () => undefined;
    let slowStarted: () => void = () => undefined;
    const slowArrived = new Promise<void>((resolve) => {
      slowStarted = resolve;
    });
    const dispatcher = {
      request: async (options: { method: string }) => {
        sent.push(options.method);
        const answer = (status: number, headers: Record<string, string> = {}) => ({
          statusCode: status,
          headers: { 'content-type': 'application/json', ...headers },
          body: Readable.from([Buffer.from('{}')]),
        });
        if (options.method === 'POST') return answer(429, { 'retry-after': '0' });
        // The GET holds the only slot until the POST's deadline has passed.
        slowStarted();
        await new Promise<void>((resolve) => {
          releaseSlow = resolve;
        });
        return answer(200);
      },
    } as unknown as Dispatcher;
    const ex = executor(dispatcher, 3, { clock, maxConcurrency: 1, retry: { maxAttempts: 3, deadlineMs: 10_000 } });
    const post = ex
      .execute({ ...request('POST', { eventTypeName: 'HOST_DOWN' }), auth: false })
      .catch((e: unknown) => e);
    const get = ex.execute({ ...request('GET'), auth: false });
    await slowArrived;
    now += waited;
    releaseSlow();
    await get;
    const error = await post;
    expect(error).toBeInstanceOf(OpsManagerApiError);
    expect((error as OpsManagerApiError).status).toBe(429);
    expect(sent).toEqual(['POST', 'GET']);
  });
});

describe('a 403 from Ops Manager', () => {
  it('is an OpsManagerAuthError with its status, code and detail, not retried', async () => {
    const { dispatcher, signed } = scripted([
      CHALLENGE,
      {
        status: 403,
        headers: { 'content-type': 'application/json' },
        text: '{"error":403,"errorCode":"IP_ADDRESS_NOT_ON_ACCESS_LIST","detail":"IP address 10.0.0.1 is not allowed to access this resource.","reason":"Forbidden"}',
      },
    ]);
    const error = await executor(dispatcher)
      .execute(request('GET'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerAuthError);
    expect(error).toMatchObject({ status: 403, errorCode: 'IP_ADDRESS_NOT_ON_ACCESS_LIST' });
    expect((error as Error).message).toBe(
      'GET /groups/{groupId}/alertConfigs: Ops Manager refused the request (403 IP_ADDRESS_NOT_ON_ACCESS_LIST: IP address 10.0.0.1 is not allowed to access this resource.)',
    );
    expect(signed).toEqual([false, true]);
  });
});

describe('an oversized answer', () => {
  const tooLarge = (status: number): Step => ({
    status,
    headers: { 'content-type': 'application/json', 'content-length': '200' },
    text: '{"error":500}',
  });

  it.each([500, 503, 201])(
    'to a POST (status %i: it may have been applied) is an AmbiguousWriteError',
    async (status) => {
      const { dispatcher, signed } = scripted([CHALLENGE, tooLarge(status)]);
      const error = await executor(dispatcher, 3, { maxResponseBytes: 100 })
        .execute(request('POST', { eventTypeName: 'HOST_DOWN' }))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AmbiguousWriteError);
      expect((error as Error).cause).toBeInstanceOf(OpsManagerResponseTooLargeError);
      expect((error as Error).cause).toMatchObject({ status, announcedBytes: 200, limitBytes: 100 });
      expect(signed).toEqual([false, true]);
    },
  );

  it.each([
    ['POST', 400],
    ['PUT', 500],
  ] as const)('to a %s with status %i is the too-large error itself, not retried', async (method, status) => {
    const { dispatcher, signed } = scripted([CHALLENGE, tooLarge(status)]);
    const error = await executor(dispatcher, 3, { maxResponseBytes: 100 })
      .execute(request(method, { eventTypeName: 'HOST_DOWN' }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerResponseTooLargeError);
    expect(error).toMatchObject({ status });
    expect(signed).toEqual([false, true]);
  });
});

/** A clock whose sleeps end 5 s late (a loaded machine): a backoff due before an end time ends past it. */
function lateClock(): { now: () => Date; sleep: (ms: number) => Promise<void> } {
  let now = Date.parse('2026-01-01T00:00:00Z');
  return {
    now: () => new Date(now),
    sleep: async (ms: number) => {
      now += ms + 5_000;
    },
  };
}

describe('a write its end time stops before its retry', () => {
  it('says that an earlier attempt may have been applied (a 503 to a PUT)', async () => {
    const clock = lateClock();
    const endAt = clock.now().getTime() + 1_000;
    const { dispatcher, signed } = scripted([
      {
        status: 503,
        headers: { 'content-type': 'application/json' },
        text: '{"error":503,"errorCode":"UNEXPECTED_ERROR"}',
      },
    ]);
    const error = await executor(dispatcher, 3, { clock, random: () => 0.5 })
      .execute({
        ...request('PUT', { enabled: true }),
        auth: false,
        endBy: { at: endAt, reason: 'the run ends' },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerAbortedError);
    expect(error).toMatchObject({ sent: true });
    expect((error as Error).message).toBe(
      'PUT /groups/{groupId}/alertConfigs: stopped (the run ends) before Ops Manager answered; the write may or may not have been applied',
    );
    expect(signed).toEqual([false]);
  });
});

describe('a write its end time stops before its retry, after a reset of the signed request', () => {
  it('says that the first attempt may have been applied', async () => {
    const clock = lateClock();
    const endAt = clock.now().getTime() + 1_000;
    const { dispatcher, signed } = scripted([CHALLENGE, { error: coded('ECONNRESET', 'socket hang up') }]);
    const error = await executor(dispatcher, 3, { clock, random: () => 0.5 })
      .execute({ ...request('PUT', { enabled: true }), endBy: { at: endAt, reason: 'the run ends' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerAbortedError);
    expect(error).toMatchObject({ sent: true });
    expect(signed).toEqual([false, true]);
  });
});

describe('a closed executor', () => {
  it('refuses a request without sending it', async () => {
    const { dispatcher, signed } = scripted([CHALLENGE]);
    const ex = executor(dispatcher);
    ex.close();
    const error = await ex.execute(request('GET')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerValidationError);
    expect((error as Error).message).toBe('GET /groups/{groupId}/alertConfigs: the client is closed');
    expect(signed).toEqual([]);
  });
});

describe('a request with both stops', () => {
  it("gives the reason of the caller's signal when that one stopped it", async () => {
    const { dispatcher, signed } = scripted([CHALLENGE]);
    const signal = new AbortController();
    signal.abort('pressed Ctrl-C');
    const stopWaiting = new AbortController();
    const error = await executor(dispatcher)
      .execute({ ...request('GET'), signal: signal.signal, stopWaiting: stopWaiting.signal })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerAbortedError);
    expect((error as Error).message).toBe(
      'GET /groups/{groupId}/alertConfigs: stopped (pressed Ctrl-C) before Ops Manager answered',
    );
    expect(signed).toEqual([]);
  });
});

describe('credentials refused in the Digest exchange', () => {
  it("reach the observer with the refusal's status", async () => {
    const observer = recordingObserver();
    const { dispatcher, signed } = scripted([CHALLENGE, CHALLENGE]);
    const error = await executor(dispatcher, 3, { observer })
      .execute(request('GET'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerAuthError);
    expect(observer.events).toEqual([
      { method: 'GET', pathTemplate: '/groups/{groupId}/alertConfigs', status: 401, attempts: 1, durationMs: 0 },
    ]);
    expect(signed).toEqual([false, true]);
  });
});

describe('the credential verdict across refusals', () => {
  const ok: Step = { status: 200, headers: { 'content-type': 'application/json' }, text: '{}' };
  const roleRefusal: Step = {
    status: 401,
    headers: { 'content-type': 'application/json' },
    text: '{"error":401,"errorCode":"USER_UNAUTHORIZED","detail":"Current user is not authorized to perform this action."}',
  };

  it('a refusal of what the key may do (401 without a challenge) vouches for the key, and drops a refused nonce', async () => {
    const { dispatcher, signed } = scripted([
      CHALLENGE, // 1: wrong answer to a fresh challenge: one refusal
      CHALLENGE,
      CHALLENGE, // 2: a role refusal: the key is known
      roleRefusal,
      CHALLENGE, // 3: the cached nonce refused, then the fresh answer too: within a minute of the acceptance
      CHALLENGE,
      ok, // 4: still sent, unsigned (the refused nonce is not used again)
    ]);
    const ex = executor(dispatcher);
    const errors: unknown[] = [];
    for (let i = 0; i < 3; i++) errors.push(await ex.execute(request('GET')).catch((e: unknown) => e));
    expect(errors.map((e) => (e as OpsManagerAuthError).errorCode)).toEqual([
      'USER_UNAUTHORIZED',
      'USER_UNAUTHORIZED',
      'USER_UNAUTHORIZED',
    ]);
    expect((errors[1] as Error).message).toContain('refused the request for this API key (its roles or access)');
    expect((await ex.execute(request('GET'))).status).toBe(200);
    expect(signed).toEqual([false, true, false, true, true, true, false]);
  });

  it('a 401 to a signed request that offers no Digest challenge counts as a refusal of the key', async () => {
    const basic: Step = {
      status: 401,
      headers: { 'www-authenticate': 'Basic realm="corp-sso"', 'content-type': 'text/plain' },
      text: 'no',
    };
    const { dispatcher, signed } = scripted([CHALLENGE, basic, CHALLENGE, basic]);
    const ex = executor(dispatcher);
    for (let i = 0; i < 2; i++) {
      const error = await ex.execute(request('GET')).catch((e: unknown) => e);
      expect((error as Error).message).toContain(
        'Ops Manager refused the credentials; check publicKey and privateKey (401',
      );
    }
    const error = await ex.execute(request('GET')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerAuthError);
    expect((error as Error).message).toContain('not sent: Ops Manager refused this API key 2 times');
    expect(signed).toEqual([false, true, false, true]);
  });
});

describe('a nextnonce in a repeated Authentication-Info header', () => {
  it('is followed wherever the header lines put it', async () => {
    const authorizations: (string | undefined)[] = [];
    const steps: Step[] = [
      CHALLENGE,
      {
        status: 200,
        headers: { 'content-type': 'application/json', 'authentication-info': ['qop=auth', 'nextnonce="n2"'] },
        text: '{}',
      },
      { status: 200, headers: { 'content-type': 'application/json' }, text: '{}' },
    ];
    const dispatcher = {
      request: async (options: { headers: Record<string, string> }) => {
        authorizations.push(options.headers.authorization);
        const step = steps.shift();
        if (step === undefined || 'error' in step) throw new Error('no step left');
        return { statusCode: step.status, headers: step.headers ?? {}, body: Readable.from([Buffer.from(step.text)]) };
      },
    } as unknown as Dispatcher;
    const ex = executor(dispatcher);
    await ex.execute(request('GET'));
    await ex.execute(request('GET'));
    expect(authorizations[1]).toContain('nonce="n1"');
    expect(authorizations[2]).toContain('nonce="n2"');
    expect(authorizations[2]).toContain('nc=00000001');
  });
});
