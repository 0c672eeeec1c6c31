// Scenario: the reconcile handler over a state object in S3 that it cannot use: one written by a newer version is
// refused untouched with nothing written to Ops Manager; a malformed one deep inside (organizations, alert records) is
// reported corrupt before any write, recovered by adoption and replaced, instead of failing with a TypeError mid-apply.
import { describe, expect, it } from 'vitest';
import { emulatorAdmin, WORLD } from '../../helpers/aws-world.ts';
import { useHandlerWorld } from '../../helpers/handler-world.ts';
import { captureProcessOutput, jsonLogLines } from '../../helpers/process-output.ts';

// The lines an operator filters on (WARN and above), not the test default (ERROR).
process.env.TEST_LOG_LEVEL = 'WARN';

const STATE_KEY = 'state/state.json';

describe('the reconcile handler over an unusable state object', { timeout: 60_000 }, () => {
  const h = useHandlerWorld({ resetEach: true });
  const ctx = () => h.ctx();
  const writes = async () => {
    const log = (await emulatorAdmin(h.world.emulator.origin, 'GET', 'requests')) as { entries: { method: string }[] };
    return log.entries.filter((e) => e.method !== 'GET').length;
  };

  it('a state of a newer format version: the run fails STATE_TOO_NEW, writes nothing and leaves the state as it is', async () => {
    const newer = JSON.stringify({ formatVersion: 2, updatedAt: 'x', projects: {}, owners: { added: 'in v2' } });
    h.world.s3.putDirect(WORLD.dataBucket, STATE_KEY, newer);
    const summary = await h.reconcile({ mode: 'apply' }, ctx());
    expect(summary).toMatchObject({
      status: 'failed',
      error: {
        code: 'STATE_TOO_NEW',
        message: `state s3://${WORLD.dataBucket}/${STATE_KEY} has formatVersion 2; this version reads formatVersion 1: run or deploy the version of opsman-gitops that wrote it, or a later one (the state is left as it is)`,
        retryable: false,
      },
    });
    expect(h.world.s3.getText(WORLD.dataBucket, STATE_KEY)).toBe(newer);
    expect(h.world.s3.getText(WORLD.dataBucket, 'state/lease.json')).toBeUndefined();
    expect(await writes()).toBe(0);
  });

  it('a state cut short (not JSON): the run goes on, and a WARN line says the state was corrupt and what to do', async () => {
    h.world.s3.putDirect(WORLD.dataBucket, STATE_KEY, '{"formatVersion": 1, "projects": {"5e22');
    const captured = await captureProcessOutput(() => h.reconcile({ mode: 'apply' }, ctx()));
    expect(captured.result).toMatchObject({ status: 'ok', failed: 0 });
    const lines = jsonLogLines(captured.text).filter((l) => l.message === 'state was corrupt');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'WARN', code: 'STATE_CORRUPT', runId: captured.result?.runId });
    expect(String(lines[0]?.warning)).toContain(`s3://${WORLD.dataBucket}/${STATE_KEY} cannot be used: not JSON`);
    expect(lines[0]?.nextStep).toMatch(/previous version of the state object/);
    // A corrupt state is not a lease left behind: no such line.
    expect(jsonLogLines(captured.text).filter((l) => String(l.message).startsWith('lease not released'))).toEqual([]);
  });

  it.each([
    ['organizations a number', { organizations: 5 }, 'organizations is a number, expected an object'],
    [
      'an organization null',
      { organizations: { '5e2211c17a3e5a48f5497de0': null } },
      'organizations.5e2211c17a3e5a48f5497de0 is null, expected an object',
    ],
    [
      'singleton digests a list',
      { organizations: { '5e2211c17a3e5a48f5497de0': { singletons: [] } } },
      'organizations.5e2211c17a3e5a48f5497de0.singletons is an array, expected an object',
    ],
    [
      'an alert record null',
      { projects: { '5e2211c17a3e5a48f5497de3': { alertConfigs: { 'no-primary': null } } } },
      'projects.5e2211c17a3e5a48f5497de3.alertConfigs.no-primary is null, expected an object',
    ],
  ])(
    'a state with %s: reported corrupt, the apply completes and the state is replaced',
    async (_name, fields, problem) => {
      h.world.s3.putDirect(
        WORLD.dataBucket,
        STATE_KEY,
        JSON.stringify({ formatVersion: 1, updatedAt: 'x', projects: {}, ...fields }),
      );
      const summary = await h.reconcile({ mode: 'apply' }, ctx());
      expect(summary).toMatchObject({ status: 'ok', failed: 0 });
      expect(summary.applied).toBeGreaterThan(0);
      // Reported: the run's archived report names the state corrupt, and what in it was wrong.
      const reportKeys = [...(h.world.s3.buckets.get(WORLD.dataBucket)?.keys() ?? [])].filter((k) =>
        k.startsWith('archive/reports/'),
      );
      expect(reportKeys).toHaveLength(1);
      const report = JSON.parse(h.world.s3.getText(WORLD.dataBucket, reportKeys[0] ?? '') ?? '{}') as {
        warnings?: string[];
      };
      const corrupt = (report.warnings ?? []).filter((w) => w.startsWith('STATE WAS CORRUPT'));
      expect(corrupt).toHaveLength(1);
      expect(corrupt[0]).toContain(`s3://${WORLD.dataBucket}/${STATE_KEY} cannot be used: `);
      expect(corrupt[0]).toContain(problem);
      // Replaced: both organizations of the desired state hold their singleton digests as an object again.
      const state = JSON.parse(h.world.s3.getText(WORLD.dataBucket, STATE_KEY) ?? '{}') as {
        organizations?: Record<string, { singletons?: Record<string, string> }>;
        opsManager?: { baseUrl: string };
      };
      // And it records the Ops Manager the Lambda applies to (OPSMAN_BASE_URL).
      expect(state.opsManager).toEqual({ baseUrl: h.world.env.OPSMAN_BASE_URL });
      const orgs = Object.entries(state.organizations ?? {});
      expect(orgs.map(([id]) => id).sort()).toEqual(['5e2211c17a3e5a48f5497de0', '5e2211c17a3e5a48f5497de1']);
      for (const [, org] of orgs)
        expect(org.singletons).toEqual({ defaultServerType: expect.stringMatching(/^[0-9a-f]{64}$/) });
      const again = await h.reconcile({ mode: 'apply' }, ctx());
      expect(again).toMatchObject({ status: 'ok', applied: 0, failed: 0 });
    },
  );
});
