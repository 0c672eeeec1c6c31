// Scenario: which body fields hold secrets (every one of them is scrubbed from what a server says back), and a secret
// with a quote or a backslash, quoted back JSON-escaped in a raw request body, is still redacted; and a library that
// throws a bare value (not an Error) quoting a secret has it scrubbed too.
import { describe, expect, it } from 'vitest';
import { collectSecretValues, sanitizeCause, scrub } from '../../../lambdas/opsman/sanitize.ts';

describe('collectSecretValues', () => {
  it.each(['awsSecretKey', 'awsAccessKey', 'privateKey', 'password', 'secret'])('collects %s', (field) => {
    const value = `${field}-value-LEAKCANARY`;
    expect(collectSecretValues({ nested: [{ [field]: value, other: 'plain-text-value' }] })).toEqual([value]);
  });
});

describe('a secret quoted back JSON-escaped', () => {
  it.each([
    // With a slash too: JSON.stringify leaves it as it is, so only the plain JSON-escaped form is in the text.
    ['a quote and a slash', 'pd"key/LEAKCANARY-0123'],
    ['a backslash and a slash', 'pd\\key/LEAKCANARY-0123'],
  ])('with %s is redacted', (_, secret) => {
    const body = JSON.stringify({ serviceKey: secret });
    const said = scrub(`could not parse ${body}`, [secret]);
    expect(said).not.toContain('LEAKCANARY');
    expect(said).toContain('[REDACTED]');
  });
});

describe('sanitizeCause of a thrown value that is not an Error', () => {
  it('scrubs the secrets from its text', () => {
    const secret = 'SECRET-thrown-string-LEAKCANARY';
    const copy = sanitizeCause(`connect failed for ${secret}`, [secret]);
    expect(copy).toBeInstanceOf(Error);
    expect(copy.message).toBe('connect failed for [REDACTED]');
    expect(copy.stack ?? '').not.toContain('LEAKCANARY');
  });
});

describe('a secret URL with credentials on a bare origin', () => {
  it('does not make every mention of its host secret', () => {
    const secret = 'https://user:pass-LEAKCANARY@hooks.example.com/';
    const said = scrub('Ops Manager at https://hooks.example.com/ refused it', [secret]);
    expect(said).toBe('Ops Manager at https://hooks.example.com/ refused it');
  });
});

describe('a secret quoted with some of its characters escaped', () => {
  it.each([
    // An escape just before the secret, or just after it, stays.
    [
      'an escape before and after',
      String.raw`\u0021abcd\u003defgh\u0021`,
      'abcd=efgh',
      String.raw`\u0021[REDACTED]\u0021`,
    ],
    // Ending on an escape, with another before it: the whole last escape goes.
    ['ending on an escape', String.raw`\u0021 abcd\u003d y`, 'abcd=', String.raw`\u0021 [REDACTED] y`],
    ['short, whole', String.raw`x a\u003db y`, 'a=b', 'x [REDACTED] y'],
    ['JSON-escaped quote, backslash and slash', String.raw`k\"ey\\pa\/th`, 'k"ey\\pa/th', '[REDACTED]'],
    ['named and numeric references', 'a&lt;b&gt;c&quot;d&apos;e&#61;f&#x3D;g', `a<b>c"d'e=f=g`, '[REDACTED]'],
    ['percent-encoded ASCII', 'tok%3Dabc%26def', 'tok=abc&def', '[REDACTED]'],
    // A reference past Unicode, or to NUL, is no character: left as text, nothing thrown.
    ['references to no character', 'a&#9999999;b&#0;c&#x110000;', 'unrelated-secret', 'a&#9999999;b&#0;c&#x110000;'],
  ])('%s', (_label, text, secret, expected) => {
    expect(scrub(text, [secret])).toBe(expected);
  });

  it('one secret inside another is redacted with it, the longer one whole', () => {
    const outer = 'abcd=efgh=ijkl-mnop';
    const inner = 'efgh=ij';
    expect(scrub(String.raw`<abcd\u003defgh\u003dijkl-mnop>`, [outer, inner])).toBe('<[REDACTED]>');
  });

  it('two secrets are each redacted wherever each stands, the shorter one first', () => {
    const text = String.raw`<short\u003dx> <longer\u003dsecret-value>`;
    expect(scrub(text, ['longer=secret-value', 'short=x'])).toBe('<[REDACTED]> <[REDACTED]>');
  });

  it('two secrets that overlap are one redaction', () => {
    expect(scrub(String.raw`<abcd\u003defgh\u003dijkl>`, ['abcd=efgh', 'efgh=ijkl'])).toBe('<[REDACTED]>');
  });

  it('a secret cut short before the first escape keeps the text after it', () => {
    const text = String.raw`"abcdefghijklmn..." \u0021`;
    expect(scrub(text, ['abcdefghijklmnopqrstuvwxyz'])).toBe(String.raw`"[REDACTED]..." \u0021`);
  });
});
