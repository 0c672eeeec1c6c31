// Scenario: over real HTTP, runReconcile with the desired state in S3 (loopback S3, under a prefix) and a desired-state
// cache: a plan is saved, the webhook URL's key is deleted from the secrets file, and applying the saved plan fails
// that change naming the S3 key under the prefix, line and column of its secretRef, as the plan-time block would.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryDesiredStateCache } from '../../../lambdas/adapters/aws/desired-cache-memory.ts';
import { S3DesiredStateSource } from '../../../lambdas/adapters/aws/s3-desired-source.ts';
import { FileSecretResolver } from '../../../lambdas/adapters/local/secrets-file.ts';
import type { RunDependencies } from '../../../lambdas/core/run-types.ts';
import { loopbackS3Client } from '../../helpers/aws-clients.ts';
import { type LoopbackS3, startLoopbackS3 } from '../../helpers/aws-s3-server.ts';
import { EmulatorWorld, PROJECTS } from '../../helpers/reconcile-emulator.ts';

const BUCKET = 'desired-bucket';
const PREFIX = 'gitops/desired-state/';
const REF = 'opsman/notify#payments-webhook-url';

let world: EmulatorWorld;
let s3: LoopbackS3;

beforeEach(async () => {
  world = await EmulatorWorld.start();
  s3 = await startLoopbackS3({ buckets: [BUCKET] });
  // Uploaded as BucketDeployment would: every file of the example but the secrets file, under the prefix.
  const walk = async (dir: string): Promise<string[]> =>
    (await readdir(dir, { recursive: true, withFileTypes: true }))
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name));
  for (const file of await walk(world.desiredDir)) {
    const rel = relative(world.desiredDir, file).split('\\').join('/');
    if (rel !== 'local-secrets.json') s3.putDirect(BUCKET, `${PREFIX}${rel}`, await readFile(file));
  }
});

afterEach(async () => {
  await s3.close();
  await world.close();
});

/** A run's dependencies reading the desired state from S3 through a cache, and the secrets file afresh. */
function s3Deps(cache: MemoryDesiredStateCache): RunDependencies {
  const client = loopbackS3Client(s3.endpoint);
  return {
    ...world.deps(),
    source: new S3DesiredStateSource({ client, bucket: BUCKET, prefix: PREFIX }),
    desiredCache: cache,
    secrets: new FileSecretResolver(world.secretsFile),
  };
}

/** `projects/payments.yaml:<line>:<column>` of the webhook URL's secretRef string (its opening quote). */
async function refPlace(): Promise<string> {
  const lines = (await readFile(join(world.desiredDir, 'projects/payments.yaml'), 'utf8')).split('\n');
  const line = lines.findIndex((l) => l.includes(`"${REF}"`));
  return `projects/payments.yaml:${line + 1}:${(lines[line] as string).indexOf(`"${REF}"`) + 1}`;
}

describe('a saved plan applied after its secret went missing, desired state in S3', { timeout: 60_000 }, () => {
  it('fails the change naming the key under the prefix, line and column, as the plan-time reason does', async () => {
    const cache = new MemoryDesiredStateCache({});
    const projects = [PROJECTS.paymentsProd];
    const planned = await world.run('plan', { projects }, s3Deps(cache));
    expect(planned.plan.changes.find((c) => c.key === 'no-primary')?.action).toBe('create');

    await world.editSecrets((secrets) => {
      delete secrets['opsman/notify']?.['payments-webhook-url'];
    });
    const applied = await world.run('apply', { savedPlan: planned.plan }, s3Deps(cache));
    const failed = applied.results.filter((r) => r.status === 'failed');
    const place = await refPlace();
    const expected =
      `alert config "no-primary": secret reference ${REF} (notifications[WEBHOOK].webhookUrl) at ${place} could not ` +
      `be resolved: secret "opsman/notify" in ${world.secretsFile} has no key "payments-webhook-url"`;
    expect(failed.map((r) => [r.change.key, r.code, r.message])).toEqual([
      ['no-primary', 'SECRET_UNRESOLVED', expected],
    ]);
    expect(applied.failures.map((f) => f.message)).toEqual([`alertConfig no-primary: create failed: ${expected}`]);
    // The same words a plan made now gives for the missing key: the plan-time block names the same place.
    const now = await world.run('plan', { projects }, s3Deps(cache));
    expect(now.plan.changes.find((c) => c.key === 'no-primary')?.reason).toBe(expected);
    // The rest of the saved plan was applied.
    expect(applied.summary.applied).toBeGreaterThan(0);
  });
});
