// Scenario: the reconcile Lambda (real handler, loopback S3 and Secrets Manager, the emulator over Digest) applies on schedule while a second API key keeps disabling an alert config between invocations: the FIGHT_RUNS-th invocation, and no earlier one, logs an `update fight detected` line (WARN, code UPDATE_FIGHT) naming the object, the key, the runs and the next step, beside its `drift detected` line, with no secret in any line.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIGHT_RUNS } from '../../../lambdas/core/fight-streak.ts';
import { WORLD } from '../../helpers/aws-world.ts';
import { DigestClient, K, W } from '../../helpers/emulator-client.ts';
import { useHandlerWorld } from '../../helpers/handler-world.ts';
import { captureProcessOutput, jsonLogLines, type LogLine } from '../../helpers/process-output.ts';

// The production level (the stack sets INFO): the lines an operator gets.
process.env.TEST_LOG_LEVEL = 'INFO';

const localSecrets = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', '..', '..', 'desired-state', 'local-secrets.json'), 'utf8'),
) as Record<string, Record<string, string>>;
const SECRETS = [WORLD.privateKey, K.jdoe.privateKey, ...Object.values(localSecrets).flatMap((o) => Object.values(o))];

/** One invocation's JSON log lines (EMF documents left out) and its whole output. */
async function invoke(fn: () => Promise<unknown>): Promise<{ lines: LogLine[]; text: string }> {
  const { text } = await captureProcessOutput(fn);
  return { lines: jsonLogLines(text), text };
}

describe('update fight in the Lambda log', { timeout: 60_000 }, () => {
  const h = useHandlerWorld({ resetEach: true });

  it('the FIGHT_RUNS-th apply logs one coded update-fight line per object fought over, and no earlier apply does', async () => {
    const apply = () => invoke(() => h.reconcile({ mode: 'apply' }, h.ctx()));
    const first = await apply();
    expect(first.lines.filter((l) => l.message === 'update fight detected')).toEqual([]);
    const other = new DigestClient(h.world.emulator.url, K.jdoe);
    const listed = await other.get(`/groups/${W.paymentsProd}/alertConfigs`);
    const ours = (listed.body.results as { id: string; eventTypeName: string; notifications: { typeName: string }[] }[])
      .filter((c) => c.eventTypeName === 'NO_PRIMARY' && c.notifications.some((n) => n.typeName === 'WEBHOOK'))
      .map((c) => c.id);
    expect(ours).toHaveLength(1);

    for (let run = 1; run <= FIGHT_RUNS; run++) {
      const disabled = await other.patch(`/groups/${W.paymentsProd}/alertConfigs/${ours[0]}`, { enabled: false });
      expect(disabled.status).toBe(200);
      const inv = await apply();
      const drift = inv.lines.filter((l) => l.message === 'drift detected' && l.key === 'no-primary');
      expect(drift).toHaveLength(1);
      const fights = inv.lines.filter((l) => l.message === 'update fight detected');
      for (const secret of SECRETS) expect(inv.text).not.toContain(secret);
      if (run < FIGHT_RUNS) {
        expect(fights).toEqual([]);
        continue;
      }
      expect(fights).toHaveLength(1);
      expect(fights[0]).toMatchObject({
        level: 'WARN',
        code: 'UPDATE_FIGHT',
        target: { type: 'project', id: W.paymentsProd, name: 'payments-prod' },
        kind: 'alertConfig',
        key: 'no-primary',
        runs: FIGHT_RUNS,
        actors: [{ actor: 'jdoekey1', actorType: 'apiKey' }],
        fields: ['enabled'],
      });
      expect(fights[0]?.nextStep).toMatch(/give it one owner/);
      expect(fights[0]?.runId).toBe(drift[0]?.runId);
    }
  });
});
