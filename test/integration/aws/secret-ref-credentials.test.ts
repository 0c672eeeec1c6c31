// Scenario: a desired state whose webhookSecret names the Ops Manager credentials secret (`opsman/credentials#privateKey`,
// readable by the function like every `opsman/*` secret): the reconcile handler blocks that alert config with
// SECRET_REF_REFUSED, applies the rest, and the private key appears in no request to Ops Manager, no summary, no state.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emulatorAdmin, WORLD } from '../../helpers/aws-world.ts';
import { useHandlerWorld } from '../../helpers/handler-world.ts';

const PAYMENTS = 'desired-state/projects/payments.yaml';
let hostileText = '';

/** The reasons of the `no-primary` changes of the run reports in the data bucket, one per report. */
function noPrimaryReasons(world: ReturnType<typeof useHandlerWorld>['world']): string[] {
  const data = world.s3.buckets.get(WORLD.dataBucket);
  return [...(data?.keys() ?? [])]
    .filter((k) => k.startsWith('archive/reports/'))
    .map((k) => {
      const report = JSON.parse(world.s3.getText(WORLD.dataBucket, k) ?? '{}') as {
        plan: { changes: { key: string; action: string; reason?: string }[] };
      };
      return report.plan.changes.find((c) => c.key === 'no-primary' && c.action === 'blocked')?.reason ?? '';
    });
}

describe('a secretRef to the credentials secret', { timeout: 60_000 }, () => {
  const h = useHandlerWorld({
    prepare: async (world) => {
      const yaml = await readFile(join(import.meta.dirname, '..', '..', '..', PAYMENTS), 'utf8');
      const hostile = yaml.replace('opsman/notify#payments-webhook-secret', 'opsman/credentials#privateKey');
      expect(hostile).not.toBe(yaml);
      hostileText = hostile;
      world.s3.putDirect(WORLD.desiredBucket, PAYMENTS, hostile);
    },
  });

  it('is refused for that alert config only, and the private key is never sent or stored', async () => {
    const summary = await h.reconcile({ mode: 'apply' }, h.ctx());
    expect(summary.status).toBe('ok');
    expect(summary.blocked).toBe(1);
    expect(summary.applied).toBeGreaterThan(0);
    const data = h.world.s3.buckets.get(WORLD.dataBucket);
    const reportKey = [...(data?.keys() ?? [])].find((k) => k.startsWith('archive/reports/'));
    const report = JSON.parse(h.world.s3.getText(WORLD.dataBucket, reportKey ?? '') ?? '{}') as {
      plan: { changes: { key: string; action: string; reason?: string }[] };
      results: { change: { key: string; action: string }; status: string; message?: string }[];
    };
    const refused = [
      ...report.plan.changes.map((c) => `${c.key} ${c.action}: ${c.reason ?? ''}`),
      ...report.results.map((r) => `${r.change.key} ${r.change.action} ${r.status}: ${r.message ?? ''}`),
    ].filter((line) => line.includes('SECRET_REF_REFUSED') || line.includes('credentials are never sent'));
    expect(refused.length).toBeGreaterThan(0);
    for (const line of refused) expect(line).toMatch(/^no-primary /);
    const log = (await emulatorAdmin(h.world.emulator.origin, 'GET', 'requests')) as unknown;
    const everything = [
      JSON.stringify(summary),
      JSON.stringify(log),
      ...[...(data?.values() ?? [])].map((o) => o.body.toString('utf8')),
    ].join('\n');
    expect(everything).not.toContain(WORLD.privateKey);
  });

  it('the blocked reason points at the secretRef by its key under the prefix, and again on the next run', async () => {
    // The reference's string starts at its opening quote (yaml's node range).
    const offset = hostileText.indexOf('"opsman/credentials#privateKey"');
    const line = hostileText.slice(0, offset).split('\n').length;
    const column = offset - hostileText.lastIndexOf('\n', offset - 1);
    const where = `(notifications[WEBHOOK].webhookSecret) at projects/payments.yaml:${line}:${column} could not be resolved`;
    const before = noPrimaryReasons(h.world).length;
    await h.reconcile({ mode: 'plan' }, h.ctx());
    const reasons = noPrimaryReasons(h.world);
    expect(reasons.length).toBe(before + 1);
    for (const reason of reasons) expect(reason).toContain(where);
  });
});
