// Scenario: S3 misbehaves as it does in production (503 SlowDown, 500, 403, a reset connection, a lost response) under
// the reconcile handler: each failure is classified, names its object, is retried by the SDK alone (never by us on
// top), and nothing Ops Manager was sent is lost. (Secrets Manager faults: test/unit/adapters/aws/secrets-manager.)
import { afterEach, describe, expect, it } from 'vitest';
import { GONE_SINCE_LISTED } from '../../../lambdas/adapters/aws/s3-desired-source.ts';
import { nextStep } from '../../../lambdas/handlers/next-step.ts';
import { emulatorAdmin, WORLD } from '../../helpers/aws-world.ts';
import { useHandlerWorld } from '../../helpers/handler-world.ts';
import { captureProcessOutput, jsonLogLines } from '../../helpers/process-output.ts';

const STATE = `${WORLD.dataBucket}/state/state.json`;
const LEASE = `${WORLD.dataBucket}/state/lease.json`;
const SCHEDULE = {
  version: '0',
  id: 'e-1',
  'detail-type': 'Scheduled Event',
  source: 'aws.scheduler',
  account: '123456789012',
  time: '2026-03-01T00:00:00Z',
  region: 'eu-west-1',
  resources: ['arn:aws:scheduler:eu-west-1:123456789012:schedule/default/opsman-gitops'],
  detail: {},
};

describe('AWS faults under the reconcile handler', { timeout: 60_000 }, () => {
  const h = useHandlerWorld({ resetEach: true });
  const ctx = () => h.ctx();
  afterEach(() => {
    h.world.s3.clearFaults();
    h.world.secrets.faults.clear();
    h.world.s3.requests.length = 0;
  });
  const s3Calls = (method: string, path: string) =>
    h.world.s3.requests.filter((r) => r.method === method && `${r.bucket}/${r.key}` === path).length;
  const opsmanWrites = async () => {
    const log = (await emulatorAdmin(h.world.emulator.origin, 'GET', 'requests')) as { entries: { method: string }[] };
    return log.entries.filter((e) => e.method !== 'GET').length;
  };

  it('state read answered 503 SlowDown throughout: the SDK tries 3 times, the run fails retryable, names the object, writes nothing', async () => {
    h.world.s3.injectFault({ method: 'GET', key: STATE, status: 503, code: 'SlowDown', count: 99 });
    const { text, result } = await captureProcessOutput(() => h.reconcile({ mode: 'apply' }, ctx()));
    const summary = result as Awaited<ReturnType<typeof h.reconcile>>;
    expect(summary).toMatchObject({ status: 'failed', error: { code: 'S3_ACCESS', retryable: true } });
    // One line naming the object, the cause and what to do; a stack only for an unexpected error (INTERNAL).
    const line = jsonLogLines(text).find((l) => l.message === 'run failed');
    expect(line, text).toMatchObject({ level: 'ERROR', code: 'S3_ACCESS', nextStep: nextStep('S3_ACCESS') });
    expect(line).not.toHaveProperty('stack');
    expect((summary.error as { message: string }).message).toContain(`GetObject s3://${STATE} failed (503): SlowDown`);
    expect(s3Calls('GET', STATE)).toBe(3);
    expect(await opsmanWrites()).toBe(0);
    await expect(h.reconcile(SCHEDULE, ctx())).rejects.toThrow(/^S3_ACCESS: GetObject s3:\/\//);
  });

  it('one 500 InternalError and one reset connection on the state read: retried by the SDK, the run is ok', async () => {
    h.world.s3.injectFault({ method: 'GET', key: STATE, status: 500, code: 'InternalError', count: 1 });
    h.world.s3.injectFault({ method: 'GET', key: STATE, reset: true, count: 1 });
    const summary = await h.reconcile({ mode: 'apply' }, ctx());
    expect(summary).toMatchObject({ status: 'ok', failedChanges: [] });
    expect(s3Calls('GET', STATE)).toBeGreaterThanOrEqual(3);
  });

  // Read as an absent object, a deleted data bucket made the state look like a first run's, and a plan run end `ok`
  // with its report lost to a warning; thrown as S3_ACCESS, Lambda retried each scheduled run into FailedInvocations.
  it('a deleted data bucket (404 NoSuchBucket): S3_NO_SUCH_BUCKET naming it, not retryable, never an absent state', async () => {
    h.world.s3.injectFault({ key: `${WORLD.dataBucket}/*`, status: 404, code: 'NoSuchBucket', count: 999 });
    const plan = await h.reconcile({ mode: 'plan' }, ctx());
    expect(plan).toMatchObject({ status: 'failed', error: { code: 'S3_NO_SUCH_BUCKET', retryable: false } });
    const message = (plan.error as { message: string }).message;
    expect(message).toMatch(new RegExp(`^GetObject s3://${WORLD.dataBucket}/\\S+ failed \\(404\\): NoSuchBucket: `));
    expect(message).toContain('the bucket does not exist: check the function');
    const scheduled = await h.reconcile(SCHEDULE, ctx());
    expect(scheduled).toMatchObject({ status: 'failed', trigger: 'schedule', error: { code: 'S3_NO_SUCH_BUCKET' } });
    expect(await opsmanWrites()).toBe(0);
  });

  // Without DESIRED_STATE_SNAPSHOT=required (the stack sets it: such a read is then DESIRED_STATE_IN_TRANSIT) a file
  // listed and then deleted before its GET (a deployment pruning it) fails the run retryably; its message says so, where
  // it said "no such file in the desired state" beside a next step about S3 throttling.
  it('a listed file deleted before its GET (404 NoSuchKey): S3_ACCESS, retryable, saying it went since the listing', async () => {
    const FILE = `${WORLD.desiredBucket}/desired-state/projects/search.yaml`;
    const key = 'desired-state/projects/search.yaml';
    const text = h.world.s3.getText(WORLD.desiredBucket, key) ?? '';
    // New bytes, so that a warm container's desired-state cache cannot answer for the file without a GET.
    h.world.s3.putDirect(WORLD.desiredBucket, key, `${text}# edited\n`);
    h.world.s3.injectFault({ method: 'GET', key: FILE, status: 404, code: 'NoSuchKey', count: 99 });
    const summary = await h
      .reconcile({ mode: 'apply' }, ctx())
      .finally(() => h.world.s3.putDirect(WORLD.desiredBucket, key, text));
    expect(summary).toMatchObject({
      status: 'failed',
      error: {
        code: 'S3_ACCESS',
        retryable: true,
        message: `GetObject s3://${FILE} failed (404): ${GONE_SINCE_LISTED}`,
      },
    });
    expect(GONE_SINCE_LISTED).toContain('deleted since the desired state was listed');
    expect(await opsmanWrites()).toBe(0);
  });

  it('the run report PUT failing throughout: the run keeps its status, its summary has no report and a warning naming the key', async () => {
    h.world.s3.injectFault({ method: 'PUT', key: `${WORLD.dataBucket}/archive/reports/*`, status: 500, count: 99 });
    const summary = await h.reconcile({ mode: 'plan' }, ctx());
    expect(summary.status).toBe('ok');
    expect(summary.report).toBeUndefined();
    const warnings = summary.warnings as string[];
    expect(warnings).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^the run report could not be written: PutObject s3://${WORLD.dataBucket}/archive/reports/\\S+\\.json failed \\(500\\)`,
        ),
      ),
    );
    expect([...(h.world.s3.buckets.get(WORLD.dataBucket)?.keys() ?? [])].some((k) => k.startsWith('archive/'))).toBe(
      false,
    );
  });

  // The pinned version manifest (settings.yaml versionManifest.pin) is read from the desired-state bucket too: its read
  // failing on S3's side was an issue of the desired state (DESIRED_STATE_INVALID, final, "run validate", which
  // passes), so a throttled read failed the scheduled run for good instead of being retried.
  it('the pinned version manifest read answered 503 throughout, 403, or absent: retryable S3_ACCESS, S3_ACCESS_DENIED, and only a missing one is an issue', async () => {
    const PIN = `${WORLD.desiredBucket}/desired-state/manifests/approved.json`;
    h.world.s3.injectFault({ method: 'GET', key: PIN, status: 503, code: 'SlowDown', count: 99 });
    const throttled = await h.reconcile({ mode: 'apply' }, ctx());
    expect(throttled).toMatchObject({ status: 'failed', error: { code: 'S3_ACCESS', retryable: true } });
    expect((throttled.error as { message: string }).message).toContain(`GetObject s3://${PIN} failed (503): SlowDown`);
    expect(throttled.issues).toBeUndefined();
    await expect(h.reconcile(SCHEDULE, ctx())).rejects.toThrow(/^S3_ACCESS: GetObject s3:\/\/\S+approved\.json/);
    h.world.s3.clearFaults();
    h.world.s3.injectFault({ method: 'GET', key: PIN, status: 403, code: 'AccessDenied', count: 99 });
    const denied = await h.reconcile({ mode: 'apply' }, ctx());
    expect(denied).toMatchObject({ status: 'failed', error: { code: 'S3_ACCESS_DENIED', retryable: false } });
    h.world.s3.clearFaults();
    h.world.s3.injectFault({ method: 'GET', key: PIN, status: 404, code: 'NoSuchKey', count: 99 });
    const missing = await h.reconcile({ mode: 'apply' }, ctx());
    expect(missing).toMatchObject({ status: 'failed', error: { code: 'DESIRED_STATE_INVALID', retryable: false } });
    expect(JSON.stringify(missing.issues)).toContain(
      'versionManifest.pin \\"manifests/approved.json\\": cannot be read',
    );
    expect(await opsmanWrites()).toBe(0);
  });

  it('403 AccessDenied on the state read is not retryable: a retry meets the same policy', async () => {
    h.world.s3.injectFault({ method: 'GET', key: STATE, status: 403, code: 'AccessDenied', count: 99 });
    const summary = await h.reconcile({ mode: 'apply' }, ctx());
    expect(summary).toMatchObject({ status: 'failed', error: { code: 'S3_ACCESS_DENIED', retryable: false } });
    expect((summary.error as { message: string }).message).toContain(`GetObject s3://${STATE} failed (403)`);
    expect(s3Calls('GET', STATE)).toBe(1);
    const scheduled = await h.reconcile(SCHEDULE, ctx());
    expect(scheduled).toMatchObject({ status: 'failed', error: { code: 'S3_ACCESS_DENIED' } });
  });

  it('state and lease PUTs that succeed but whose responses are lost: the retries recognise their own writes', async () => {
    h.world.s3.injectFault({ method: 'PUT', key: LEASE, reset: true, after: true, count: 1 });
    h.world.s3.injectFault({ method: 'PUT', key: STATE, reset: true, after: true, count: 2 });
    const summary = await h.reconcile({ mode: 'apply' }, ctx());
    expect(summary).toMatchObject({ status: 'ok', failedChanges: [] });
    expect(summary.applied).toBeGreaterThan(0);
    expect(h.world.s3.getText(WORLD.dataBucket, 'state/lease.json')).toBeUndefined();
    const again = await h.reconcile({ mode: 'apply' }, ctx());
    expect(again).toMatchObject({ status: 'ok', applied: 0 });
  });

  it('the state write after the Ops Manager writes fails throughout: reported partial, and the next run adopts (no duplicates)', async () => {
    // The first state PUT (the pending-create markers, before any POST) succeeds; every later one fails.
    h.world.s3.injectFault({ method: 'PUT', key: STATE, status: 503, code: 'SlowDown', skip: 1, count: 99 });
    const { text, result } = await captureProcessOutput(() => h.reconcile({ mode: 'apply' }, ctx()));
    const first = result as Awaited<ReturnType<typeof h.reconcile>>;
    expect(first.status).toBe('partial');
    expect(first.applied).toBeGreaterThan(0);
    const failures = first.failures as { target: string; message: string; code?: string }[];
    expect(failures.find((f) => f.target === 'global:state')).toMatchObject({
      code: 'S3_ACCESS',
      message: expect.stringContaining(
        `the state could not be saved after applying: PutObject s3://${STATE} failed (503)`,
      ),
    });
    // The log line says what it is (S3 throttled: the next run adopts), never "a bug: keep the stack".
    const line = jsonLogLines(text).find(
      (l) => l.message === 'target failed' && (l.target as { id?: string } | undefined)?.id === 'state',
    );
    expect(line, text).toMatchObject({ level: 'ERROR', code: 'S3_ACCESS', nextStep: nextStep('S3_ACCESS') });
    expect(h.world.s3.getText(WORLD.dataBucket, 'state/lease.json')).toBeUndefined();
    h.world.s3.clearFaults();
    const log1 = (await emulatorAdmin(h.world.emulator.origin, 'GET', 'requests')) as {
      byRoute: Record<string, number>;
    };
    const posts = log1.byRoute['POST /groups/{groupId}/alertConfigs'];
    const second = await h.reconcile({ mode: 'apply' }, ctx());
    expect(second).toMatchObject({ status: 'ok', failedChanges: [] });
    const log2 = (await emulatorAdmin(h.world.emulator.origin, 'GET', 'requests')) as {
      byRoute: Record<string, number>;
    };
    expect(log2.byRoute['POST /groups/{groupId}/alertConfigs']).toBe(posts);
    const third = await h.reconcile({ mode: 'apply' }, ctx());
    expect(third).toMatchObject({ status: 'ok', applied: 0, planned: { create: 0 } });
  });

  it('lease acquire answered 500 throughout: fails retryable before any Ops Manager write', async () => {
    h.world.s3.injectFault({ method: 'PUT', key: LEASE, status: 500, code: 'InternalError', count: 99 });
    const summary = await h.reconcile({ mode: 'apply' }, ctx());
    expect(summary).toMatchObject({ status: 'failed', error: { code: 'S3_ACCESS', retryable: true } });
    expect((summary.error as { message: string }).message).toContain(`PutObject s3://${LEASE} failed (500)`);
    expect(s3Calls('PUT', LEASE)).toBe(3);
    expect(await opsmanWrites()).toBe(0);
  });

  it.each([
    ['the listing', 'ListObjectsV2', `${WORLD.desiredBucket}/`, `${WORLD.desiredBucket}/desired-state/`],
    [
      'a file',
      'GetObject',
      `${WORLD.desiredBucket}/desired-state/settings.yaml`,
      `${WORLD.desiredBucket}/desired-state/settings.yaml`,
    ],
  ])(
    'desired state: %s throttled throughout is S3_ACCESS naming it, retryable (not DESIRED_STATE_INVALID)',
    async (_what, operation, key, location) => {
      // Rewritten (new LastModified): the container's desired-state cache cannot vouch for it, the file is read.
      const settings = `desired-state/settings.yaml`;
      const stored = h.world.s3.buckets.get(WORLD.desiredBucket)?.get(settings);
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (stored) h.world.s3.putDirect(WORLD.desiredBucket, settings, stored.body);
      h.world.s3.injectFault({ method: 'GET', key, status: 503, code: 'SlowDown', count: 99 });
      const summary = await h.reconcile({ mode: 'apply' }, ctx());
      expect(summary).toMatchObject({ status: 'failed', error: { code: 'S3_ACCESS', retryable: true } });
      expect((summary.error as { message: string }).message).toContain(`${operation} s3://${location} failed (503)`);
      expect(await opsmanWrites()).toBe(0);
    },
  );

  it('desired-state cache unreachable (500 on its GET and PUT): only speed is lost, the run is ok', async () => {
    h.world.s3.injectFault({ key: `${WORLD.dataBucket}/cache/*`, status: 500, code: 'InternalError', count: 999 });
    const summary = await h.reconcile({ mode: 'apply', dryRun: true }, ctx());
    expect(summary).toMatchObject({ status: 'ok' });
  });
});
