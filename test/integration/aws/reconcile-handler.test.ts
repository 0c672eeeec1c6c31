// Scenario: the reconcile and archive Lambda handlers end to end: real SDK clients against loopback S3 and Secrets Manager, the Ops Manager emulator, the real core.
import { describe, expect, it } from 'vitest';
import { emulatorAdmin, WORLD } from '../../helpers/aws-world.ts';
import { useHandlerWorld } from '../../helpers/handler-world.ts';

describe('reconcile handler on loopback AWS and the emulator', () => {
  // Every test starts from the world as deployed: the emulator back at its seed (faults and request log cleared), and
  // nothing in the data bucket (no state, lease, desired-state cache or archive). The desired state is never written.
  const h = useHandlerWorld({ resetEach: true });
  const ctx = (name?: string) => h.ctx(name);

  it('plans from a manual dry run, recording every desired file with its S3 ETag, and writes nothing', async () => {
    const summary = await h.reconcile({ mode: 'apply', dryRun: true }, ctx());
    expect(summary).toMatchObject({ status: 'ok', trigger: 'manual', command: 'plan', applied: 0 });
    const planned = summary.planned as Record<string, number>;
    expect(planned.create).toBeGreaterThan(0);
    const files = (summary.desired as { files: { path: string; version?: string }[] }).files;
    const stored = h.world.s3.buckets.get(WORLD.desiredBucket);
    for (const file of files) {
      expect(file.version).toBe(stored?.get(`desired-state/${file.path}`)?.etag.slice(1, -1));
    }
    expect(files.map((f) => f.path)).toContain('settings.yaml');
    expect(h.world.s3.getText(WORLD.dataBucket, 'state/lease.json')).toBeUndefined();
    const log = (await emulatorAdmin(h.world.emulator.origin, 'GET', 'requests')) as { entries: { method: string }[] };
    expect(log.entries.filter((e) => e.method !== 'GET')).toEqual([]);
  });

  it('two invocations at once: exactly one applies, the other is refused by the S3 lease', async () => {
    await emulatorAdmin(h.world.emulator.origin, 'POST', 'faults', {
      method: 'GET',
      path: '/groups/*/alertConfigs',
      latencyMs: 150,
      times: 50,
    });
    const [a, b] = await Promise.all([h.reconcile({ mode: 'apply' }, ctx()), h.reconcile({ mode: 'apply' }, ctx())]);
    await emulatorAdmin(h.world.emulator.origin, 'DELETE', 'faults');
    const statuses = [a?.status, b?.status].sort();
    expect(statuses).toEqual(['ok', 'skipped']);
    const winner = a?.status === 'ok' ? a : b;
    const loser = a?.status === 'ok' ? b : a;
    expect(winner?.applied).toBeGreaterThan(0);
    expect({ status: winner?.status, failedChanges: winner?.failedChanges }).toEqual({
      status: 'ok',
      failedChanges: [],
    });
    expect(loser?.error).toMatchObject({ code: 'LEASE_HELD', retryable: true });
    expect(loser?.applied).toBeUndefined();
    const log = (await emulatorAdmin(h.world.emulator.origin, 'GET', 'requests')) as {
      byRoute: Record<string, number>;
    };
    // Every create was sent once, by the winner alone.
    expect(log.byRoute['POST /groups/{groupId}/alertConfigs']).toBe(
      (winner?.planned as Record<string, number> | undefined)?.create,
    );
    const state = JSON.parse(h.world.s3.getText(WORLD.dataBucket, 'state/state.json') ?? '{}') as {
      formatVersion?: number;
    };
    expect(state.formatVersion).toBe(1);
    expect(h.world.s3.getText(WORLD.dataBucket, 'state/lease.json')).toBeUndefined();
    const reports = [...(h.world.s3.buckets.get(WORLD.dataBucket)?.keys() ?? [])].filter((k) =>
      k.startsWith('archive/reports/'),
    );
    expect(reports.length).toBeGreaterThan(0);
  });

  it('an S3 upload of a YAML file triggers a converged run; other keys are ignored', async () => {
    // Converge first, so the run the upload triggers has nothing left to apply.
    const converge = await h.reconcile({ mode: 'apply' }, ctx());
    expect(converge).toMatchObject({ status: 'ok', command: 'apply', failedChanges: [] });
    expect(converge.applied).toBeGreaterThan(0);
    const yaml = await h.reconcile(
      {
        Records: [
          {
            eventSource: 'aws:s3',
            eventName: 'ObjectCreated:Put',
            s3: { bucket: { name: WORLD.desiredBucket }, object: { key: 'desired-state/projects/payments.yaml' } },
          },
        ],
      },
      ctx(),
    );
    expect(yaml).toMatchObject({ status: 'ok', trigger: 's3', command: 'apply', applied: 0 });
    const json = await h.reconcile(
      {
        Records: [
          {
            eventSource: 'aws:s3',
            eventName: 'ObjectCreated:Put',
            s3: {
              bucket: { name: WORLD.desiredBucket },
              object: { key: 'desired-state/schema/opsman-gitops.schema.json' },
            },
          },
        ],
      },
      ctx(),
    );
    expect(json).toMatchObject({ status: 'ignored', trigger: 's3' });
  });

  it('while a run holds the lease, an S3 trigger is rethrown for Lambda to retry and a scheduled one is skipped', async () => {
    await emulatorAdmin(h.world.emulator.origin, 'POST', 'faults', {
      method: 'GET',
      path: '/groups/*/alertConfigs',
      latencyMs: 300,
      times: 50,
    });
    try {
      const holder = h.reconcile({ mode: 'apply' }, ctx());
      for (let i = 0; i < 200 && h.world.s3.getText(WORLD.dataBucket, 'state/lease.json') === undefined; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(h.world.s3.getText(WORLD.dataBucket, 'state/lease.json')).toBeDefined();
      const s3Event = {
        Records: [
          {
            eventSource: 'aws:s3',
            eventName: 'ObjectCreated:Put',
            s3: { bucket: { name: WORLD.desiredBucket }, object: { key: 'desired-state/settings.yaml' } },
          },
        ],
      };
      await expect(h.reconcile(s3Event, ctx())).rejects.toThrow(/^LEASE_HELD: another run holds the lease/);
      const scheduled = await h.reconcile({ source: 'aws.scheduler', 'detail-type': 'Scheduled Event' }, ctx());
      expect(scheduled).toMatchObject({ status: 'skipped', trigger: 'schedule', error: { code: 'LEASE_HELD' } });
      expect(await holder).toMatchObject({ status: 'ok' });
    } finally {
      await emulatorAdmin(h.world.emulator.origin, 'DELETE', 'faults');
    }
  });

  // README "Handler events" and docs/aws.md: Ops Manager unavailable is no failure of the run as a whole.
  it("Ops Manager answering 503 to everything: the upload's run ends partial, answered and not rethrown", async () => {
    await emulatorAdmin(h.world.emulator.origin, 'POST', 'faults', {
      method: '*',
      path: '/**',
      status: 503,
      times: 9999,
    });
    try {
      const manifest = {
        Records: [
          {
            eventSource: 'aws:s3',
            eventName: 'ObjectCreated:Put',
            s3: {
              bucket: { name: WORLD.desiredBucket },
              object: { key: 'desired-state/.opsman-gitops-snapshot.json' },
            },
          },
        ],
      };
      const summary = await h.reconcile(manifest, ctx());
      expect(summary).toMatchObject({ status: 'partial', trigger: 's3', applied: 0 });
      expect(summary.error).toBeUndefined();
      const failures = summary.failures as { code?: string; httpStatus?: number }[];
      expect(failures.length).toBe(summary.targetsFailed);
      expect(failures.every((f) => f.code === 'OPSMAN_API_ERROR' && f.httpStatus === 503)).toBe(true);
    } finally {
      await emulatorAdmin(h.world.emulator.origin, 'DELETE', 'faults');
    }
  });

  it('a manual observe run never writes; a scheduled run runs at the deployment mode', async () => {
    const summary = await h.reconcile({ mode: 'observe' }, ctx());
    expect(summary).toMatchObject({ status: 'ok', command: 'observe', mode: 'observe', applied: 0 });
    const scheduled = await h.reconcile(
      {
        source: 'aws.scheduler',
        'detail-type': 'Scheduled Event',
        resources: ['arn:aws:scheduler:::schedule/x'],
        time: 't',
      },
      ctx(),
    );
    expect(scheduled).toMatchObject({ status: 'ok', trigger: 'schedule', command: 'apply' });
  });

  // The CLI's "(--project)" means nothing to whoever wrote the event; and an event may name thousands of ids.
  it('refuses project ids the desired state lacks, naming the event field and at most five of them', async () => {
    const unknown = Array.from({ length: 8 }, (_, i) => `00000000000000000000000${i}`);
    const summary = await h.reconcile({ mode: 'plan', projects: unknown }, ctx());
    expect(summary).toMatchObject({ status: 'failed', error: { code: 'UNKNOWN_PROJECT', retryable: false } });
    expect((summary.error as { message: string }).message).toMatch(
      /^projects 000000000000000000000000, 000000000000000000000001, 000000000000000000000002, 000000000000000000000003, 000000000000000000000004 and 3 more asked for \(the event's "projects"\) but not in the desired state, which has \d+: [0-9a-f]{24} \([a-z0-9-]+\)(, [0-9a-f]{24} \([a-z0-9-]+\))*(, \.\.\.)?; nothing was read or written$/,
    );
    const log = (await emulatorAdmin(h.world.emulator.origin, 'GET', 'requests')) as { entries: unknown[] };
    expect(log.entries).toEqual([]);
  });

  it.each([
    [null],
    ['apply'],
    [{ mode: 'destroy' }],
    [{ Records: 'x' }],
    [[1, 2]],
    [{ source: 'aws.scheduler', 'detail-type': 'Scheduled Event', mode: 'observe' }],
  ])('rejects the garbage event %j with a clear error, without throwing', async (event) => {
    const summary = await h.reconcile(event, ctx());
    expect(summary).toMatchObject({ status: 'rejected', error: { code: 'INVALID_EVENT' } });
    expect(String((summary.error as { message: string }).message)).toMatch(/^invalid event: /);
  });

  it('the archive handler archives the manifest and usage under the archive prefix only', async () => {
    const summary = await h.archive(
      { source: 'aws.scheduler', 'detail-type': 'Scheduled Event' },
      ctx('opsman-gitops-archive'),
    );
    expect(summary).toMatchObject({ status: 'ok', trigger: 'schedule', command: 'archive' });
    const keys = [...(h.world.s3.buckets.get(WORLD.dataBucket)?.keys() ?? [])];
    expect(keys.some((k) => /^archive\/manifests\/sha256\/[0-9a-f]{64}\.json$/.test(k))).toBe(true);
    expect(keys.some((k) => k.startsWith('archive/usage/'))).toBe(true);
    // cache/desired/: the desired-state cache (docs/desired-state.md), beside state and archive, never in the desired prefix.
    expect(keys.some((k) => /^cache\/desired\/[0-9a-f]{64}\.json$/.test(k))).toBe(true);
    expect(
      keys.every((k) => k.startsWith('archive/') || k.startsWith('state/') || k.startsWith('cache/desired/')),
    ).toBe(true);
    const desiredKeys = [...(h.world.s3.buckets.get(WORLD.desiredBucket)?.keys() ?? [])];
    expect(desiredKeys.every((k) => k.startsWith('desired-state/'))).toBe(true);
  });

  it('never lets a secret value reach the handler result', async () => {
    const summary = await h.reconcile({ mode: 'plan' }, ctx());
    const text = JSON.stringify(summary);
    for (const secret of [
      WORLD.privateKey,
      'fake-webhook-secret-0001-not-real',
      'xoxb-FAKE-0000000000-not-a-real-token',
    ]) {
      expect(text).not.toContain(secret);
    }
  });
});
