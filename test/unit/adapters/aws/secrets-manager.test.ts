// Scenario: credentials and secretRefs through Powertools SecretsProvider and a real SDK client against a loopback Secrets Manager.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  loadOpsManagerCredentials,
  SecretJsonSource,
  SecretsManagerResolver,
} from '../../../../lambdas/adapters/aws/secrets-manager.ts';
import { classifyError } from '../../../../lambdas/handlers/errors.ts';
import { FAKE_AWS_CREDENTIALS, LOOPBACK_REGION, loopbackSecretsClient } from '../../../helpers/aws-clients.ts';
import { type LoopbackSecretsManager, startLoopbackSecretsManager } from '../../../helpers/aws-secrets-server.ts';

const PRIVATE = '7f3c2a9e-4b1d-4e8f-9a6c-1d2e3f4a5b6c';

describe('Secrets Manager adapter on a loopback endpoint', () => {
  let sm: LoopbackSecretsManager;
  let client: SecretsManagerClient;
  beforeEach(async () => {
    sm = await startLoopbackSecretsManager({
      'opsman/credentials': JSON.stringify({ publicKey: 'gitopsbt', privateKey: PRIVATE }),
      'opsman/notifications': JSON.stringify({ pagerduty: 'pd-service-key-123', slack: 42 }),
    });
    client = loopbackSecretsClient(sm.endpoint);
  });
  afterEach(async () => {
    client.destroy();
    await sm.close();
  });

  it('loads valid credentials', async () => {
    const source = new SecretJsonSource({ client });
    expect(await loadOpsManagerCredentials(source, 'opsman/credentials')).toEqual({
      publicKey: 'gitopsbt',
      privateKey: PRIVATE,
    });
  });

  it.each([
    ['the empty placeholder', '{}', 'CREDENTIALS_NOT_FILLED', /has not been filled yet/],
    ['an empty SecretString', '', 'SECRET_EMPTY', /has no value yet/],
    ['not JSON', `privateKey=${PRIVATE}`, 'SECRET_NOT_JSON', /is not valid JSON \(\d+ characters\)/],
    ['an array', `["${PRIVATE}"]`, 'SECRET_NOT_JSON', /not a JSON object/],
    ['privateKey missing', '{"publicKey":"gitopsbt"}', 'CREDENTIALS_INVALID', /privateKey must be a non-empty string/],
    ['publicKey odd', `{"publicKey":"git ops","privateKey":"${PRIVATE}"}`, 'CREDENTIALS_INVALID', /letters and digits/],
    [
      'extra key',
      `{"publicKey":"a","privateKey":"${PRIVATE}","password":"${PRIVATE}"}`,
      'CREDENTIALS_INVALID',
      /unexpected keys: password/,
    ],
    [
      'short fingerprintKey',
      `{"publicKey":"a","privateKey":"${PRIVATE}","fingerprintKey":"x"}`,
      'CREDENTIALS_INVALID',
      /fingerprintKey/,
    ],
    // A key pasted from a file keeps its newline: the client refuses it later, naming neither the secret nor the cause.
    [
      'a privateKey with a trailing newline',
      `{"publicKey":"a","privateKey":"${PRIVATE}\\n"}`,
      'CREDENTIALS_INVALID',
      /privateKey has leading or trailing whitespace \(a newline copied from a file\?\)/,
    ],
    [
      'a privateKey with a space inside',
      `{"publicKey":"a","privateKey":"${PRIVATE.slice(0, 8)} ${PRIVATE.slice(8)}"}`,
      'CREDENTIALS_INVALID',
      /privateKey must be printable ASCII without spaces, quotes or backslashes/,
    ],
    [
      'a privateKey that is a number',
      '{"publicKey":"a","privateKey":7}',
      'CREDENTIALS_INVALID',
      /privateKey must be a non-empty string/,
    ],
    [
      'a fingerprintKey neither hex nor base64',
      `{"publicKey":"a","privateKey":"${PRIVATE}","fingerprintKey":"not hex, not base64!"}`,
      'CREDENTIALS_INVALID',
      /fingerprintKey is neither hex nor base64/,
    ],
    [
      'a fingerprintKey of 10 bytes',
      `{"publicKey":"a","privateKey":"${PRIVATE}","fingerprintKey":"00112233445566778899"}`,
      'CREDENTIALS_INVALID',
      /fingerprintKey is 10 bytes; at least 16 are needed/,
    ],
  ])('rejects credentials that are %s, without quoting the value', async (_name, text, code, message) => {
    sm.secrets.set('bad', text);
    const error = await loadOpsManagerCredentials(new SecretJsonSource({ client }), 'bad').catch((e: unknown) => e);
    expect(error).toMatchObject({ code, secretId: 'bad', message: expect.stringMatching(message) });
    expect(JSON.stringify({ ...(error as object), message: (error as Error).message })).not.toContain(PRIVATE);
  });

  // A secret stored with --secret-binary (a key file uploaded as it is) has no SecretString: refused by name, and the
  // bytes are never decoded into a message.
  it('refuses a binary credentials secret and a binary notification secret (SECRET_NOT_JSON)', async () => {
    const bytes = new TextEncoder().encode(JSON.stringify({ publicKey: 'gitopsbt', privateKey: PRIVATE }));
    sm.secrets.set('opsman/credentials', bytes);
    sm.secrets.set('opsman/notifications', new TextEncoder().encode('{"pagerduty":"pd-service-key-123"}'));
    const source = new SecretJsonSource({ client });
    const credentials = await loadOpsManagerCredentials(source, 'opsman/credentials').catch((e: unknown) => e);
    expect(credentials).toMatchObject({
      code: 'SECRET_NOT_JSON',
      secretId: 'opsman/credentials',
      message: "secret 'opsman/credentials': is binary; expected a JSON SecretString",
    });
    const resolver = new SecretsManagerResolver(source, { credentialsSecretId: 'opsman/credentials' });
    const notification = await resolver.resolve('opsman/notifications#pagerduty').catch((e: unknown) => e);
    expect(notification).toMatchObject({
      code: 'SECRET_NOT_JSON',
      secretId: 'opsman/notifications',
      message: "secret 'opsman/notifications': is binary; expected a JSON SecretString",
    });
    for (const error of [credentials, notification]) {
      const text = JSON.stringify({ ...(error as object), message: (error as Error).message });
      expect(text).not.toContain(PRIVATE);
      expect(text).not.toContain('pd-service-key-123');
    }
    expect(sm.calls.get('opsman/credentials')).toBe(1);
  });

  it('serves a binary secret as the real service does (SecretBinary, base64 on the wire)', async () => {
    const bytes = Uint8Array.from([0, 1, 2, 250, 255]);
    sm.secrets.set('opsman/blob', bytes);
    const answer = await client.send(new GetSecretValueCommand({ SecretId: 'opsman/blob' }));
    expect(answer.SecretString).toBeUndefined();
    expect(answer.SecretBinary).toEqual(bytes);
  });

  it('a missing secret is SECRET_NOT_FOUND', async () => {
    await expect(loadOpsManagerCredentials(new SecretJsonSource({ client }), 'opsman/none')).rejects.toMatchObject({
      code: 'SECRET_NOT_FOUND',
      message: "secret 'opsman/none': no such secret",
    });
  });

  it('a secret created without a value (no AWSCURRENT version) is SECRET_EMPTY, not "no such secret"', async () => {
    sm.secrets.set('opsman/notify', null);
    const resolver = new SecretsManagerResolver(new SecretJsonSource({ client }));
    const error = await resolver.resolve('opsman/notify#webhook').catch((e: unknown) => e);
    expect(classifyError(error)).toMatchObject({ code: 'SECRET_EMPTY', retryable: false });
    expect((error as Error).message).toBe(
      "secret 'opsman/notify': has no value yet (no AWSCURRENT version); fill it with put-secret-value (see docs/aws.md)",
    );
  });

  it.each([
    ['ThrottlingException', 'SECRET_UNAVAILABLE', true, 3, 'cannot be read'],
    // Names the prefix the roles are granted: a secretRef outside it (`prod/notify#x`) meets this and nothing else.
    [
      'AccessDeniedException',
      'SECRET_ACCESS_DENIED',
      false,
      1,
      "access denied: the functions may read only the secrets whose names start with the stack's secretNamePrefix (opsman/ by default)",
    ],
    ['ResourceNotFoundException', 'SECRET_NOT_FOUND', false, 1, 'no such secret'],
    ['DecryptionFailure', 'SECRET_DECRYPTION_FAILED', false, 1, 'kms:Decrypt'],
    // A secret scheduled for deletion: final (it stays so until restored), with the way out in the message.
    [
      'InvalidRequestException',
      'SECRET_SCHEDULED_FOR_DELETION',
      false,
      1,
      'is scheduled for deletion; restore it with aws secretsmanager restore-secret',
      "You can't perform this operation on the secret because it was marked for deletion.",
    ],
    ['InvalidRequestException', 'SECRET_REQUEST_INVALID', false, 1, 'cannot be read in its current state'],
  ])(
    '%s: %s (retryable %s), %i read(s) with the SDK default retries and none of ours',
    async (type, code, retryable, reads, text, answer?: string) => {
      // The production client: the SDK's default retry strategy (3 attempts, throttling and 5xx only).
      const sdk = new SecretsManagerClient({
        endpoint: sm.endpoint,
        region: LOOPBACK_REGION,
        credentials: FAKE_AWS_CREDENTIALS,
      });
      sm.faults.set('opsman/credentials', { type, count: 99, ...(answer === undefined ? {} : { message: answer }) });
      const error = await loadOpsManagerCredentials(new SecretJsonSource({ client: sdk }), 'opsman/credentials').then(
        () => undefined,
        (e: unknown) => e,
      );
      sdk.destroy();
      expect(classifyError(error)).toMatchObject({ code, retryable });
      const message = (error as Error).message;
      expect(message).toMatch(/^secret 'opsman\/credentials': /);
      expect(message).toContain(text);
      expect(message).not.toContain(PRIVATE);
      expect(sm.calls.get('opsman/credentials')).toBe(reads);
    },
  );

  it('resolves secretRefs, caching each secret for maxAge', async () => {
    const resolver = new SecretsManagerResolver(new SecretJsonSource({ client, maxAgeSeconds: 300 }));
    expect(await resolver.resolve('opsman/notifications#pagerduty')).toBe('pd-service-key-123');
    expect(await resolver.resolve('opsman/notifications#pagerduty')).toBe('pd-service-key-123');
    expect(sm.calls.get('opsman/notifications')).toBe(1);
  });

  // The API key's private key (or the fingerprint key) must never go to Ops Manager inside an alert config: a secretRef
  // naming the credentials secret, or another secret holding a copy, is refused by value, so an ARN or alias cannot
  // get around it.
  it.each([
    ['the credentials secret itself', 'opsman/credentials#privateKey', 'privateKey'],
    ['a copy in another secret', 'opsman/copy#key', 'privateKey'],
    ['the fingerprint key', 'opsman/credentials#fingerprintKey', 'fingerprintKey'],
  ])('refuses a secretRef to %s (SECRET_REF_REFUSED), naming no value', async (_name, ref, field) => {
    sm.secrets.set(
      'opsman/credentials',
      JSON.stringify({ publicKey: 'gitopsbt', privateKey: PRIVATE, fingerprintKey: 'ab'.repeat(16) }),
    );
    sm.secrets.set('opsman/copy', JSON.stringify({ key: PRIVATE }));
    const resolver = new SecretsManagerResolver(new SecretJsonSource({ client }), {
      credentialsSecretId: 'opsman/credentials',
    });
    const error = await resolver.resolve(ref).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'SECRET_REF_REFUSED',
      message: expect.stringContaining(
        `holds the ${field} of the credentials secret opsman/credentials; Ops Manager credentials are never sent in an alert config`,
      ),
    });
    expect(JSON.stringify({ ...(error as object), message: (error as Error).message })).not.toContain(PRIVATE);
    expect(await resolver.resolve('opsman/notifications#pagerduty')).toBe('pd-service-key-123');
    expect(await resolver.resolve('opsman/credentials#publicKey')).toBe('gitopsbt');
  });

  // The check is a safety gate: when the credentials secret cannot be read at that moment (its cache expired during a
  // long run and the fetch failed), the reference is not resolved, or a copy of the private key would go out unchecked.
  it('does not resolve a secretRef it cannot check against the credentials secret (the check fails closed)', async () => {
    sm.secrets.set('opsman/copy', JSON.stringify({ key: PRIVATE }));
    const source = new SecretJsonSource({ client, maxAgeSeconds: 0 });
    await loadOpsManagerCredentials(source, 'opsman/credentials');
    sm.secrets.delete('opsman/credentials');
    const resolver = new SecretsManagerResolver(source, { credentialsSecretId: 'opsman/credentials' });
    const error = await resolver.resolve('opsman/copy#key').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SECRET_NOT_FOUND', secretId: 'opsman/credentials' });
    expect(JSON.stringify({ ...(error as object), message: (error as Error).message })).not.toContain(PRIVATE);
  });

  it.each([
    ['opsman/notifications', 'SECRET_REF_INVALID', /expected '<secret id>#<json key>'/],
    ['#pagerduty', 'SECRET_REF_INVALID', /expected/],
    ['opsman/notifications#', 'SECRET_REF_INVALID', /expected/],
    ['opsman/notifications#opsgenie', 'SECRET_KEY_MISSING', /no such key \(keys present: pagerduty, slack\)/],
    // A key the object only inherits (Object.prototype's) is missing too, not a value of the wrong type.
    ['opsman/notifications#toString', 'SECRET_KEY_MISSING', /no such key \(keys present: pagerduty, slack\)/],
    ['opsman/notifications#slack', 'SECRET_KEY_NOT_STRING', /non-empty string/],
    ['opsman/missing#x', 'SECRET_NOT_FOUND', /no such secret/],
  ])('refuses %j with %s and no value in the message', async (ref, code, message) => {
    const resolver = new SecretsManagerResolver(new SecretJsonSource({ client }));
    const error = await resolver.resolve(ref).catch((e: unknown) => e);
    expect(error).toMatchObject({ code, message: expect.stringMatching(message) });
    expect((error as Error).message).not.toContain('pd-service-key-123');
  });
});

describe('the next step of a secret scheduled for deletion', () => {
  it('says to restore it', async () => {
    const { nextStep } = await import('../../../../lambdas/handlers/next-step.ts');
    expect(nextStep('SECRET_SCHEDULED_FOR_DELETION')).toContain('aws secretsmanager restore-secret');
  });
});

describe('an answer the SDK cannot parse', () => {
  // JSON.parse's message quotes characters around where it stopped: here the start of the SecretString's secret.
  it.each([
    ['torn', '{"ARN":"x","SecretString":"{\\"privateKey\\":\\"LEAKCANARY-5f1e-44'],
    ['not JSON where the secret starts', '{"ARN":"x","SecretString":LEAKCANARY-5f1e-44aa}'],
  ])('%s: SECRET_UNAVAILABLE (retryable) quoting nothing of it', async (_name, body) => {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const client = loopbackSecretsClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      const error = await new SecretJsonSource({ client }).getObject('opsman/credentials').catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'SECRET_UNAVAILABLE' });
      expect(classifyError(error)).toMatchObject({ code: 'SECRET_UNAVAILABLE', retryable: true });
      const seen = `${(error as Error).message} ${String((error as Error).cause)} ${JSON.stringify(error)}`;
      expect(seen).toContain("Secrets Manager's answer was not valid JSON");
      expect(seen).not.toContain('LEAKCANARY');
    } finally {
      client.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
