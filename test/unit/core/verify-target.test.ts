// Scenario: verification on its own. An echo of the right id that cannot be read is no proof of convergence (the
// re-read decides); a singleton that does not converge is flagged without touching the state record of an alert key
// that happens to share its name; a re-read goes to the verify API, and its failure is a verify failure.
import { describe, expect, it } from 'vitest';
import type { DesiredAlertBody } from '../../../lambdas/core/alert-body.ts';
import type { ApplyContext } from '../../../lambdas/core/apply.ts';
import { ReconcileError } from '../../../lambdas/core/errors.ts';
import type { Change, ChangeResult, TargetRef } from '../../../lambdas/core/model.ts';
import type { OpsManagerApi } from '../../../lambdas/core/ports.ts';
import { emptyState, setAlertRecord } from '../../../lambdas/core/state.ts';
import { confirmEcho, verifyTarget, type WriteCheck } from '../../../lambdas/core/verify.ts';
import type { AlertConfig, AuditLogRotateConfig } from '../../../lambdas/opsman/types.ts';

const GROUP = '5e2211c17a3e5a48f5497de3';
const ID = '6b0000000000000000000001';
const NOW = '2026-03-01T10:00:00.000Z';
const TARGET: TargetRef = { type: 'project', id: GROUP, name: 'payments-prod' };

const body: DesiredAlertBody = {
  eventTypeName: 'HOST_DOWN',
  enabled: true,
  matchers: [],
  notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5, delayMin: 0, emailEnabled: true }],
};

const echo = (): AlertConfig =>
  ({ ...structuredClone(body), id: ID, groupId: GROUP, created: NOW, updated: NOW }) as unknown as AlertConfig;

function applied(change: Change, id?: string): ChangeResult {
  return { change, status: 'applied', durationMs: 0, ...(id === undefined ? {} : { id }) };
}

const update: Change = {
  target: TARGET,
  kind: 'alertConfig',
  key: 'disk',
  action: 'update',
  id: ID,
  after: body,
  fields: [],
  reason: '',
};

/** An API answering the re-reads verification makes; anything else is not expected. */
function readApi(rotation: AuditLogRotateConfig, alerts: AlertConfig[] = []): OpsManagerApi & { reads: number } {
  const api = {
    reads: 0,
    async listAlertConfigs() {
      api.reads++;
      return alerts;
    },
    async getAuditLogRotateConfig() {
      api.reads++;
      return rotation;
    },
  };
  return api as unknown as OpsManagerApi & { reads: number };
}

function context(api: OpsManagerApi, verifyApi?: OpsManagerApi): ApplyContext {
  return {
    api,
    ...(verifyApi === undefined ? {} : { verifyApi }),
    secrets: { resolve: async () => 'unused' },
    fingerprintKey: new Uint8Array(32).fill(7),
    clock: { now: () => new Date(NOW), sleep: async () => {} },
    reporter: { progress() {}, metric() {} },
    runId: 'r1',
    state: emptyState(NOW),
    skipReason: () => undefined,
    persist: async () => {},
    keepAlive: async () => {},
    readPin: async () => '',
  };
}

describe('confirmEcho', () => {
  it('confirms an echo equal to what was sent', () => {
    expect(confirmEcho(applied(update, ID), { response: echo() })).toBe(true);
  });

  it.each([
    ['matchers that are not a list', (c: Record<string, unknown>) => Object.assign(c, { matchers: 5 })],
    ['a null notification', (c: Record<string, unknown>) => Object.assign(c, { notifications: [null] })],
  ])('an echo of the same id with %s proves nothing: no confirmation, the re-read decides', (_name, spoil) => {
    const response = spoil(echo() as unknown as Record<string, unknown>) as unknown as AlertConfig;
    expect(confirmEcho(applied(update, ID), { response })).toBe(false);
  });
});

describe('verifyTarget', () => {
  const rotation: Change = {
    target: TARGET,
    kind: 'auditLogRotation',
    key: 'auditLogRotation',
    action: 'update',
    after: { numTotal: 10 },
    fields: [],
    reason: '',
  };

  it('flags a rotation that did not converge, leaving the record of an alert key of the same name alone', async () => {
    const api = readApi({ numTotal: 3 });
    const ctx = context(api);
    setAlertRecord(ctx.state, GROUP, 'auditLogRotation', { id: ID });
    const r = applied(rotation);
    const written = new Map<ChangeResult, WriteCheck>([[r, { echoConfirmed: false }]]);
    expect(await verifyTarget(written, ctx)).toEqual({});
    expect(r).toMatchObject({ status: 'not-converging', message: expect.stringContaining('numTotal') });
    // No guard holds a singleton back: the message says the next run writes it again, not that it stops.
    expect(r.message).toMatch(/the next run that finds it differing writes it again/);
    expect(r.message).not.toContain('not rewritten');
    expect(ctx.state.projects[GROUP]?.alertConfigs.auditLogRotation).toEqual({ id: ID });
  });

  it('re-reads through the verify API, not the write API', async () => {
    const writes = readApi({ numTotal: 3 }, []);
    const reads = readApi({ numTotal: 10 }, [echo()]);
    const ctx = context(writes, reads);
    setAlertRecord(ctx.state, GROUP, 'disk', { id: ID });
    const alert = applied(update, ID);
    const singleton = applied(rotation);
    const written = new Map<ChangeResult, WriteCheck>([
      [alert, { echoConfirmed: false }],
      [singleton, { echoConfirmed: false }],
    ]);
    expect(await verifyTarget(written, ctx)).toEqual({});
    expect([alert.status, singleton.status]).toEqual(['applied', 'applied']);
    expect([writes.reads, reads.reads]).toEqual([0, 2]);
  });

  it('flags a written config missing from the re-read and guards its record against a rewrite', async () => {
    const ctx = context(readApi({}, []));
    setAlertRecord(ctx.state, GROUP, 'disk', { id: ID });
    const r = applied(update, ID);
    expect(await verifyTarget(new Map([[r, { echoConfirmed: false }]]), ctx)).toEqual({});
    expect(r).toMatchObject({ status: 'not-converging', message: expect.stringContaining('(missing after write)') });
    expect(ctx.state.projects[GROUP]?.alertConfigs.disk?.notConverging).toMatchObject({
      since: NOW,
      fields: ['(missing after write)'],
    });
  });

  it("a re-read that fails is the target's verify failure, with the error's code; the write stays applied", async () => {
    const api = readApi({}, []);
    api.listAlertConfigs = async () => {
      throw new ReconcileError('LIVE_MALFORMED', 'the list is not a list');
    };
    const r = applied(update, ID);
    expect(await verifyTarget(new Map([[r, { echoConfirmed: false }]]), context(api))).toEqual({
      failure: {
        target: TARGET,
        phase: 'verify',
        message: 're-read after writes failed: the list is not a list',
        code: 'LIVE_MALFORMED',
      },
    });
    expect(r.status).toBe('applied');
  });

  it('flags a write whose secrets no longer resolve, without a guard it could not digest, and no verify failure', async () => {
    const hook = {
      eventTypeName: 'NO_PRIMARY',
      enabled: true,
      matchers: [],
      notifications: [{ typeName: 'WEBHOOK', webhookUrl: { secretRef: 'hook#url' } }],
    } as unknown as DesiredAlertBody;
    const ctx = context(readApi({}, []));
    ctx.secrets = {
      resolve: async () => {
        throw new Error('secret store unreachable');
      },
    };
    setAlertRecord(ctx.state, GROUP, 'disk', { id: ID });
    const r = applied({ ...update, after: hook }, ID);
    expect(await verifyTarget(new Map([[r, { echoConfirmed: false }]]), ctx)).toEqual({});
    expect(r.status).toBe('not-converging');
    expect(ctx.state.projects[GROUP]?.alertConfigs.disk).toEqual({ id: ID });
  });
});
