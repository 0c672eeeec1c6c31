/**
 * The whole loopback world a Lambda handler runs in: the Ops Manager emulator, a loopback S3 holding the example
 * desired state (uploaded as BucketDeployment would, secrets file excluded) and a loopback Secrets Manager holding the
 * credentials and the example's notification secrets. `env` points a handler module at it.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { startEmulator } from '../../emulator/index.ts';
import { FAKE_AWS_CREDENTIALS, LOOPBACK_REGION } from './aws-clients.ts';
import { type LoopbackS3, startLoopbackS3 } from './aws-s3-server.ts';
import { type LoopbackSecretsManager, startLoopbackSecretsManager } from './aws-secrets-server.ts';

/** Buckets and ids of the world. */
export const WORLD = {
  desiredBucket: 'opsman-gitops-desired',
  dataBucket: 'opsman-gitops-data',
  credentialsSecretId: 'opsman/credentials',
  publicKey: 'gitopsbt',
  privateKey: '7f3c2a9e-4b1d-4e8f-9a6c-1d2e3f4a5b6c',
} as const;

/** The running world. */
export interface AwsWorld {
  s3: LoopbackS3;
  secrets: LoopbackSecretsManager;
  emulator: { url: string; origin: string };
  env: Record<string, string>;
  close(): Promise<void>;
}

const DESIRED_DIR = join(import.meta.dirname, '..', '..', 'desired-state');

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(path)));
    else out.push(path);
  }
  return out;
}

/** Starts everything on port 0. */
export async function startAwsWorld(options: { mode?: string } = {}): Promise<AwsWorld> {
  const emulator = await startEmulator({ port: 0, host: '127.0.0.1', admin: true });
  const s3 = await startLoopbackS3({ buckets: [WORLD.desiredBucket, WORLD.dataBucket] });
  const localSecrets = JSON.parse(await readFile(join(DESIRED_DIR, 'local-secrets.json'), 'utf8')) as Record<
    string,
    Record<string, string>
  >;
  const secrets = await startLoopbackSecretsManager({
    [WORLD.credentialsSecretId]: JSON.stringify({ publicKey: WORLD.publicKey, privateKey: WORLD.privateKey }),
    ...Object.fromEntries(Object.entries(localSecrets).map(([id, value]) => [id, JSON.stringify(value)])),
  });
  for (const file of await walk(DESIRED_DIR)) {
    const rel = relative(DESIRED_DIR, file).split('\\').join('/');
    if (rel.endsWith('local-secrets.json')) continue;
    s3.putDirect(WORLD.desiredBucket, `desired-state/${rel}`, await readFile(file));
  }
  const env: Record<string, string> = {
    OPSMAN_BASE_URL: emulator.url,
    OPSMAN_CREDENTIALS_SECRET_ID: WORLD.credentialsSecretId,
    OPSMAN_MODE: options.mode ?? 'apply',
    DESIRED_STATE_BUCKET: WORLD.desiredBucket,
    DESIRED_STATE_PREFIX: 'desired-state/',
    STATE_BUCKET: WORLD.dataBucket,
    STATE_PREFIX: 'state/',
    ARCHIVE_PREFIX: 'archive/',
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
    AWS_S3_FORCE_PATH_STYLE: 'true',
    AWS_ACCESS_KEY_ID: FAKE_AWS_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: FAKE_AWS_CREDENTIALS.secretAccessKey,
    AWS_REGION: LOOPBACK_REGION,
    POWERTOOLS_METRICS_NAMESPACE: 'OpsmanGitops',
    POWERTOOLS_SERVICE_NAME: 'opsman-gitops',
    POWERTOOLS_LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'ERROR',
  };
  return {
    s3,
    secrets,
    emulator,
    env,
    close: async () => {
      await Promise.all([emulator.close(), s3.close(), secrets.close()]);
    },
  };
}

/** A Lambda context good enough for the handlers. */
export function fakeLambdaContext(requestId: string, functionName = 'opsman-gitops-reconcile') {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:eu-west-1:123456789012:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: '2026/03/01/[$LATEST]0123456789abcdef',
    getRemainingTimeInMillis: () => 600_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** Calls the emulator's admin API. */
export async function emulatorAdmin(origin: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${origin}/__emulator/${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`emulator admin ${method} ${path}: ${response.status}`);
  return response.json();
}
