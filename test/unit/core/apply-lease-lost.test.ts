// Scenario: the lease is lost in the middle of a project's writes. The write that found out fails, and every later
// change of that project still gets a result (skipped, saying why): a report must account for each planned write.
import { describe, expect, it } from 'vitest';
import type { AlertApplyContext } from '../../../lambdas/core/apply-alerts.ts';
import { applyTarget } from '../../../lambdas/core/apply-target.ts';
import { LeaseLostError } from '../../../lambdas/core/errors.ts';
import type { Change } from '../../../lambdas/core/model.ts';
import type { OpsManagerApi } from '../../../lambdas/core/ports.ts';
import { emptyState } from '../../../lambdas/core/state.ts';
import { applyContext } from '../../helpers/apply-context.ts';

const NOW = '2026-11-26T12:00:00.000Z';
const target = { type: 'project' as const, id: '5e2211c17a3e5a48f5497de3', name: 'payments-prod' };
const serverType = (name: string): Change => ({
  target,
  kind: 'defaultServerType',
  key: 'defaultServerType',
  action: 'update',
  after: name,
  fields: [],
  reason: 'x',
});

describe('a lease lost during a project writes', () => {
  it('fails the write that found out and skips every later one of that project, each with a result', async () => {
    const state = emptyState(NOW);
    const written: string[] = [];
    const api = {
      setProjectDefaultServerType: async (_p: string, serverType: { name: string }) => {
        written.push(serverType.name);
      },
    } as unknown as OpsManagerApi;
    let calls = 0;
    const ctx = applyContext(NOW, {
      api,
      secrets: { resolve: async () => 'x' },
      fingerprintKey: new Uint8Array(32),
      state,
      keepAlive: async () => {
        calls++;
        if (calls > 1) throw new LeaseLostError('lease taken over by run r2');
      },
    });
    const alertCtx = { api, secrets: ctx.secrets, fingerprintKey: ctx.fingerprintKey, state, now: () => NOW };
    const changes = [serverType('PRODUCTION_SERVER'), serverType('TEST_SERVER'), serverType('DEV_SERVER')];
    const out = await applyTarget(changes, ctx, alertCtx as AlertApplyContext);
    expect(written).toEqual(['PRODUCTION_SERVER']);
    expect(out.results.map((r) => `${r.change.after}:${r.status}`)).toEqual([
      'PRODUCTION_SERVER:applied',
      'TEST_SERVER:failed',
      'DEV_SERVER:skipped',
    ]);
    expect(out.results[2]?.message).toMatch(/^not started: .*lease taken over by run r2/);
    expect(out.failure?.code).toBe('LEASE_LOST');
  });
});
