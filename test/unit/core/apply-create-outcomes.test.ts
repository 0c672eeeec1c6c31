// Scenario: a create whose outcome is not known for sure is settled by re-reading the project, and never by taking a
// config that is not this create's. Several unowned configs equal to the body block the key (which one the POST made is
// not known); a config another key owns is never a candidate, however equal; a POST answered 2xx that matches nothing
// is taken for the one new config of its event type only when that config is outside what the plan saw. A POST refused
// 4xx created nothing (its marker goes), a 5xx may have (its marker stays, so the next run does not create a second).
// A late create's delete (its key left git) passes without its id in state only while no other key owns that id.
import { describe, expect, it } from 'vitest';
import type { DesiredAlertBody } from '../../../lambdas/core/alert-body.ts';
import {
  type AlertApplyContext,
  applyAlertChange,
  dropPendingMarker,
  markPending,
  recordVerified,
} from '../../../lambdas/core/apply-alerts.ts';
import type { Change } from '../../../lambdas/core/model.ts';
import { desiredText, textDigest } from '../../../lambdas/core/normalise.ts';
import { emptyState } from '../../../lambdas/core/state.ts';
import { OpsManagerApiError } from '../../../lambdas/opsman/errors.ts';
import type { AlertConfig, AlertConfigRequest } from '../../../lambdas/opsman/types.ts';
import { ambiguous, FakeOpsManager, FakeWorld, serverError } from '../../helpers/fake-opsman-api.ts';

const GROUP = '5e2211c17a3e5a48f5497de3';
const target = { type: 'project' as const, id: GROUP, name: 'payments-prod' };
const NOW = '2026-03-01T10:00:00.000Z';

/** The desired body; `threshold` lets a test seed a same-event-type config that differs. */
function body(emailAddress = 'oncall@acme.example'): DesiredAlertBody {
  return {
    eventTypeName: 'HOST_DOWN',
    enabled: true,
    matchers: [],
    notifications: [{ typeName: 'EMAIL', emailAddress, intervalMin: 60, delayMin: 0 }],
  } as unknown as DesiredAlertBody;
}

const live = (b: DesiredAlertBody) => structuredClone(b) as unknown as AlertConfigRequest;

function world() {
  const w = new FakeWorld();
  w.addProject(GROUP);
  const api = new FakeOpsManager(w);
  const ctx: AlertApplyContext = {
    api,
    secrets: { resolve: async (ref: string) => Promise.reject(new Error(`no secret ${ref}`)) },
    fingerprintKey: new Uint8Array(32).fill(3),
    state: emptyState(NOW),
    now: () => NOW,
  };
  return { w, api, ctx };
}

function createOf(key = 'k', after = body()): Change {
  return { target, kind: 'alertConfig', key, action: 'create', after, fields: [], reason: '' };
}

/** Marks the create pending (as apply does before the POST) and applies it. */
async function create(ctx: AlertApplyContext, change: Change) {
  markPending(ctx.state, change, 'run-1', NOW);
  return applyAlertChange(change, ctx);
}

const records = (ctx: AlertApplyContext) => ctx.state.projects[GROUP]?.alertConfigs ?? {};
const ids = (w: FakeWorld) => [...(w.groups.get(GROUP)?.alerts.keys() ?? [])].sort();

describe('an ambiguous POST re-read', () => {
  it('finds the created config equal to another unowned one: blocked for a human, neither adopted', async () => {
    const { w, ctx } = world();
    const foreign = w.seedAlert(GROUP, live(body()));
    w.faults.push({ method: 'createAlertConfig', phase: 'after', error: () => ambiguous() });
    await expect(create(ctx, createOf())).rejects.toThrow(/2 matching configs exist .*blocked for a human/);
    expect(ids(w)).toHaveLength(2);
    expect(records(ctx).k?.id).toBeUndefined();
    expect(records(ctx).k?.pendingCreate).toBeDefined();
    expect(Object.values(records(ctx)).some((r) => r.id === foreign)).toBe(false);
  });

  it('finds two unowned equal configs and the POST made neither: blocked, the first is not adopted', async () => {
    const { w, ctx } = world();
    w.seedAlert(GROUP, live(body()));
    w.seedAlert(GROUP, live(body()));
    w.faults.push({ method: 'createAlertConfig', phase: 'before', error: () => ambiguous() });
    await expect(create(ctx, createOf())).rejects.toThrow(/2 matching configs exist/);
    expect(records(ctx).k?.id).toBeUndefined();
  });

  it('never takes a config another key owns, however equal: the POST made nothing, the marker stays', async () => {
    const { w, ctx } = world();
    const owned = w.seedAlert(GROUP, live(body()));
    ctx.state.projects[GROUP] = { alertConfigs: { twin: { id: owned } } };
    w.faults.push({ method: 'createAlertConfig', phase: 'before', error: () => ambiguous() });
    await expect(create(ctx, createOf())).rejects.toThrow(/no matching config was found; the pending marker stays/);
    expect(records(ctx).k?.id).toBeUndefined();
    expect(records(ctx).k?.pendingCreate).toBeDefined();
    expect(records(ctx).twin).toEqual({ id: owned });
  });

  it('adopts the one unowned equal config beside one another key owns', async () => {
    const { w, ctx } = world();
    const owned = w.seedAlert(GROUP, live(body()));
    ctx.state.projects[GROUP] = { alertConfigs: { twin: { id: owned } } };
    w.faults.push({ method: 'createAlertConfig', phase: 'after', error: () => ambiguous() });
    const out = await create(ctx, createOf());
    const created = ids(w).find((id) => id !== owned);
    expect(out).toMatchObject({ id: created, wrote: false });
    expect(out.message).toMatch(/re-read found exactly one matching config/);
    expect(records(ctx).k?.id).toBe(created);
    expect(records(ctx).twin).toEqual({ id: owned });
  });
});

describe('a POST answered 2xx without the id, no config equal to what it sent', () => {
  /** A world whose POST answers 2xx with no body; `stores` says whether the config was stored (and altered). */
  function answeredWithoutId(stores: boolean) {
    const s = world();
    const create = s.api.createAlertConfig.bind(s.api);
    s.ctx.api = Object.assign(Object.create(s.api) as FakeOpsManager, {
      async createAlertConfig(groupId: string, request: AlertConfigRequest): Promise<AlertConfig> {
        if (stores) await create(groupId, request);
        return null as unknown as AlertConfig;
      },
    });
    // Ops Manager stores it otherwise than sent (non-convergence): no live config equals the body.
    s.w.onStore = (stored) => {
      for (const n of stored.notifications ?? []) (n as { intervalMin?: number }).intervalMin = 30;
    };
    return s;
  }

  it('records the one config of its event type that appeared since the plan, not one the plan saw', async () => {
    const { w, ctx } = answeredWithoutId(true);
    w.onStore = undefined;
    const seen = w.seedAlert(GROUP, live(body('someone@acme.example')));
    w.onStore = (stored) => {
      for (const n of stored.notifications ?? []) (n as { intervalMin?: number }).intervalMin = 30;
    };
    ctx.plannedIds = () => new Map([[GROUP, new Set([seen])]]);
    const out = await create(ctx, createOf());
    const created = ids(w).find((id) => id !== seen);
    expect(out).toMatchObject({ id: created, wrote: true });
    expect(out.message).toMatch(/exactly one new HOST_DOWN config/);
    expect(records(ctx).k?.id).toBe(created);
  });

  it('never takes a config the plan saw for it when no new one is listed: the marker stays', async () => {
    const { w, ctx } = answeredWithoutId(false);
    w.onStore = undefined;
    const seen = w.seedAlert(GROUP, live(body('someone@acme.example')));
    ctx.plannedIds = () => new Map([[GROUP, new Set([seen])]]);
    await expect(create(ctx, createOf())).rejects.toThrow(/no matching config was found; the pending marker stays/);
    expect(ids(w)).toEqual([seen]);
    expect(records(ctx).k?.id).toBeUndefined();
    expect(records(ctx).k?.pendingCreate).toBeDefined();
  });
});

describe('a POST that failed with an answer', () => {
  it('answered 5xx may have created the config: the pending marker stays for the next run', async () => {
    const { w, ctx } = world();
    w.faults.push({ method: 'createAlertConfig', phase: 'after', error: () => serverError('POST') });
    await expect(create(ctx, createOf())).rejects.toThrow(/500/);
    expect(records(ctx).k?.pendingCreate?.runId).toBe('run-1');
  });

  it('refused 4xx created nothing: the marker is dropped', async () => {
    const { w, ctx } = world();
    const refused = () =>
      new OpsManagerApiError(400, 'INVALID_ATTRIBUTE', 'Invalid attribute.', {
        method: 'POST',
        pathTemplate: '/groups/{groupId}/alertConfigs',
      });
    w.faults.push({ method: 'createAlertConfig', error: refused });
    await expect(create(ctx, createOf())).rejects.toThrow(/400/);
    expect(records(ctx).k).toBeUndefined();
  });
});

describe("a late create's delete", () => {
  const marker = () => ({ runId: 'run-0', startedAt: NOW, desiredDigest: textDigest(desiredText(body())) });
  const deleteOf = (key: string, id: string): Change => ({
    target,
    kind: 'alertConfig',
    key,
    action: 'delete',
    id,
    fields: [],
    reason: '',
  });

  it('is refused for a config another key owns, even one equal to what the lost create sent', async () => {
    const { w, ctx } = world();
    const owned = w.seedAlert(GROUP, live(body()));
    ctx.state.projects[GROUP] = { alertConfigs: { late: { pendingCreate: marker() }, twin: { id: owned } } };
    await expect(applyAlertChange(deleteOf('late', owned), ctx)).rejects.toThrow(/NOT_OWNED|not owned/);
    expect(ids(w)).toEqual([owned]);
    expect(records(ctx).twin).toEqual({ id: owned });
  });

  it('is refused for an unowned config that is not what the lost create sent, confirmed live first', async () => {
    const { w, ctx } = world();
    const other = w.seedAlert(GROUP, live(body('someone@acme.example')));
    ctx.state.projects[GROUP] = { alertConfigs: { late: { pendingCreate: marker() } } };
    await expect(applyAlertChange(deleteOf('late', other), ctx)).rejects.toThrow(/not what the lost create/);
    expect(ids(w)).toEqual([other]);
    expect(records(ctx).late?.pendingCreate).toBeDefined();
  });

  it('is refused for a key without a marker, for a config no key owns', async () => {
    const { w, ctx } = world();
    const unmanaged = w.seedAlert(GROUP, live(body()));
    await expect(applyAlertChange(deleteOf('ghost', unmanaged), ctx)).rejects.toThrow(/not owned/);
    expect(ids(w)).toEqual([unmanaged]);
  });

  it('deletes the config the lost create made, confirmed equal to what it sent', async () => {
    const { w, ctx } = world();
    const late = w.seedAlert(GROUP, live(body()));
    ctx.state.projects[GROUP] = { alertConfigs: { late: { pendingCreate: marker() } } };
    expect(await applyAlertChange(deleteOf('late', late), ctx)).toMatchObject({ id: late, message: 'deleted' });
    expect(ids(w)).toEqual([]);
    expect(records(ctx).late).toBeUndefined();
  });
});

describe('the owners an adoption is checked against', () => {
  const adoptOf = (key: string, id: string): Change => ({ ...createOf(key), action: 'adopt', id });

  it("include a key whose create's re-read took a config the plan saw unowned (a saved plan adopting it after)", async () => {
    const { w, ctx } = world();
    const unmanaged = w.seedAlert(GROUP, live(body('someone@acme.example')));
    const equal = w.seedAlert(GROUP, live(body()));
    ctx.state.projects[GROUP] = { alertConfigs: { a: { id: 'x1' } } };
    // The first adoption builds the project's owner index.
    await applyAlertChange(adoptOf('b', unmanaged), ctx);
    // The POST's outcome is unknown and the re-read finds the one equal config: the create records it.
    w.faults.push({ method: 'createAlertConfig', phase: 'before', error: () => ambiguous() });
    expect(await create(ctx, createOf('k'))).toMatchObject({ id: equal });
    // A hand-ordered saved plan adopting that config for another key after the create: it has an owner now.
    await expect(applyAlertChange(adoptOf('c', equal), ctx)).rejects.toThrow(/already owned by key "k"/);
    expect(records(ctx).c).toBeUndefined();
    expect(records(ctx).k?.id).toBe(equal);
  });

  it("follow the project's records when they are replaced (a state read anew), not the ones first indexed", async () => {
    const { w, ctx } = world();
    const first = w.seedAlert(GROUP, live(body('someone@acme.example')));
    ctx.state.projects[GROUP] = { alertConfigs: {} };
    await applyAlertChange(adoptOf('b', first), ctx);
    ctx.state = emptyState(NOW);
    ctx.state.projects[GROUP] = { alertConfigs: { other: { id: 'o1' } } };
    await expect(applyAlertChange(adoptOf('c', 'o1'), ctx)).rejects.toThrow(/already owned by key "other"/);
  });
});

describe('a delete answered 404', () => {
  const notFound = (fromOpsManager: boolean) => () =>
    new OpsManagerApiError(
      404,
      fromOpsManager ? 'ALERT_CONFIG_NOT_FOUND' : 'HTTP_404',
      'Not found.',
      { method: 'DELETE', pathTemplate: '/groups/{groupId}/alertConfigs/{alertConfigId}' },
      { fromOpsManager },
    );
  const deleteOwned = (ctx: AlertApplyContext) => {
    ctx.state.projects[GROUP] = { alertConfigs: { k: { id: 'c1' } } };
    return applyAlertChange({ ...createOf(), action: 'delete', id: 'c1', after: undefined }, ctx);
  };

  it('by Ops Manager: already gone, the record is forgotten', async () => {
    const { w, ctx } = world();
    w.faults.push({ method: 'deleteAlertConfig', error: notFound(true) });
    expect(await deleteOwned(ctx)).toMatchObject({ id: 'c1', message: 'deleted' });
    expect(records(ctx).k).toBeUndefined();
  });

  it("by something else (a proxy's page): proves nothing, a failure that keeps the record", async () => {
    const { w, ctx } = world();
    w.faults.push({ method: 'deleteAlertConfig', error: notFound(false) });
    await expect(deleteOwned(ctx)).rejects.toThrow(/404/);
    expect(records(ctx).k).toEqual({ id: 'c1' });
  });
});

describe('dropPendingMarker', () => {
  it('takes only the marker off a record that owns an id (a state an earlier release wrote), never the id', () => {
    const { ctx } = world();
    ctx.state.projects[GROUP] = {
      alertConfigs: { k: { id: 'c1', appliedDigest: 'd', pendingCreate: { runId: 'run-0', startedAt: NOW } } },
    };
    dropPendingMarker(ctx.state, createOf());
    expect(records(ctx).k).toEqual({ id: 'c1', appliedDigest: 'd' });
  });

  it('forgets a record that is nothing but the marker', () => {
    const { ctx } = world();
    markPending(ctx.state, createOf(), 'run-1', NOW);
    dropPendingMarker(ctx.state, createOf());
    expect(records(ctx).k).toBeUndefined();
  });
});

describe('recordVerified', () => {
  it('leaves the record as it was when a secret of the in-sync body no longer resolves (bookkeeping never fails a run)', async () => {
    const { ctx } = world();
    const before = { id: 'c1', fingerprint: 'f-old', secretFingerprints: { s: 'old' }, appliedDigest: 'd-old' };
    ctx.state.projects[GROUP] = { alertConfigs: { k: structuredClone(before) } };
    const after = {
      ...body(),
      notifications: [{ typeName: 'PAGER_DUTY', serviceKey: { secretRef: 'pd#gone' }, delayMin: 0 }],
    } as unknown as DesiredAlertBody;
    await expect(recordVerified({ ...createOf('k', after), action: 'noop', id: 'c1' }, ctx)).resolves.toBeUndefined();
    expect(records(ctx).k).toEqual(before);
  });
});
