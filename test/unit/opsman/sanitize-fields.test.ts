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
