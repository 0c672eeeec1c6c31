// Scenario: the handlers' Powertools logger masks every secret-bearing key and Authorization value (captured stdout scanned).
import { describe, expect, it } from 'vitest';
import { createLogger, MASK, maskSecrets, SECRET_KEYS } from '../../../../lambdas/handlers/logging.ts';
import { SECRET_NOTIFICATION_FIELDS } from '../../../../lambdas/opsman/types.ts';
import { captureProcessOutput } from '../../../helpers/process-output.ts';

const SECRET = 'S3CR3T-value-0c9e8d7f6a5b';

describe('logger masking', () => {
  it('masks every secret key, nested and in arrays, in any case', async () => {
    const keys = [
      ...SECRET_NOTIFICATION_FIELDS,
      'privateKey',
      'PrivateKey',
      'Authorization',
      'fingerprintKey',
      'password',
    ];
    const logger = createLogger({ serviceName: 'test' });
    const { text } = await captureProcessOutput(() => {
      logger.info('flat', Object.fromEntries(keys.map((k) => [k, SECRET])));
      logger.info('nested', {
        request: { headers: { authorization: `Digest username="gitopsbt", response="${SECRET}"` } },
      });
      logger.info('array', { notifications: keys.map((k) => ({ typeName: 'WEBHOOK', [k]: SECRET })) });
      logger.error('free text', { detail: `sent Authorization: Digest username="x", response="${SECRET}"` });
      logger.warn(`Bearer ${SECRET}`);
    });
    const lines = text.trim().split('\n');
    expect(lines).toHaveLength(5);
    expect(text).not.toContain(SECRET);
    const flat = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    for (const key of keys) expect(flat[key]).toBe(MASK);
    expect(flat.message).toBe('flat');
    expect(JSON.parse(lines[3] ?? '{}').detail).toBe(`sent Authorization: Digest ${MASK}`);
  });

  it.each([
    ['webhookSecret', 'x', MASK],
    ['secretRef', 'vault#webhook', 'vault#webhook'],
    ['privateKey', '', ''],
    ['secret', null, null],
    ['typeName', 'WEBHOOK', 'WEBHOOK'],
    ['note', 'Basic dXNlcjpwYXNz', `Basic ${MASK}`],
    ['note', 'x Bearer abc.def-123 y', `x Bearer ${MASK} y`],
    ['note', 'desired digest 3f2a (Digest of files)', 'desired digest 3f2a (Digest of files)'],
  ])('maskSecrets(%j, %j)', (key, value, expected) => {
    expect(maskSecrets(key, value)).toBe(expected);
  });

  // A secret key whose value is not a string (a structure a client put there, a number) is masked whole: nothing of it
  // is written, whatever keys sit inside it.
  it.each([
    ['secret', { value: SECRET }],
    ['authorization', [SECRET]],
    ['privateKey', { nested: { note: SECRET } }],
    ['token', 12345],
    ['password', false],
  ])('masks the %s key whose value is not a string', async (key, value) => {
    expect(maskSecrets(key, value)).toBe(MASK);
    const logger = createLogger({ serviceName: 'test' });
    const { text } = await captureProcessOutput(() => logger.info('object', { [key]: value }));
    expect(JSON.parse(text.trim())[key]).toBe(MASK);
    expect(text).not.toContain(SECRET);
  });

  // Credentials an AWS SDK or an HTTP client may carry in an object that reaches a log line.
  it.each([
    'secretString',
    'secretValue',
    'secretAccessKey',
    'sessionToken',
    'accessToken',
    'token',
    'secret',
    'proxyAuthorization',
    'Proxy-Authorization',
    'Cookie',
    'Set-Cookie',
    'X-Amz-Security-Token',
  ])('masks %s', (key) => {
    expect(maskSecrets(key, SECRET)).toBe(MASK);
  });

  it('covers every secret notification field of the API', () => {
    for (const field of SECRET_NOTIFICATION_FIELDS) expect(SECRET_KEYS.has(field.toLowerCase())).toBe(true);
  });
});
