// Scenario: the echo of an alert config write confirms it only when the secrets it shows redacted can be what was
// sent. An echo whose PagerDuty key keeps other last characters than the key sent is no confirmation: the re-read
// after the writes decides, so a secret Ops Manager did not keep is not taken as converged.
import { describe, expect, it } from 'vitest';
import type { DesiredAlertBody } from '../../../lambdas/core/alert-body.ts';
import type { AlertApplyContext } from '../../../lambdas/core/apply-alerts.ts';
import { applyTarget } from '../../../lambdas/core/apply-target.ts';
import type { Change } from '../../../lambdas/core/model.ts';
import type { OpsManagerApi } from '../../../lambdas/core/ports.ts';
import { emptyState, setAlertRecord } from '../../../lambdas/core/state.ts';
import type { AlertConfigRequest } from '../../../lambdas/opsman/types.ts';
import { applyContext } from '../../helpers/apply-context.ts';

const NOW = '2026-11-26T12:00:00.000Z';
const GROUP = '5e2211c17a3e5a48f5497de3';
const ID = '6b0000000000000000000001';
const KEY = 'pd-service-key-1234';
const target = { type: 'project' as const, id: GROUP, name: 'payments-prod' };

const after = {
  eventTypeName: 'HOST_DOWN',
  enabled: true,
  matchers: [],
  notifications: [{ typeName: 'PAGER_DUTY', serviceKey: { secretRef: 'pd#key' }, intervalMin: 5, delayMin: 0 }],
} as unknown as DesiredAlertBody;

const update: Change = {
  target,
  kind: 'alertConfig',
  key: 'disk',
  action: 'update',
  id: ID,
  after,
  fields: [],
  reason: '',
};

/** Applies `update` against an API echoing what it was sent, its service key shown as `shownKey`. */
async function applyEchoing(shownKey: string, spoil: (echo: Record<string, unknown>) => void = () => {}) {
  const state = emptyState(NOW);
  setAlertRecord(state, GROUP, 'disk', { id: ID });
  const sent: AlertConfigRequest[] = [];
  const api = {
    async updateAlertConfig(_group: string, id: string, request: AlertConfigRequest) {
      sent.push(request);
      const echo = structuredClone(request) as unknown as { notifications: Record<string, unknown>[] };
      for (const n of echo.notifications) if ('serviceKey' in n) n.serviceKey = shownKey;
      spoil(echo as unknown as Record<string, unknown>);
      return { ...echo, id, groupId: GROUP, created: NOW, updated: NOW };
    },
  } as unknown as OpsManagerApi;
  const secrets = { resolve: async (ref: string) => (ref === 'pd#key' ? KEY : Promise.reject(new Error(ref))) };
  const ctx = applyContext(NOW, { api, secrets, fingerprintKey: new Uint8Array(32).fill(3), state });
  const alertCtx: AlertApplyContext = { api, secrets, fingerprintKey: ctx.fingerprintKey, state, now: () => NOW };
  const out = await applyTarget([update], ctx, alertCtx);
  return { out, sent };
}

describe('the echo of a write with a secret', () => {
  it('confirms the write when the redacted key can be the one sent', async () => {
    const { out, sent } = await applyEchoing('****************1234');
    expect(sent).toHaveLength(1);
    expect(out.results.map((r) => r.status)).toEqual(['applied']);
    expect([...out.written.values()]).toEqual([{ echoConfirmed: true }]);
  });

  it('does not confirm it when the redacted key cannot be the one sent: the re-read decides', async () => {
    const { out } = await applyEchoing('****************9999');
    expect(out.results.map((r) => r.status)).toEqual(['applied']);
    expect([...out.written.values()]).toEqual([{ echoConfirmed: false }]);
    expect(JSON.stringify(out)).not.toContain(KEY);
  });

  it('does not confirm it when the echo differs from what was sent elsewhere, its key agreeing', async () => {
    const { out } = await applyEchoing('****************1234', (echo) => {
      echo.enabled = false;
    });
    expect([...out.written.values()]).toEqual([{ echoConfirmed: false }]);
  });
});
