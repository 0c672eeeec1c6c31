// Scenario: the client's own option checks (for programs that call createOpsManagerClient directly): each bad value
// is refused with its reason and bounds, defaults fill what is missing, and no message ever quotes a credential.
import { describe, expect, it } from 'vitest';
import { OpsManagerValidationError } from '../../../lambdas/opsman/errors.ts';
import type { ClientOptions } from '../../../lambdas/opsman/options.ts';
import { DEFAULT_RETRY_OPTIONS } from '../../../lambdas/opsman/options.ts';
import { resolveClientOptions } from '../../../lambdas/opsman/options-resolve.ts';
import { TEST_PRIVATE_KEY } from '../../helpers/client-fixtures.ts';

const BASE = 'https://om.test:8443/api/public/v1.0';
const VALID: ClientOptions = { baseUrl: BASE, publicKey: 'pubkey', privateKey: TEST_PRIVATE_KEY };

/** The message of the validation error `options` is refused with. */
function refusal(options: Partial<ClientOptions>): string {
  try {
    resolveClientOptions({ ...VALID, ...options } as ClientOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(OpsManagerValidationError);
    return (error as Error).message;
  }
  throw new Error('accepted');
}

describe('resolveClientOptions', () => {
  it('fills the defaults and keeps the base URL without its trailing slashes', () => {
    const resolved = resolveClientOptions({ ...VALID, baseUrl: `${BASE}//` });
    expect(resolved.baseUrl.href).toBe(BASE);
    expect(resolved.retry).toEqual(DEFAULT_RETRY_OPTIONS);
    expect(resolved.maxConnections).toBe(resolved.maxConcurrency);
    expect(resolved.insecureSkipVerify).toBe(false);
  });

  it.each([
    [{ retry: { maxAttempts: 0 } }, 'retry.maxAttempts must be an integer from 1 to 20, got 0'],
    [{ retry: { maxAttempts: 21 } }, 'retry.maxAttempts must be an integer from 1 to 20, got 21'],
    [{ retry: { deadlineMs: 0 } }, 'retry.deadlineMs must be an integer from 1 to 86400000, got 0'],
    [{ pageSize: 501 }, 'pageSize must be an integer from 1 to 500, got 501'],
    [{ maxResponseBytes: 256 * 1024 * 1024 + 1 }, 'maxResponseBytes must be an integer from 1 to 268435456'],
    [{ maxConcurrency: 1.5 }, 'maxConcurrency must be an integer from 1 to 1024, got 1.5'],
    [{ baseUrl: 'ftp://om.test/api/public/v1.0' }, 'baseUrl must be http(s), got ftp:'],
    [{ baseUrl: 'not a url' }, 'baseUrl is not a URL: "not a url"'],
    [{ baseUrl: `${BASE}?pretty=true` }, 'baseUrl must not carry a query string or a fragment'],
    [{ publicKey: 'pub key' }, 'publicKey must be printable ASCII without spaces, quotes or backslashes'],
    [{ userAgent: 'agent\n' }, 'userAgent must be printable ASCII'],
    [{ baseUrl: 'https://:secret@om.test/api/public/v1.0' }, 'baseUrl must not carry credentials'],
    [{ publicKey: 'pub"key' }, 'publicKey must be printable ASCII without spaces, quotes or backslashes'],
    [{ privateKey: 'priv\\key' }, 'privateKey must be printable ASCII without spaces, quotes or backslashes'],
    [{ settingNames: { baseUrl: '' } }, 'settingNames.baseUrl must be printable text'],
    [{ observer: {} }, 'observer must have an onRequest(event) function'],
  ])('refuses %j: %s', (options, message) => {
    expect(refusal(options as Partial<ClientOptions>)).toContain(message);
  });

  it('takes maxConnections from maxConcurrency, an empty requestDeadline name, and only a true insecureSkipVerify', () => {
    const resolved = resolveClientOptions({
      ...VALID,
      maxConcurrency: 3,
      settingNames: { requestDeadline: '' },
      // A JavaScript caller passing an environment variable's text: 'false' must not turn verification off.
      insecureSkipVerify: 'false' as unknown as boolean,
    });
    expect(resolved.maxConnections).toBe(3);
    expect(resolved.settingNames.requestDeadline).toBe('');
    expect(resolved.insecureSkipVerify).toBe(false);
  });

  it('takes the largest values in bounds', () => {
    const resolved = resolveClientOptions({
      ...VALID,
      pageSize: 500,
      retry: { maxAttempts: 20 },
      maxConcurrency: 1024,
    });
    expect([resolved.pageSize, resolved.retry.maxAttempts, resolved.maxConcurrency]).toEqual([500, 20, 1024]);
  });

  it('never quotes credentials from a base URL, parsed or not', () => {
    // The second does not parse (a space in the host, a typo), the third has a port out of range.
    for (const baseUrl of [
      `https://pubkey:${TEST_PRIVATE_KEY}@om.test/api/public/v1.0`,
      `https://pubkey:${TEST_PRIVATE_KEY}@om test/api/public/v1.0`,
      `https://pubkey:${TEST_PRIVATE_KEY}@om.test:99999/api/public/v1.0`,
    ]) {
      const message = refusal({ baseUrl });
      expect(message).toMatch(/^invalid client options: baseUrl /);
      expect(message).not.toContain(TEST_PRIVATE_KEY);
      expect(message).not.toContain('LEAKCANARY');
    }
  });

  it('never quotes a private key it refuses', () => {
    const message = refusal({ privateKey: `${TEST_PRIVATE_KEY} x` });
    expect(message).toContain('privateKey must be printable ASCII');
    expect(message).not.toContain('LEAKCANARY');
  });
});
