// Scenario: an engineer paged at night by each alarm has only the alarm, the function's JSON log lines and the archived
// reports. Each alarm's most likely real causes are made to happen against loopback S3, Secrets Manager and the
// emulator (real handlers, real SDK clients, real Digest); the metric the alarm watches is checked in the EMF output,
// and the invocation's own log lines must say what failed, for which target, and what to do next (runId, code,
// target, nextStep on every failure line), never a secret. The field names the runbook's Logs Insights queries use
// (docs/aws.md, "Runbook") are the ones asserted here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { emulatorAdmin, fakeLambdaContext, WORLD } from '../../helpers/aws-world.ts';
import { W } from '../../helpers/emulator-client.ts';
import { useHandlerWorld } from '../../helpers/handler-world.ts';
import { captureProcessOutput } from '../../helpers/process-output.ts';

// The production level (the stack sets INFO): the lines an operator gets, not the test default (ERROR).
process.env.TEST_LOG_LEVEL = 'INFO';

const localSecrets = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', '..', '..', 'desired-state', 'local-secrets.json'), 'utf8'),
) as Record<string, Record<string, string>>;
const SECRETS = [WORLD.privateKey, ...Object.values(localSecrets).flatMap((o) => Object.values(o))];

const SCHEDULE = {
  version: '0',
  id: 'e-1',
  'detail-type': 'Scheduled Event',
  source: 'aws.scheduler',
  account: '123456789012',
  time: '2026-03-01T02:00:00Z',
  region: 'eu-west-1',
  resources: ['arn:aws:scheduler:eu-west-1:123456789012:schedule/default/opsman-gitops-reconcile'],
  detail: {},
};

type Line = Record<string, unknown> & { level: string; message: string };

/** One invocation as CloudWatch sees it: its log lines (parsed), the metrics of its EMF documents, its outcome. */
interface Invocation {
  lines: Line[];
  metrics: Map<string, number>;
  text: string;
  result?: Record<string, unknown> & { status: string };
  thrown?: string;
}

async function invoke(fn: () => Promise<Record<string, unknown> & { status: string }>): Promise<Invocation> {
  const out: Partial<Invocation> = {};
  const captured = await captureProcessOutput(fn);
  if (captured.result !== undefined) out.result = captured.result;
  if (captured.thrown !== undefined) {
    out.thrown = captured.thrown instanceof Error ? captured.thrown.message : String(captured.thrown);
  }
  const text = captured.text;
  const lines: Line[] = [];
  const metrics = new Map<string, number>();
  for (const raw of text.split('\n')) {
    if (!raw.startsWith('{')) continue;
    const doc = JSON.parse(raw) as Record<string, unknown>;
    if ('_aws' in doc) {
      const aws = doc._aws as { CloudWatchMetrics: { Metrics: { Name: string }[] }[] };
      for (const { Name } of aws.CloudWatchMetrics.flatMap((m) => m.Metrics)) {
        metrics.set(Name, (metrics.get(Name) ?? 0) + Number(doc[Name]));
      }
    } else lines.push(doc as Line);
  }
  return { ...out, lines, metrics, text };
}

/** The lines of `inv` with this message. */
const named = (inv: Invocation, message: string) => inv.lines.filter((l) => l.message === message);

/**
 * What every failure line must carry: the run's id (when there is a run), the code, a next step; a `target failed`
 * line its target (type, id, name). And no line of the invocation quotes a secret.
 */
function expectActionable(inv: Invocation, options: { run: boolean } = { run: true }): void {
  const failures = inv.lines.filter(
    (l) =>
      l.level === 'ERROR' ||
      l.message === 'run failed' ||
      l.message === 'drift detected' ||
      l.message === 'change blocked',
  );
  expect(failures.length).toBeGreaterThan(0);
  for (const line of failures) {
    if (options.run) expect(line.runId, line.message).toMatch(/^\d{8}T\d{6}Z-[0-9a-f]{8}$/);
    expect(line.function_request_id, line.message).toMatch(/^req-/);
    if (line.message !== 'drift detected') expect(line.code, line.message).toMatch(/^[A-Z][A-Z0-9_]+$/);
    expect(typeof line.nextStep, line.message).toBe('string');
    expect((line.nextStep as string).length).toBeGreaterThan(10);
    if (line.message === 'target failed' || line.message === 'drift detected' || line.message === 'change blocked') {
      expect(line.target).toMatchObject({ type: expect.any(String), id: expect.any(String), name: expect.any(String) });
    }
  }
  for (const secret of SECRETS) expect(inv.text).not.toContain(secret);
}

describe('each alarm fired for real, and what its log lines tell the engineer', { timeout: 60_000 }, () => {
  const h = useHandlerWorld({ resetEach: true });
  const reconcile = (event: unknown) => () => h.reconcile(event, h.ctx());
  // A new container: the shared one caches the credentials secret for 300 s, and must never cache a broken one.
  let cold = 0;
  const coldContainer = async () => {
    // Imported here: the module's own scope reads the environment, which useHandlerWorld sets in beforeAll.
    const { createReconcileHandler } = await import('../../../lambdas/handlers/reconcile.ts');
    const { createAppContext } = await import('../../../lambdas/handlers/app-context.ts');
    const handler = createReconcileHandler(createAppContext());
    return (event: unknown) => () =>
      handler(event, fakeLambdaContext(`req-cold-${++cold}`) as unknown as Context) as unknown as Promise<
        Record<string, unknown> & { status: string }
      >;
  };
  const setCredentials = (value: string) => h.world.secrets.secrets.set(WORLD.credentialsSecretId, value);
  const goodCredentials = JSON.stringify({ publicKey: WORLD.publicKey, privateKey: WORLD.privateKey });
  const fault = (body: Record<string, unknown>) => emulatorAdmin(h.world.emulator.origin, 'POST', 'faults', body);

  describe('RunFailed', () => {
    it('credentials rotated wrongly (a private key pasted with its newline): CREDENTIALS_INVALID naming the field', async () => {
      setCredentials(JSON.stringify({ publicKey: WORLD.publicKey, privateKey: `${WORLD.privateKey}\n` }));
      try {
        const inv = await invoke((await coldContainer())(SCHEDULE));
        expect(inv.metrics.get('RunFailed')).toBe(1);
        expect(inv.metrics.has('LastSuccess')).toBe(false);
        const [line] = named(inv, 'run failed');
        expect(line).toMatchObject({ level: 'ERROR', code: 'CREDENTIALS_INVALID', trigger: 'schedule' });
        expect(String((line?.error as { message: string } | undefined)?.message)).toContain('privateKey');
        expect(line?.nextStep).toContain('credentials secret');
        expectActionable(inv);
      } finally {
        setCredentials(goodCredentials);
      }
    });

    it('invalid YAML merged: DESIRED_STATE_INVALID with the file, line and column of each problem', async () => {
      const key = 'desired-state/projects/search.yaml';
      const before = h.world.s3.getText(WORLD.desiredBucket, key) ?? '';
      h.world.s3.putDirect(WORLD.desiredBucket, key, `${before}\n  bad: [unclosed\n`);
      try {
        const inv = await invoke(reconcile(SCHEDULE));
        expect(inv.metrics.get('RunFailed')).toBe(1);
        const [line] = named(inv, 'run failed');
        expect(line).toMatchObject({ code: 'DESIRED_STATE_INVALID' });
        expect(line?.nextStep).toContain('validate');
        expect((line?.issues as { file: string; line: number }[] | undefined)?.[0]).toMatchObject({
          file: 'projects/search.yaml',
          line: expect.any(Number),
        });
        expectActionable(inv);
      } finally {
        h.world.s3.putDirect(WORLD.desiredBucket, key, before);
      }
    });

    it('a state too new after a rollback: STATE_TOO_NEW, and the next step is not "delete the state"', async () => {
      h.world.s3.putDirect(WORLD.dataBucket, 'state/state.json', JSON.stringify({ formatVersion: 2, projects: {} }));
      const inv = await invoke(reconcile(SCHEDULE));
      expect(inv.metrics.get('RunFailed')).toBe(1);
      expect(inv.result).toMatchObject({ status: 'failed' });
      const [line] = named(inv, 'run failed');
      expect(line).toMatchObject({ code: 'STATE_TOO_NEW', error: { code: 'STATE_TOO_NEW', retryable: false } });
      expect(line?.nextStep).toMatch(/deploy that version again/);
      expectActionable(inv);
    });
  });

  describe('TargetsFailed', () => {
    it('a project deleted in Ops Manager: one "target failed" line naming it by id, still failing on the next run', async () => {
      await fault({ path: `/groups/${W.searchProd}/**`, status: 404, errorCode: 'GROUP_NOT_FOUND', times: 99 });
      const first = await invoke(reconcile(SCHEDULE));
      const second = await invoke(reconcile(SCHEDULE));
      for (const inv of [first, second]) {
        expect(inv.metrics.get('TargetsFailed')).toBe(1);
        expect(inv.metrics.has('RunFailed')).toBe(false);
        // A run with a failed target is no success: NoSuccessfulRun follows if it lasts.
        expect(inv.metrics.has('LastSuccess')).toBe(false);
        const lines = named(inv, 'target failed');
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatchObject({
          level: 'ERROR',
          target: { type: 'project', id: W.searchProd, name: 'search-prod' },
          phase: 'read',
          code: 'OPSMAN_API_ERROR',
          httpStatus: 404,
        });
        expect(lines[0]?.error).toContain('404 GROUP_NOT_FOUND');
        expect(lines[0]?.nextStep).toMatch(/gone from Ops Manager/);
        expectActionable(inv);
      }
      expect(named(first, 'target failed')[0]?.runId).not.toBe(named(second, 'target failed')[0]?.runId);
    });

    it('a key without the role for a singleton: the refused write is a coded "target failed" line', async () => {
      await fault({
        method: 'PUT',
        path: '/usage/groups/*/defaultServerType',
        status: 403,
        errorCode: 'USER_UNAUTHORIZED',
      });
      const inv = await invoke(reconcile(SCHEDULE));
      expect(inv.metrics.get('TargetsFailed')).toBe(1);
      const [line] = named(inv, 'target failed');
      // The client codes a 403 as OPSMAN_AUTH_ERROR; the next step tells it from a refused key by the status.
      expect(line).toMatchObject({
        phase: 'apply',
        code: 'OPSMAN_AUTH_ERROR',
        httpStatus: 403,
        target: { type: 'project' },
      });
      expect(line?.error).toMatch(/^defaultServerType defaultServerType: update failed: .*403 USER_UNAUTHORIZED/);
      expect(line?.nextStep).toMatch(/lacks the role/);
      expect(inv.result?.failedChanges).toEqual([
        expect.objectContaining({ code: 'OPSMAN_AUTH_ERROR', httpStatus: 403 }),
      ]);
      expectActionable(inv);
    });

    it('an API key Ops Manager refuses (deleted, or the secret holds an old one): every target OPSMAN_AUTH_ERROR, no RunFailed', async () => {
      setCredentials(
        JSON.stringify({ publicKey: WORLD.publicKey, privateKey: `${WORLD.privateKey.slice(0, -4)}0000` }),
      );
      try {
        const inv = await invoke((await coldContainer())(SCHEDULE));
        // Every project and organization, and the installation-wide version manifest (target global).
        expect(inv.metrics.get('TargetsFailed')).toBe(7);
        expect(inv.metrics.has('RunFailed')).toBe(false);
        const lines = named(inv, 'target failed');
        // One cause on every target: its first 5 lines, the last counting the rest (one cause must not flood the log).
        expect(lines.length).toBeLessThanOrEqual(6);
        expect(lines.length + lines.reduce((n, l) => n + Number(l.more ?? 0), 0)).toBe(7);
        for (const line of lines) expect(line).toMatchObject({ code: 'OPSMAN_AUTH_ERROR', httpStatus: 401 });
        expect(lines[0]?.nextStep).toMatch(/credentials secret/);
        expectActionable(inv);
      } finally {
        setCredentials(goodCredentials);
      }
    });
  });

  it("DriftDetected: a setting changed by hand in Ops Manager (the seed's audit-log rotation); the line names it and its fields", async () => {
    const inv = await invoke(reconcile({ mode: 'plan' }));
    expect(inv.metrics.get('DriftDetected')).toBeGreaterThanOrEqual(1);
    const lines = named(inv, 'drift detected').filter((l) => (l.target as { id: string }).id === W.searchProd);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'WARN',
      target: { type: 'project', id: W.searchProd, name: 'search-prod' },
      kind: 'auditLogRotation',
      fields: expect.arrayContaining(['numTotal']),
      changedBy: expect.any(Array),
    });
    expect(lines[0]?.nextStep).toMatch(/not corrected by this plan run/);
    expectActionable(inv);
  });

  it('Blocked: a notification secret deleted, another missing its key; each blocked alert config gets a line naming the reference', async () => {
    const analytics = h.world.secrets.secrets.get('opsman/analytics');
    const notify = h.world.secrets.secrets.get('opsman/notify');
    h.world.secrets.secrets.delete('opsman/analytics');
    const { 'slack-bot-token': _dropped, ...rest } = localSecrets['opsman/notify'] ?? {};
    h.world.secrets.secrets.set('opsman/notify', JSON.stringify(rest));
    try {
      const inv = await invoke((await coldContainer())(SCHEDULE));
      // The run writes everything else and ends ok: the alarm and the lines are all an operator gets.
      expect(inv.result?.status).toBe('ok');
      expect(inv.metrics.get('Blocked')).toBe(3);
      const lines = named(inv, 'change blocked');
      expect(lines).toHaveLength(3);
      for (const line of lines) {
        expect(line).toMatchObject({ level: 'WARN', code: 'CHANGE_BLOCKED', kind: 'alertConfig' });
        expect(line.nextStep).toMatch(/secret or key to create/);
      }
      const gone = lines.filter((l) => (l.target as { id: string }).id === W.analyticsDev);
      expect(gone.map((l) => l.key).sort()).toEqual(['no-primary', 'replication-oplog-resync']);
      expect(String(gone[0]?.reason)).toMatch(/secret 'opsman\/analytics': no such secret/);
      expect(String(gone[0]?.reason)).toMatch(/projects\/analytics\.yaml:\d+:\d+/);
      const keyless = lines.find((l) => (l.target as { id: string }).id === W.paymentsProd);
      expect(String(keyless?.reason)).toMatch(/opsman\/notify#slack-bot-token .* no such key/);
      expectActionable(inv);
    } finally {
      if (analytics !== undefined) h.world.secrets.secrets.set('opsman/analytics', analytics);
      if (notify !== undefined) h.world.secrets.secrets.set('opsman/notify', notify);
    }
  });

  it('EventRejected: a schedule payload edited by hand; the line says which field and what to do', async () => {
    const inv = await invoke(reconcile({ ...SCHEDULE, detail: { mode: 'apply' } }));
    expect(inv.metrics.get('EventRejected')).toBe(1);
    const [line] = named(inv, 'event rejected');
    expect(line).toMatchObject({ level: 'ERROR', code: 'INVALID_EVENT' });
    expect((line?.error as { message: string } | undefined)?.message).toContain('detail.mode');
    expect(line?.nextStep).toMatch(/redeploy the stack/);
    // No run started: the Lambda request id is the handle (the SQS and Scheduler records carry it too).
    expect(line?.runId).toBeUndefined();
    expectActionable(inv, { run: false });
  });

  it('ReconcileErrors: S3 unavailable through the SDK retries; the scheduled run logs S3_ACCESS, then rethrows', async () => {
    h.world.s3.injectFault({
      method: 'GET',
      key: `${WORLD.desiredBucket}/`,
      status: 503,
      code: 'SlowDown',
      count: 999,
    });
    try {
      const inv = await invoke(reconcile(SCHEDULE));
      expect(inv.thrown).toMatch(/^S3_ACCESS: /);
      expect(inv.metrics.get('RunFailed')).toBe(1);
      const [line] = named(inv, 'run failed');
      expect(line).toMatchObject({ code: 'S3_ACCESS', error: { retryable: true } });
      expect(line?.nextStep).toMatch(/next run succeeds/);
      expectActionable(inv);
    } finally {
      h.world.s3.clearFaults();
    }
  });

  it('ArchiveErrors: the archive cannot store the version manifest; the scheduled archive logs a coded target line, then rethrows', async () => {
    h.world.s3.injectFault({
      method: 'PUT',
      key: `${WORLD.dataBucket}/archive/manifests/*`,
      status: 503,
      code: 'SlowDown',
      count: 999,
    });
    try {
      const inv = await invoke(() => h.archive(SCHEDULE, h.ctx('opsman-gitops-archive')));
      expect(inv.thrown).toMatch(/^ARCHIVE_PARTIAL: /);
      expect(inv.metrics.get('TargetsFailed')).toBe(1);
      const [line] = named(inv, 'target failed');
      expect(line).toMatchObject({ code: 'ARCHIVE_FAILED', target: { type: 'global' }, trigger: 'schedule' });
      expect(line?.error).toMatch(/version manifest: .*503/);
      expectActionable(inv);
    } finally {
      h.world.s3.clearFaults();
    }
  });

  it('NoSuccessfulRun: runs that end partial emit no LastSuccess; their "run finished" lines say partial and where the report is', async () => {
    await fault({ path: `/groups/${W.analyticsDev}/**`, status: 404, errorCode: 'GROUP_NOT_FOUND' });
    const inv = await invoke(reconcile(SCHEDULE));
    expect(inv.metrics.has('LastSuccess')).toBe(false);
    const [finished] = named(inv, 'run finished');
    const summary = finished?.summary as { status: string; runId: string; report: string };
    expect(summary).toMatchObject({ status: 'partial', targetsFailed: 1 });
    expect(summary.report).toBe(
      `s3://${WORLD.dataBucket}/archive/reports/${summary.runId.slice(0, 4)}-${summary.runId.slice(4, 6)}-${summary.runId.slice(6, 8)}/${summary.runId}.json`,
    );
    const key = summary.report.replace(`s3://${WORLD.dataBucket}/`, '');
    const report = JSON.parse(h.world.s3.getText(WORLD.dataBucket, key) ?? '{}') as { failures: { code: string }[] };
    expect(report.failures).toEqual([expect.objectContaining({ code: 'OPSMAN_API_ERROR' })]);
    expectActionable(inv);
  });
});
