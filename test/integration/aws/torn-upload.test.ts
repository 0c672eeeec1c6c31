// Scenario: a torn upload of the desired state (S3 has no atomic multi-object write) never reaches Ops Manager: the
// reconcile handler, with real SDK clients on loopback S3 and the emulator, compares what it read with the upload's
// snapshot manifest and stops before any request; the whole upload then plans normally. The bug it prevents: an alert
// config moved from a project file into a template looks deleted while only the project file is new, and the prune of
// it is a delete-and-recreate.
import { DeleteObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildSnapshotManifest,
  SNAPSHOT_FILE,
  snapshotManifestText,
} from '../../../lambdas/core/desired/snapshot-manifest.ts';
import type { Plan } from '../../../lambdas/core/model.ts';
import type { ReconcileState } from '../../../lambdas/core/ports.ts';
import { loopbackS3Client } from '../../helpers/aws-clients.ts';
import { emulatorAdmin, WORLD } from '../../helpers/aws-world.ts';
import { type Handler, useHandlerWorld } from '../../helpers/handler-world.ts';

const PREFIX = 'desired-state/';
const PAYMENTS = 'projects/payments.yaml';
const BASELINE = 'templates/baseline.yaml';
const PAYMENTS_PROD = '5e2211c17a3e5a48f5497de3';
const MOVED = 'host-ssl-certificate-stale';
const MOVED_BLOCK = `    - key: ${MOVED}
      eventTypeName: HOST_SSL_CERTIFICATE_STALE
      notifications:
        - { typeName: EMAIL, emailAddress: dba-team@acme.example, intervalMin: 1440, delayMin: 0 }
        - { typeName: SMS, mobileNumber: "+15555550100", intervalMin: 1440, delayMin: 60 }
`;

type Files = Record<string, string>;

const s3Event = (path: string) => ({
  Records: [
    {
      eventSource: 'aws:s3',
      eventName: 'ObjectCreated:Put',
      s3: { bucket: { name: WORLD.desiredBucket }, object: { key: `${PREFIX}${path}` } },
    },
  ],
});
const SCHEDULE = {
  source: 'aws.scheduler',
  'detail-type': 'Scheduled Event',
  resources: ['arn:aws:scheduler:eu-west-1:123456789012:schedule/default/reconcile'],
  time: '2026-03-01T10:00:00Z',
};

describe('a torn upload on loopback S3, with DESIRED_STATE_SNAPSHOT=required', () => {
  const h = useHandlerWorld({
    resetEach: true,
    prepare: (world) => {
      world.env.DESIRED_STATE_SNAPSHOT = 'required';
    },
  });
  let client: S3Client;
  /** The example desired state as the world uploaded it (path -> text). */
  let example: Files;
  /** The next upload: the alert config moved from payments-prod's file into the baseline template. */
  let moved: Files;

  beforeAll(() => {
    client = loopbackS3Client(h.world.s3.endpoint);
    const bucket = h.world.s3.buckets.get(WORLD.desiredBucket);
    example = Object.fromEntries(
      [...(bucket?.entries() ?? [])].map(([key, object]) => [key.slice(PREFIX.length), object.body.toString('utf8')]),
    );
    const payments = example[PAYMENTS] ?? '';
    expect(payments).toContain(MOVED_BLOCK);
    moved = {
      ...example,
      [PAYMENTS]: payments.replace(MOVED_BLOCK, ''),
      [BASELINE]: `${example[BASELINE]}${MOVED_BLOCK}`,
    };
  });
  afterAll(() => client.destroy());

  const put = (path: string, text: string) =>
    client.send(new PutObjectCommand({ Bucket: WORLD.desiredBucket, Key: `${PREFIX}${path}`, Body: text }));
  const manifestOf = (files: Files) =>
    snapshotManifestText(
      buildSnapshotManifest(Object.entries(files).map(([path, text]) => ({ path, bytes: Buffer.from(text) }))),
    );
  /** What the stack does: every file (removed ones pruned), then the manifest of the upload. */
  const upload = async (files: Files) => {
    const present = [...(h.world.s3.buckets.get(WORLD.desiredBucket)?.keys() ?? [])];
    for (const key of present) {
      const path = key.slice(PREFIX.length);
      if (path !== SNAPSHOT_FILE && !(path in files)) {
        await client.send(new DeleteObjectCommand({ Bucket: WORLD.desiredBucket, Key: key }));
      }
    }
    for (const [path, text] of Object.entries(files)) await put(path, text);
    await put(SNAPSHOT_FILE, manifestOf(files));
  };
  const opsManagerRequests = async () =>
    ((await emulatorAdmin(h.world.emulator.origin, 'GET', 'requests')) as { entries: unknown[] }).entries.length;
  const stateText = () => h.world.s3.getText(WORLD.dataBucket, 'state/state.json');
  const movedId = () =>
    (JSON.parse(stateText() ?? '{}') as ReconcileState).projects?.[PAYMENTS_PROD]?.alertConfigs[MOVED]?.id;
  const planOf = (runId: unknown): Plan => {
    const keys = [...(h.world.s3.buckets.get(WORLD.dataBucket)?.keys() ?? [])];
    const key = keys.find((k) => k.startsWith('archive/reports/') && k.endsWith(`/${String(runId)}.json`));
    return (JSON.parse(h.world.s3.getText(WORLD.dataBucket, key ?? '') ?? '{}') as { plan: Plan }).plan;
  };
  const deletes = (plan: Plan) =>
    plan.changes.filter((c) => c.action === 'delete').map((c) => `${c.target.id}/${c.key}`);

  it('stops every trigger before the lease and any Ops Manager request; the whole upload then plans normally', async () => {
    await upload(example);
    const first = await h.reconcile(s3Event(SNAPSHOT_FILE), h.ctx());
    expect(first).toMatchObject({ status: 'ok', trigger: 's3', command: 'apply', failedChanges: [] });
    expect(first.applied).toBeGreaterThan(0);
    const id = movedId();
    expect(id).toMatch(/^[0-9a-f]{24}$/);

    // The next upload is half there: the project file is new, the template still old, the manifest already new (a run
    // that read the template just before it was replaced, and the manifest just after it landed, sees exactly this).
    await put(PAYMENTS, moved[PAYMENTS] ?? '');
    await put(SNAPSHOT_FILE, manifestOf(moved));
    const requests = await opsManagerRequests();
    const state = stateText();

    const manual = await h.reconcile({ mode: 'apply' }, h.ctx());
    expect(manual).toMatchObject({
      status: 'failed',
      trigger: 'manual',
      error: { code: 'DESIRED_STATE_IN_TRANSIT', retryable: true },
    });
    const message = (manual.error as { message: string }).message;
    expect(message).toBe(
      `the desired state at s3://${WORLD.desiredBucket}/${PREFIX} does not match its snapshot manifest (${SNAPSHOT_FILE}): 1 of ${Object.keys(example).filter((p) => p.endsWith('.yaml')).length + 1} files differ (${BASELINE}: content differs): an upload is in progress or was interrupted; nothing was planned or written`,
    );
    // The manifest's notification and the schedule throw, so that Lambda retries them; a YAML key's notification
    // answers without throwing (the manifest's own notification follows it: retrying would only raise the alarm).
    for (const event of [s3Event(SNAPSHOT_FILE), SCHEDULE]) {
      await expect(h.reconcile(event, h.ctx())).rejects.toThrow(`DESIRED_STATE_IN_TRANSIT: ${message}`);
    }
    expect(await h.reconcile(s3Event(PAYMENTS), h.ctx())).toMatchObject({
      status: 'failed',
      trigger: 's3',
      error: { code: 'DESIRED_STATE_IN_TRANSIT', message },
    });
    expect(await opsManagerRequests()).toBe(requests);
    expect(stateText()).toBe(state);
    expect(h.world.s3.getText(WORLD.dataBucket, 'state/lease.json')).toBeUndefined();

    // The rest of the upload lands: its notification starts a run that reads it whole.
    await put(BASELINE, moved[BASELINE] ?? '');
    const whole = await h.reconcile(s3Event(BASELINE), h.ctx());
    expect(whole).toMatchObject({ status: 'ok', failedChanges: [] });
    expect((whole.planned as Record<string, number>).delete).toBe(0);
    expect(deletes(planOf(whole.runId))).toEqual([]);
    // The moved config kept its id: it was never deleted and re-created.
    expect(movedId()).toBe(id);
  });

  // docs/aws.md, "Torn uploads": the archive loads the desired state too (the projects whose usage it archives).
  it('the archive function makes the same check: a scheduled archive is rethrown in transit, a manual one answered, nothing archived', async () => {
    await upload(example);
    await put(PAYMENTS, moved[PAYMENTS] ?? '');
    const archiveContext = () => h.ctx('opsman-gitops-archive');
    await expect(h.archive(SCHEDULE, archiveContext())).rejects.toThrow(
      /^DESIRED_STATE_IN_TRANSIT: the desired state at s3:\/\/\S+ does not match its snapshot manifest/,
    );
    expect(await h.archive({}, archiveContext())).toMatchObject({
      status: 'failed',
      trigger: 'manual',
      error: { code: 'DESIRED_STATE_IN_TRANSIT', retryable: true },
    });
    const archived = [...(h.world.s3.buckets.get(WORLD.dataBucket)?.keys() ?? [])].filter(
      (k) => k.startsWith('archive/') && !k.startsWith('archive/reports/'),
    );
    expect(archived).toEqual([]);
    expect(await opsManagerRequests()).toBe(0);
  });

  it('required: no manifest yet is in transit too (the first upload is in progress)', async () => {
    await upload(example);
    await client.send(new DeleteObjectCommand({ Bucket: WORLD.desiredBucket, Key: `${PREFIX}${SNAPSHOT_FILE}` }));
    const requests = await opsManagerRequests();
    const noManifest = `the desired state at s3://${WORLD.desiredBucket}/${PREFIX} has no snapshot manifest (${SNAPSHOT_FILE}) yet`;
    await expect(h.reconcile(SCHEDULE, h.ctx())).rejects.toThrow(`DESIRED_STATE_IN_TRANSIT: ${noManifest}`);
    const fromYaml = await h.reconcile(s3Event(PAYMENTS), h.ctx());
    expect(fromYaml).toMatchObject({ status: 'failed', error: { code: 'DESIRED_STATE_IN_TRANSIT' } });
    expect((fromYaml.error as { message: string }).message).toContain(noManifest);
    expect(await opsManagerRequests()).toBe(requests);
    expect(stateText()).toBeUndefined();
  });

  it('the moved alert: without the check the torn read prunes it; with the check nothing is deleted', async () => {
    await upload(example);
    expect(await h.reconcile({ mode: 'apply' }, h.ctx())).toMatchObject({ status: 'ok', failedChanges: [] });
    const id = movedId();
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    // A deployment as before manifests (DESIRED_STATE_SNAPSHOT unset, no manifest written): nothing to compare with.
    const saved = process.env.DESIRED_STATE_SNAPSHOT;
    delete process.env.DESIRED_STATE_SNAPSHOT;
    let unchecked: Handler;
    try {
      // Imported here: the handler module builds its own context at import, from the world's environment.
      const { createAppContext } = await import('../../../lambdas/handlers/app-context.ts');
      const { createReconcileHandler } = await import('../../../lambdas/handlers/reconcile.ts');
      unchecked = createReconcileHandler(createAppContext()) as unknown as Handler;
    } finally {
      process.env.DESIRED_STATE_SNAPSHOT = saved;
    }
    await client.send(new DeleteObjectCommand({ Bucket: WORLD.desiredBucket, Key: `${PREFIX}${SNAPSHOT_FILE}` }));
    await put(PAYMENTS, moved[PAYMENTS] ?? '');

    const blind = await unchecked({ mode: 'apply', dryRun: true }, h.ctx());
    expect(blind).toMatchObject({ status: 'ok', command: 'plan' });
    expect(deletes(planOf(blind.runId))).toEqual([`${PAYMENTS_PROD}/${MOVED}`]);

    // The same torn read with a manifest, old (the upload is in progress) or new (it just finished): stopped, even by
    // the deployment that does not require one, and nothing is deleted.
    const requests = await opsManagerRequests();
    for (const [manifest, differs] of [
      [manifestOf(example), PAYMENTS],
      [manifestOf(moved), BASELINE],
    ] as const) {
      await put(SNAPSHOT_FILE, manifest);
      for (const handler of [unchecked, h.reconcile]) {
        const stopped = await handler({ mode: 'apply' }, h.ctx());
        expect(stopped).toMatchObject({ status: 'failed', error: { code: 'DESIRED_STATE_IN_TRANSIT' } });
        expect((stopped.error as { message: string }).message).toContain(`(${differs}: content differs)`);
      }
    }
    expect(await opsManagerRequests()).toBe(requests);
    expect(movedId()).toBe(id);
  });
});
