// Scenario: the pure retry decisions: transport errors classified by code, Retry-After parsed in both forms, and full-jitter backoff bounded by its caps.
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_OPTIONS } from '../../../lambdas/opsman/index.ts';
import { ProxyTunnelClosedError } from '../../../lambdas/opsman/proxy-tunnel.ts';
import {
  backoffDelay,
  classifyTransportError,
  IDEMPOTENT_METHODS,
  parseRetryAfter,
} from '../../../lambdas/opsman/retry-policy.ts';
import { scrub } from '../../../lambdas/opsman/sanitize.ts';

const withCode = (code: string, cause?: unknown) => Object.assign(new Error(code, { cause }), { code });

describe('classifyTransportError', () => {
  it.each([
    [withCode('ECONNREFUSED'), 'not-sent'],
    [withCode('ENOTFOUND'), 'not-sent'],
    [withCode('UND_ERR_CONNECT_TIMEOUT'), 'not-sent'],
    [withCode('UND_ERR_SOCKET'), 'maybe-sent'],
    [withCode('ECONNRESET'), 'maybe-sent'],
    [withCode('UND_ERR_HEADERS_TIMEOUT'), 'maybe-sent'],
    [withCode('UND_ERR_BODY_TIMEOUT'), 'maybe-sent'],
    [withCode('OPSMAN_DEADLINE_EXCEEDED'), 'maybe-sent'],
    [withCode('DEPTH_ZERO_SELF_SIGNED_CERT'), 'tls'],
    [withCode('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), 'tls'],
    [withCode('ERR_TLS_CERT_ALTNAME_INVALID'), 'tls'],
    [withCode('UND_ERR', withCode('ECONNREFUSED')), 'not-sent'],
    // A proxy that dropped CONNECT: no tunnel, so nothing reached Ops Manager (a signed POST through it is retried).
    [new ProxyTunnelClosedError('proxy closed'), 'not-sent'],
    [withCode('UND_ERR', new ProxyTunnelClosedError('proxy closed')), 'not-sent'],
    [new Error('no code'), 'maybe-sent'],
    ['a string', 'maybe-sent'],
  ])('%s -> %s', (error, kind) => {
    expect(classifyTransportError(error)).toBe(kind);
  });
});

describe('IDEMPOTENT_METHODS', () => {
  it('never holds POST: a POST whose answer was lost may have created something', () => {
    expect([...IDEMPOTENT_METHODS].sort()).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH', 'PUT']);
  });
});

describe('parseRetryAfter', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  it.each([
    [undefined, null],
    ['', null],
    ['0', 0],
    ['12', 12_000],
    [['5', '9'], 5000],
    ['Thu, 01 Jan 2026 00:00:30 GMT', 30_000],
    ['Wed, 31 Dec 2025 23:59:00 GMT', 0],
    ['soon', null],
    ['-3', null],
    ['1.5', null],
    ['+5', null],
    // RFC 9110 section 5.6.7: a recipient MUST accept the obsolete RFC 850 and asctime forms too; all three are GMT.
    ['Thursday, 01-Jan-26 00:00:30 GMT', 30_000],
    ['Thu Jan  1 00:00:30 2026', 30_000],
    ['Thu Jan 11 00:00:00 2026', 864_000_000],
    ['Thu, 1 Jan 2026 00:00:30 GMT', 30_000],
    // Not an HTTP-date: ignored (the client's own backoff then), never read as "retry at once".
    ['Mon, 1', null],
    ['Sun, 99', null],
    ['Thu, 01 Jan 2026 00:00:30', null],
    ['Thu, 01 Jan 2026 00:00:30 PST', null],
    ['Sat, 31 Feb 2026 00:00:00 GMT', null],
    ['Thu, 01 Jan 2026 24:00:00 GMT', null],
    ['Thu, 01 Jan 2026 00:00:30 GMT, Thu, 01 Jan 2026 00:00:40 GMT', null],
  ])('%j -> %j', (value, expected) => {
    expect(parseRetryAfter(value as string | string[] | undefined, now)).toBe(expected);
  });

  it('reads an asctime date as GMT whatever the local time zone', () => {
    const saved = process.env.TZ;
    try {
      for (const zone of ['America/St_Johns', 'Pacific/Kiritimati']) {
        process.env.TZ = zone;
        expect(parseRetryAfter('Thu Jan  1 00:00:30 2026', now)).toBe(30_000);
      }
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  it('reads a two-digit RFC 850 year as at most 50 years ahead (RFC 9110 section 5.6.7)', () => {
    // 2026 + 50 = 2076: "75" is 2075, "77" is 1977 (in the past, so no wait).
    expect(parseRetryAfter('Wednesday, 01-Jan-75 00:00:00 GMT', now)).toBe(Date.UTC(2075, 0, 1) - now.getTime());
    expect(parseRetryAfter('Saturday, 01-Jan-77 00:00:00 GMT', now)).toBe(0);
  });

  it('caps an absurdly far date or a huge delta at maxRetryAfterMs, never a month-long sleep', () => {
    const options = { ...DEFAULT_RETRY_OPTIONS };
    for (const value of ['Fri, 31 Dec 9999 23:59:59 GMT', '2592000', '9'.repeat(400)]) {
      const ms = parseRetryAfter(value, now);
      expect(ms).not.toBeNull();
      expect(backoffDelay(1, ms, options, () => 0.5)).toBe(options.maxRetryAfterMs);
    }
  });
});

describe('backoffDelay', () => {
  const options = { ...DEFAULT_RETRY_OPTIONS, baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 5000 };
  it.each([
    [1, null, 0.999, 99],
    [2, null, 0.5, 100],
    [4, null, 1 - 1e-9, 799],
    [10, null, 1 - 1e-9, 999],
    [3, null, 0, 0],
    [1, 2000, 0.5, 2000],
    [1, 60_000, 0.5, 5000],
  ])('attempt %i, Retry-After %j, random %f -> %i ms', (attempt, retryAfter, random, expected) => {
    expect(backoffDelay(attempt, retryAfter, options, () => random)).toBe(expected);
  });
});

describe('scrub', () => {
  it.each([
    ['key k3y-secret here', ['k3y-secret'], 'key [REDACTED] here'],
    ['auth Digest username="a", response="b"', [], 'auth Digest [REDACTED]'],
    ['Basic dXNlcjpwYXNzd29yZA==', [], 'Basic [REDACTED]'],
    ['Digest realm="r" is a challenge, kept', [], 'Digest realm="r" is a challenge, kept'],
    // One secret inside another: the longer goes first whatever the order given, or its ends would be left in view.
    ['token tokenABCDEFGH123456 here', ['ABCDEFGH', 'tokenABCDEFGH123456'], 'token [REDACTED] here'],
  ])('%s', (text, secrets, expected) => {
    expect(scrub(text, secrets)).toBe(expected);
  });

  // A secret URL's scheme and host are no secret: a URL that shares only them (Ops Manager on the same network) stays
  // readable, while a quote of the secret cut short past its host is still redacted.
  it('redacts a cut-short URL only past its host, never another URL of the same host', () => {
    const hook = 'http://10.0.1.5:8080/hooks/T0123456789abcdef';
    expect(scrub('GET http://10.0.1.5:8080/api/public/v1.0/groups failed', [hook])).toBe(
      'GET http://10.0.1.5:8080/api/public/v1.0/groups failed',
    );
    expect(scrub('invalid url "http://10.0.1.5:8080/hooks/T0123..."', [hook])).toBe('invalid url "[REDACTED]..."');
    // A password in the URL is secret from the start: its cut-short quote goes too.
    expect(scrub('"https://user:p4ssw0rd-long@h..."', ['https://user:p4ssw0rd-long@hooks.example/x'])).toBe(
      '"[REDACTED]..."',
    );
  });
});
