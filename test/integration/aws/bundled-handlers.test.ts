// Scenario: the Lambda bundles exactly as the stack ships them (esbuild, minified ESM, AWS SDK external), each run in a
// fresh Node process against loopback S3, Secrets Manager and the emulator: the artifact itself, not the TypeScript,
// plans, applies and archives. Why: a bundle can build and import cleanly yet fail on its first call (a package whose
// root module wires its classes up, left out of the bundle, once broke every request with "request is not a
// function" while every source-level test passed).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureBundles } from '../../../infra/bundle-metrics.ts';
import { type AwsWorld, emulatorAdmin, startAwsWorld } from '../../helpers/aws-world.ts';
import { REPO_ROOT } from '../../helpers/cli-run.ts';

const MARKER = 'BUNDLE_RESULT ';

/** Imports `bundle` in a fresh process with `env`, invokes its handler with `event`, and returns what it resolved to. */
async function invokeBundled(bundle: string, env: Record<string, string>, event: unknown): Promise<unknown> {
  const script = `
    const { handler } = await import(process.argv[1]);
    const context = {
      callbackWaitsForEmptyEventLoop: false, functionName: 'opsman-gitops-bundled', functionVersion: '$LATEST',
      invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:opsman-gitops-bundled',
      memoryLimitInMB: '256', awsRequestId: 'bundled-1', logGroupName: '/aws/lambda/opsman-gitops-bundled',
      logStreamName: 'bundled', getRemainingTimeInMillis: () => 600000,
    };
    const result = await handler(JSON.parse(process.argv[2]), context);
    process.stdout.write('\\n${MARKER}' + JSON.stringify(result) + '\\n');
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, bundle, JSON.stringify(event)], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString('utf8');
  });
  child.stderr.on('data', (c: Buffer) => {
    err += c.toString('utf8');
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const line = out.split('\n').find((l) => l.startsWith(MARKER));
  if (line === undefined) throw new Error(`bundle exited ${code} without a result; stderr: ${err.slice(-600)}`);
  return JSON.parse(line.slice(MARKER.length));
}

describe('the shipped Lambda bundles', { timeout: 240_000 }, () => {
  let world: AwsWorld;
  let dir: string;
  const bundles = new Map<string, string>();

  beforeAll(async () => {
    world = await startAwsWorld({ mode: 'apply' });
    // Under node_modules, so that the bundle's external AWS SDK resolves from the repository's node_modules, as it
    // does from the Lambda runtime's.
    dir = await mkdtemp(join(REPO_ROOT, 'node_modules', '.cache-opsman-bundles-'));
    for (const m of await measureBundles({ keepIn: dir })) {
      if (m.path !== undefined) bundles.set(m.name, m.path);
    }
  });
  afterAll(async () => {
    await world?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('reconcile applies the example desired state through Digest, S3 and Secrets Manager, then finds no changes', async () => {
    const bundle = bundles.get('reconcile');
    expect(bundle).toBeDefined();
    const first = (await invokeBundled(bundle as string, world.env, { mode: 'apply' })) as Record<string, unknown>;
    expect(first).toMatchObject({ status: 'ok', command: 'apply', failedChanges: [] });
    expect(first.applied).toBeGreaterThan(0);
    const log = (await emulatorAdmin(world.emulator.origin, 'GET', 'requests')) as { byRoute: Record<string, number> };
    expect(log.byRoute['POST /groups/{groupId}/alertConfigs']).toBeGreaterThan(0);
    const second = (await invokeBundled(bundle as string, world.env, { mode: 'apply' })) as Record<string, unknown>;
    expect(second).toMatchObject({ status: 'ok', applied: 0 });
    expect(world.s3.getText('opsman-gitops-data', 'state/state.json')).toContain('"formatVersion"');
  });

  it('archive writes the version manifest and usage through the bundle', async () => {
    const bundle = bundles.get('archive');
    expect(bundle).toBeDefined();
    // The reconcile run before this one already wrote archive/reports/: only the keys this run adds count.
    const dataKeys = () => [...(world.s3.buckets.get('opsman-gitops-data')?.keys() ?? [])];
    const before = new Set(dataKeys());
    const summary = (await invokeBundled(bundle as string, world.env, {})) as Record<string, unknown>;
    expect(summary).toMatchObject({ status: 'ok', command: 'archive' });
    const added = dataKeys().filter((k) => !before.has(k));
    expect(added.some((k) => /^archive\/manifests\/sha256\/[0-9a-f]{64}\.json$/.test(k))).toBe(true);
    expect(added).toContain('archive/manifests/latest.json');
    expect(added.some((k) => k.startsWith('archive/usage/'))).toBe(true);
  });
});
