// Scenario: handler configuration from env vars, the one-place error mapping, and how a misconfigured handler answers (never a crash).
import type { Context } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { loadFingerprintKey } from '../../../../lambdas/adapters/local/fingerprint-key.ts';
import {
  DesiredStateInTransitError,
  LeaseHeldError,
  LeaseWaitInterruptedError,
  SnapshotManifestInvalidError,
  StateCorruptError,
} from '../../../../lambdas/core/errors.ts';
import { createAppContext } from '../../../../lambdas/handlers/app-context.ts';
import { createArchiveHandler } from '../../../../lambdas/handlers/archive.ts';
import { readConfig } from '../../../../lambdas/handlers/config.ts';
import { ConfigError, classifyError, InvalidEventError } from '../../../../lambdas/handlers/errors.ts';
import { METRIC } from '../../../../lambdas/handlers/metrics.ts';
import { createReconcileHandler } from '../../../../lambdas/handlers/reconcile.ts';
import { fingerprintKeyOf } from '../../../../lambdas/handlers/runtime.ts';
import {
  OpsManagerApiError,
  OpsManagerAuthError,
  OpsManagerTransportError,
  OpsManagerValidationError,
} from '../../../../lambdas/opsman/errors.ts';
import { fakeLambdaContext } from '../../../helpers/aws-world.ts';

const BASE = {
  OPSMAN_BASE_URL: 'https://om.corp:8443/api/public/v1.0',
  OPSMAN_CREDENTIALS_SECRET_ID: 'opsman/credentials',
  DESIRED_STATE_BUCKET: 'desired',
  STATE_BUCKET: 'data',
};

describe('readConfig', () => {
  it('applies defaults', () => {
    expect(readConfig(BASE)).toEqual({
      opsManagerBaseUrl: BASE.OPSMAN_BASE_URL,
      credentialsSecretId: 'opsman/credentials',
      desiredBucket: 'desired',
      desiredPrefix: 'desired-state/',
      stateBucket: 'data',
      statePrefix: 'state/',
      archivePrefix: 'archive/',
      mode: 'plan',
      leaseWaitMs: 0,
      desiredSnapshot: 'optional',
    });
  });

  // A value pasted with its newline names no secret in Secrets Manager: trimmed, as the other required variables.
  it("trims the required variables and drops the base URL's trailing slash", () => {
    expect(
      readConfig({
        ...BASE,
        OPSMAN_CREDENTIALS_SECRET_ID: ' opsman/credentials\n',
        OPSMAN_BASE_URL: 'https://om.corp:8443/api/public/v1.0/',
      }),
    ).toMatchObject({ credentialsSecretId: 'opsman/credentials', opsManagerBaseUrl: BASE.OPSMAN_BASE_URL });
  });

  it.each([
    [{ OPSMAN_MODE: '' }, { mode: 'plan' }],
    [{ OPSMAN_LEASE_WAIT_MS: '', OPSMAN_MAX_CONCURRENCY: '' }, { leaseWaitMs: 0 }],
    [{ OPSMAN_MODE: 'apply' }, { mode: 'apply' }],
    [
      { OPSMAN_MODE: 'observe', OPSMAN_CA_FILE: 'certs/ca.pem' },
      { mode: 'observe', caFile: 'certs/ca.pem' },
    ],
  ])('reads %j', (env, expected) => {
    expect(readConfig({ ...BASE, ...env })).toMatchObject(expected);
  });

  it.each([
    ['required', 'required'],
    [' optional ', 'optional'],
    ['', 'optional'],
  ])('DESIRED_STATE_SNAPSHOT=%j: %s', (value, policy) => {
    expect(readConfig({ ...BASE, DESIRED_STATE_SNAPSHOT: value })).toMatchObject({ desiredSnapshot: policy });
  });

  it.each([
    [
      { OPSMAN_LEASE_WAIT_MS: '900000', OPSMAN_MAX_CONCURRENCY: '99' },
      { leaseWaitMs: 900_000, maxConcurrency: 99 },
    ],
    [
      { OPSMAN_LEASE_WAIT_MS: '0', OPSMAN_MAX_CONCURRENCY: '1' },
      { leaseWaitMs: 0, maxConcurrency: 1 },
    ],
    [{ OPSMAN_LEASE_WAIT_MS: '030000' }, { leaseWaitMs: 30_000 }],
  ])('accepts the bounds %j', (env, expected) => {
    expect(readConfig({ ...BASE, ...env })).toMatchObject(expected);
  });

  it.each([
    [
      {},
      'OPSMAN_BASE_URL is not set; OPSMAN_CREDENTIALS_SECRET_ID is not set; DESIRED_STATE_BUCKET is not set; STATE_BUCKET is not set',
    ],
    [{ ...BASE, OPSMAN_BASE_URL: 'om.corp' }, 'OPSMAN_BASE_URL is not a URL: "om.corp"'],
    [{ ...BASE, OPSMAN_BASE_URL: 'https://om.corp:8443' }, 'OPSMAN_BASE_URL must end in /api/public/v1.0'],
    // The functions take their key from the credentials secret: the advice is that, never the CLI's variables.
    [
      { ...BASE, OPSMAN_BASE_URL: 'https://ops:s3cr3t@om.corp:8443/api/public/v1.0' },
      "OPSMAN_BASE_URL must not carry credentials: the API key belongs in the stack's credentials secret",
    ],
    [{ ...BASE, OPSMAN_MODE: 'yolo' }, 'OPSMAN_MODE must be observe, plan or apply (got "yolo")'],
    // A typo must not quietly turn the torn-upload check into "optional".
    [
      { ...BASE, DESIRED_STATE_SNAPSHOT: 'require' },
      'DESIRED_STATE_SNAPSHOT must be required or optional; got "require"',
    ],
    [
      { ...BASE, DESIRED_STATE_SNAPSHOT: 'Required' },
      'DESIRED_STATE_SNAPSHOT must be required or optional; got "Required"',
    ],
    [
      { ...BASE, OPSMAN_LEASE_WAIT_MS: '5s' },
      'OPSMAN_LEASE_WAIT_MS must be a whole number of milliseconds from 0 to 900000 (15 minutes: the longest a function runs); got "5s"',
    ],
    // Once a number past 2^53 is read, it is no longer the number written; and no wait outlasts the function itself.
    [
      { ...BASE, OPSMAN_LEASE_WAIT_MS: '99999999999999999999' },
      'OPSMAN_LEASE_WAIT_MS must be a whole number of milliseconds from 0 to 900000 (15 minutes: the longest a function runs); got "99999999999999999999"',
    ],
    [{ ...BASE, OPSMAN_LEASE_WAIT_MS: '900001' }, 'OPSMAN_LEASE_WAIT_MS must be a whole number of milliseconds from 0'],
    [{ ...BASE, OPSMAN_LEASE_WAIT_MS: '-1' }, 'got "-1"'],
    [{ ...BASE, OPSMAN_LEASE_WAIT_MS: '1e3' }, 'got "1e3"'],
    [
      { ...BASE, OPSMAN_LEASE_WAIT_MS: '9'.repeat(100) },
      'OPSMAN_LEASE_WAIT_MS must be a whole number of milliseconds from 0 to 900000 (15 minutes: the longest a function runs); got a value of 100 characters',
    ],
    [{ ...BASE, OPSMAN_MAX_CONCURRENCY: '0' }, 'OPSMAN_MAX_CONCURRENCY must be a whole number from 1 to 99; got "0"'],
    [
      { ...BASE, OPSMAN_MAX_CONCURRENCY: '100' },
      'OPSMAN_MAX_CONCURRENCY must be a whole number from 1 to 99; got "100"',
    ],
    [
      { ...BASE, OPSMAN_MAX_CONCURRENCY: '8.5' },
      'OPSMAN_MAX_CONCURRENCY must be a whole number from 1 to 99; got "8.5"',
    ],
    [
      { ...BASE, STATE_BUCKET: 'desired', STATE_PREFIX: 'desired-state/state' },
      'STATE_PREFIX (desired-state/state/) overlaps',
    ],
    [
      { ...BASE, STATE_BUCKET: 'desired', DESIRED_STATE_PREFIX: '' },
      'overlaps DESIRED_STATE_PREFIX () in the same bucket',
    ],
    [{ ...BASE, ARCHIVE_PREFIX: 'state/archive' }, 'STATE_PREFIX (state/) and ARCHIVE_PREFIX (state/archive/) overlap'],
    // BucketDeployment prunes what is not in the upload under the desired prefix: archives written there would go.
    [
      { ...BASE, STATE_BUCKET: 'desired', ARCHIVE_PREFIX: 'desired-state/archive' },
      'ARCHIVE_PREFIX (desired-state/archive/) overlaps DESIRED_STATE_PREFIX (desired-state/) in the same bucket',
    ],
    [{ ...BASE, OPSMAN_CREDENTIALS_SECRET_ID: ' \n' }, 'OPSMAN_CREDENTIALS_SECRET_ID is not set'],
  ])('rejects %j', (env, message) => {
    expect(() => readConfig(env)).toThrow(ConfigError);
    expect(() => readConfig(env)).toThrow(message);
  });
});

// With path-style addressing a bucket "a/b" would address bucket "a" and put "b/" in front of every key; a prefix
// "/state/" or "a/../b/" names keys other than the ones meant. Each is refused at load, naming the variable and rule.
describe('bucket names and key prefixes', () => {
  it.each([
    'abc',
    'a'.repeat(63),
    'opsman-gitops-data',
    'my.bucket.example',
    '123bucket',
    'opsmangitops-databucket0a1b2c3d-4e5f6a7b8c9d',
  ])('accepts the bucket name %j', (name) => {
    expect(readConfig({ ...BASE, STATE_BUCKET: name, DESIRED_STATE_BUCKET: name })).toMatchObject({
      stateBucket: name,
      desiredBucket: name,
    });
  });

  it.each([
    ['STATE_BUCKET', 'a/b', 'may contain only lowercase letters, digits, dots and hyphens (found "/")'],
    ['DESIRED_STATE_BUCKET', 'Desired', 'may contain only lowercase letters, digits, dots and hyphens (found "D")'],
    ['STATE_BUCKET', 'my_bucket', 'may contain only lowercase letters, digits, dots and hyphens (found "_")'],
    ['STATE_BUCKET', 'ab', 'must be 3 to 63 characters long (this one has 2)'],
    ['STATE_BUCKET', 'a'.repeat(64), 'must be 3 to 63 characters long (this one has 64)'],
    ['STATE_BUCKET', '-data', 'must begin and end with a letter or digit'],
    ['DESIRED_STATE_BUCKET', 'desired.', 'must begin and end with a letter or digit'],
    ['STATE_BUCKET', 'my..bucket', 'must not contain two adjacent dots'],
    ['STATE_BUCKET', '192.168.5.4', 'must not be formatted as an IP address'],
  ])('refuses %s=%j', (name, value, rule) => {
    const env = { ...BASE, [name]: value };
    expect(() => readConfig(env)).toThrow(ConfigError);
    expect(() => readConfig(env)).toThrow(
      `${name} is not a valid S3 bucket name: ${rule}; got ${JSON.stringify(value)}`,
    );
  });

  it('quotes a long value by its length', () => {
    expect(() => readConfig({ ...BASE, STATE_BUCKET: 'x'.repeat(500) })).toThrow(
      'STATE_BUCKET is not a valid S3 bucket name: must be 3 to 63 characters long (this one has 500); got a value of 500 characters',
    );
  });

  it.each([
    ['state', 'state/'],
    ['state/', 'state/'],
    ['deploy/state//', 'deploy/state/'],
    ['', ''],
  ])('accepts the prefix %j as %j', (value, prefix) => {
    expect(readConfig({ ...BASE, DESIRED_STATE_PREFIX: value }).desiredPrefix).toBe(prefix);
  });

  it.each([
    ['STATE_PREFIX', '/state/', 'must not begin with "/" (S3 keys are taken as written)'],
    ['DESIRED_STATE_PREFIX', 'desired-state/../state/', 'must not contain "." or ".." segments'],
    ['ARCHIVE_PREFIX', './archive/', 'must not contain "." or ".." segments'],
    ['ARCHIVE_PREFIX', 'archive//reports/', 'must not contain empty segments ("//")'],
    ['STATE_PREFIX', 'state\n/', 'must not contain control characters'],
  ])('refuses %s=%j', (name, value, rule) => {
    const env = { ...BASE, [name]: value };
    expect(() => readConfig(env)).toThrow(ConfigError);
    expect(() => readConfig(env)).toThrow(`${name} ${rule}; got ${JSON.stringify(value)}`);
  });
});

describe('classifyError', () => {
  const ctx = { method: 'GET', pathTemplate: '/groups/{groupId}/alertConfigs' };
  it.each([
    [new LeaseHeldError({ owner: 'o', runId: 'r', expiresAt: 'e' }), 'LEASE_HELD', true],
    [new StateCorruptError('state s3://b/state/state.json cannot be used: not JSON', '"e"'), 'STATE_CORRUPT', false],
    [new InvalidEventError('x'), 'INVALID_EVENT', false],
    [new DesiredStateInTransitError('torn', []), 'DESIRED_STATE_IN_TRANSIT', true],
    [
      new SnapshotManifestInvalidError('s3://b/p/.opsman-gitops-snapshot.json', 'is not JSON'),
      'SNAPSHOT_MANIFEST_INVALID',
      false,
    ],
    [new OpsManagerApiError(503, 'SERVICE_UNAVAILABLE', 'down', ctx), 'OPSMAN_API_ERROR', true],
    // Ops Manager's UNEXPECTED_ERROR: a server fault, which a later run may get past.
    [new OpsManagerApiError(500, 'UNEXPECTED_ERROR', 'Unexpected error.', ctx), 'OPSMAN_API_ERROR', true],
    [new OpsManagerApiError(400, 'INVALID_ATTRIBUTE', 'bad', ctx), 'OPSMAN_API_ERROR', false],
    // No answer at all (no status): the network or Ops Manager may be back for the next attempt.
    [
      new OpsManagerTransportError('GET /x: no response after 4 attempt(s): connect ECONNREFUSED', ctx, 4),
      'OPSMAN_TRANSPORT_ERROR',
      true,
    ],
    // Throttled: a later attempt gets through.
    [new OpsManagerApiError(429, 'RATE_LIMITED', 'slow down', ctx), 'OPSMAN_API_ERROR', true],
    // A lease wait cut by the time limit is the overlap it waited out (skipped, retried), not a failure of its own.
    [
      new LeaseWaitInterruptedError(
        new LeaseHeldError({ owner: 'o', runId: 'r', expiresAt: 'e' }),
        "the Lambda's time limit is 60 s away",
        1_000,
      ),
      'LEASE_HELD',
      true,
    ],
    [new OpsManagerAuthError(401, 'UNAUTHORIZED', 'refused', ctx), 'OPSMAN_AUTH_ERROR', false],
    // A foreign error's code in another shape (an SDK's `NoSuchKey`) is not one of ours: its message is not trusted.
    [Object.assign(new Error('Digest username="k" body'), { code: 'NoSuchKey' }), 'INTERNAL', true],
    // Nothing was sent: an option or argument the client refuses is refused again on every retry.
    [new OpsManagerValidationError('invalid client options: caFile is empty'), 'OPSMAN_VALIDATION_ERROR', false],
    [new TypeError('Cannot read properties of undefined (reading "Authorization: Digest x")'), 'INTERNAL', true],
    ['a string', 'INTERNAL', true],
  ])('%s -> %s (retryable %s)', (error, code, retryable) => {
    const outcome = classifyError(error);
    expect(outcome).toMatchObject({ code, retryable });
    if (code === 'INTERNAL') expect(outcome.message).not.toContain('Digest');
  });
});

describe('a misconfigured handler', () => {
  const withEnv = <T>(env: Record<string, string | undefined>, fn: () => T): T => {
    const saved = { ...process.env };
    for (const [k, v] of Object.entries(env)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    try {
      return fn();
    } finally {
      process.env = saved;
    }
  };
  const broken = () =>
    withEnv({ ...BASE, OPSMAN_BASE_URL: undefined, STATE_BUCKET: undefined, POWERTOOLS_LOG_LEVEL: 'CRITICAL' }, () =>
      createAppContext(() => {
        throw new Error('never called');
      }),
    );
  const context = fakeLambdaContext('req-1') as unknown as Context;

  it('keeps the ConfigError instead of crashing at load', () => {
    const app = broken();
    expect(app.runtime).toBeInstanceOf(ConfigError);
    expect((app.runtime as ConfigError).problems).toEqual(['OPSMAN_BASE_URL is not set', 'STATE_BUCKET is not set']);
  });

  /** The metric names the app's handler adds (spied: POWERTOOLS_LOG_LEVEL CRITICAL keeps the output quiet). */
  const addedMetrics = (app: ReturnType<typeof broken>) => {
    const names: string[] = [];
    vi.spyOn(app.metrics, 'addMetric').mockImplementation((name) => {
      names.push(name);
      return app.metrics;
    });
    vi.spyOn(app.metrics, 'publishStoredMetrics').mockImplementation(() => app.metrics);
    return names;
  };
  const SCHEDULED = { source: 'aws.scheduler', 'detail-type': 'Scheduled Event' };
  const manifestNotified = {
    Records: [
      {
        eventSource: 'aws:s3',
        eventName: 'ObjectCreated:Put',
        s3: { bucket: { name: 'desired' }, object: { key: 'desired-state/.opsman-gitops-snapshot.json' } },
      },
    ],
  };
  const notConfigured = {
    status: 'failed',
    error: {
      code: 'CONFIG_INVALID',
      message: 'invalid configuration: OPSMAN_BASE_URL is not set; STATE_BUCKET is not set',
      retryable: false,
    },
  };

  // No retry gets past an environment: rethrown, each scheduled run would be tried three times and land in
  // FailedInvocations. The snapshot manifest's notification was answered `ignored`, without a word.
  it('answers every trigger with the error, never throws, and counts RunFailed (its alarm pages)', async () => {
    const app = broken();
    const metrics = addedMetrics(app);
    const handler = createReconcileHandler(app);
    expect(await handler({ mode: 'plan' }, context)).toMatchObject({ ...notConfigured, trigger: 'manual' });
    expect(await handler(SCHEDULED, context)).toMatchObject({ ...notConfigured, trigger: 'schedule' });
    expect(await handler(manifestNotified, context)).toMatchObject({ ...notConfigured, trigger: 's3' });
    expect(metrics.filter((m) => m === METRIC.runFailed)).toHaveLength(3);
    expect(await handler('garbage', context)).toMatchObject({ status: 'rejected', error: { code: 'INVALID_EVENT' } });
  });

  it('the archive handler does the same', async () => {
    const app = broken();
    const metrics = addedMetrics(app);
    const handler = createArchiveHandler(app);
    expect(await handler({}, context)).toMatchObject({ ...notConfigured, trigger: 'manual' });
    expect(await handler(SCHEDULED, context)).toMatchObject({ ...notConfigured, trigger: 'schedule' });
    expect(metrics).toEqual([METRIC.runFailed, METRIC.runFailed]);
    expect(await handler(42, context)).toMatchObject({ status: 'rejected', error: { code: 'INVALID_EVENT' } });
  });
});

describe('fingerprintKeyOf', () => {
  const privateKey = '7f3c2a9e-4b1d-4e8f-9a6c-1d2e3f4a5b6c';
  it('derives a stable 32-byte key from the private key when none is set', () => {
    const a = fingerprintKeyOf({ publicKey: 'p', privateKey });
    expect(a).toHaveLength(32);
    expect(Buffer.from(a).equals(Buffer.from(fingerprintKeyOf({ publicKey: 'p', privateKey })))).toBe(true);
    expect(Buffer.from(a).equals(Buffer.from(fingerprintKeyOf({ publicKey: 'p', privateKey: `${privateKey}x` })))).toBe(
      false,
    );
  });
  // Both spell the bytes 00 11 22 ... ee ff: hex, and the same 16 bytes in base64.
  it.each([['00112233445566778899aabbccddeeff'], ['ABEiM0RVZneImaq7zN3u/w==']])(
    'decodes %s like the CLI does',
    async (fingerprintKey) => {
      const key = Buffer.from(fingerprintKeyOf({ publicKey: 'p', privateKey, fingerprintKey }));
      expect(key.toString('hex')).toBe('00112233445566778899aabbccddeeff');
      // The CLI's own reading of the same value (OPSMAN_FINGERPRINT_KEY), so a state fingerprinted by one matches the other.
      const cli = await loadFingerprintKey('/nonexistent-state-dir', { OPSMAN_FINGERPRINT_KEY: fingerprintKey });
      expect(key.equals(Buffer.from(cli))).toBe(true);
    },
  );
  it('refuses a short key without echoing it', () => {
    expect(() => fingerprintKeyOf({ publicKey: 'p', privateKey, fingerprintKey: 'c2hvcnQta2V5LTE=' })).toThrow(
      /fingerprintKey of the credentials secret is 11 bytes; at least 16/,
    );
  });
});
