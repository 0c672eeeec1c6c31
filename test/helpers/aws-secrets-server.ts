/**
 * A loopback Secrets Manager endpoint for tests: `POST /` with `X-Amz-Target: secretsmanager.GetSecretValue` and an
 * `application/x-amz-json-1.1` body `{"SecretId"}`, answered as the real service does: a text secret as
 * `SecretString`, a binary one (`--secret-binary`) as base64 `SecretBinary`, never both. Counts calls per secret, so
 * tests can check the provider's cache. `faults` answers a secret's next reads with a service error instead. A secret
 * created without a value (`create-secret --name x` alone: no version, so no AWSCURRENT) is `null`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type HandlerConfig, readConfig } from '../../lambdas/handlers/config.ts';
import { FAKE_AWS_CREDENTIALS, LOOPBACK_REGION } from './aws-clients.ts';

/** The running endpoint. */
export interface LoopbackSecretsManager {
  /** `http://127.0.0.1:<port>`: pass as `endpoint` or `AWS_ENDPOINT_URL_SECRETS_MANAGER`. */
  endpoint: string;
  /**
   * secret id (name or ARN) -> value: a string is served as SecretString, bytes as SecretBinary, `null` (a secret
   * with no value yet) as the service answers it. Change it between calls to simulate rotation.
   */
  secrets: Map<string, string | Uint8Array | null>;
  /** GetSecretValue calls per secret id. */
  calls: Map<string, number>;
  /**
   * secret id -> an error the next `count` reads of it answer (`__type` as the service sends it:
   * ThrottlingException, AccessDeniedException, DecryptionFailure...); `status` defaults to 400, `message` to
   * `injected <type>`.
   */
  faults: Map<string, { type: string; status?: number; message?: string; count: number }>;
  close(): Promise<void>;
}

/** Starts the endpoint on 127.0.0.1, port 0. */
export async function startLoopbackSecretsManager(
  initial: Record<string, string | Uint8Array | null> = {},
): Promise<LoopbackSecretsManager> {
  const secrets = new Map(Object.entries(initial));
  const calls = new Map<string, number>();
  const faults = new Map<string, { type: string; status?: number; message?: string; count: number }>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(JSON.stringify(body));
      };
      const target = req.headers['x-amz-target'];
      if (req.method !== 'POST' || target !== 'secretsmanager.GetSecretValue') {
        return reply(400, { __type: 'UnknownOperationException', message: `unsupported ${String(target)}` });
      }
      let secretId = '';
      try {
        secretId = String(
          (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { SecretId?: unknown }).SecretId ?? '',
        );
      } catch {
        return reply(400, { __type: 'SerializationException', message: 'body is not JSON' });
      }
      calls.set(secretId, (calls.get(secretId) ?? 0) + 1);
      const fault = faults.get(secretId);
      if (fault !== undefined && fault.count > 0) {
        fault.count--;
        return reply(fault.status ?? 400, { __type: fault.type, message: fault.message ?? `injected ${fault.type}` });
      }
      const value = secrets.get(secretId);
      if (value === undefined) {
        return reply(400, {
          __type: 'ResourceNotFoundException',
          message: "Secrets Manager can't find the specified secret.",
        });
      }
      if (value === null) {
        // The secret exists but has no version: the service names the staging label it looked for.
        return reply(400, {
          __type: 'ResourceNotFoundException',
          message: "Secrets Manager can't find the specified secret value for staging label: AWSCURRENT",
        });
      }
      return reply(200, {
        ARN: `arn:aws:secretsmanager:eu-west-1:123456789012:secret:${secretId}-AbCdEf`,
        Name: secretId,
        // The JSON protocol carries blobs as base64; the SDK decodes SecretBinary back into a Uint8Array.
        ...(typeof value === 'string'
          ? { SecretString: value }
          : { SecretBinary: Buffer.from(value).toString('base64') }),
        VersionId: 'a1b2c3d4-0000-4000-8000-000000000001',
        VersionStages: ['AWSCURRENT'],
        CreatedDate: Math.floor(Date.now() / 1000),
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    secrets,
    calls,
    faults,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/**
 * A loopback Secrets Manager holding the Ops Manager credentials secret `opsman/credentials`, with `process.env`
 * pointed at it (endpoint, fake AWS credentials, region) so that a handler Runtime's own SDK client finds it. The
 * caller restores `process.env` and closes the endpoint.
 */
export async function startCredentialsSecret(publicKey: string, privateKey: string): Promise<LoopbackSecretsManager> {
  const secrets = await startLoopbackSecretsManager({
    'opsman/credentials': JSON.stringify({ publicKey, privateKey }),
  });
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
    AWS_ACCESS_KEY_ID: FAKE_AWS_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: FAKE_AWS_CREDENTIALS.secretAccessKey,
    AWS_REGION: LOOPBACK_REGION,
  });
  return secrets;
}

/** The handler config of a Runtime that talks to `baseUrl` with the credentials of {@link startCredentialsSecret}. */
export function credentialsSecretConfig(baseUrl: string): HandlerConfig {
  return readConfig({
    OPSMAN_BASE_URL: baseUrl,
    OPSMAN_CREDENTIALS_SECRET_ID: 'opsman/credentials',
    DESIRED_STATE_BUCKET: 'desired',
    STATE_BUCKET: 'data',
  });
}
