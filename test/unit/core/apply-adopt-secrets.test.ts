// Scenario: an adoption re-sends the secrets of the adopted config with one full PUT, since the live ones are redacted
// and cannot be compared: a body with a single secret is re-sent like one with several, and a body without secrets
// sends nothing; either way the key then owns the config. A renamed key keeps its old record's createdAt and drops that
// record only while it still names the adopted config; an update of a key renamed with renamedFrom writes the old
// key's config only while that record names it (and the key owns no other), then moves it; a create records that this
// tool made the config (createdAt), ignoreFields or not.
import { describe, expect, it } from 'vitest';
import type { DesiredAlertBody } from '../../../lambdas/core/alert-body.ts';
import { type AlertApplyContext, applyAlertChange } from '../../../lambdas/core/apply-alerts.ts';
import type { Change } from '../../../lambdas/core/model.ts';
import type { OpsManagerApi, OwnedAlertConfig } from '../../../lambdas/core/ports.ts';
import { emptyState } from '../../../lambdas/core/state.ts';
import type { AlertConfigRequest } from '../../../lambdas/opsman/types.ts';

const GROUP = 'g1';
const target = { type: 'project' as const, id: GROUP, name: 'p' };

function context(): { ctx: AlertApplyContext; puts: AlertConfigRequest[] } {
  const puts: AlertConfigRequest[] = [];
  const api = {
    async updateAlertConfig(_group: string, id: string, request: AlertConfigRequest) {
      puts.push(request);
      return { id, groupId: GROUP, ...request };
    },
  } as unknown as OpsManagerApi;
  const ctx: AlertApplyContext = {
    api,
    secrets: {
      async resolve(ref: string) {
        if (ref !== 'pd#key') throw new Error(`no secret ${ref}`);
        return 'pd-service-key-1234';
      },
    },
    fingerprintKey: new Uint8Array(32).fill(5),
    state: emptyState('2026-03-01T10:00:00.000Z'),
    now: () => '2026-03-01T10:00:00.000Z',
  };
  return { ctx, puts };
}

function adoption(notifications: Record<string, unknown>[]): Change {
  const after = {
    eventTypeName: 'HOST_DOWN',
    enabled: true,
    matchers: [],
    notifications,
  } as unknown as DesiredAlertBody;
  return { target, kind: 'alertConfig', key: 'k', action: 'adopt', id: 'c1', after, fields: [], reason: '' };
}

describe('applying an adoption', () => {
  it("re-sends a body's single secret with one full PUT", async () => {
    const { ctx, puts } = context();
    const out = await applyAlertChange(
      adoption([{ typeName: 'PAGER_DUTY', serviceKey: { secretRef: 'pd#key' }, delayMin: 0 }]),
      ctx,
    );
    expect(puts).toHaveLength(1);
    expect(JSON.stringify(puts[0]).includes('pd-service-key-1234')).toBe(true);
    expect(out).toMatchObject({ id: 'c1', message: 'adopted; secrets re-sent with a full PUT', wrote: true });
    expect(Object.keys(ctx.state.projects[GROUP]?.alertConfigs.k?.secretFingerprints ?? {})).toEqual([
      'notifications[PAGER_DUTY].serviceKey',
    ]);
  });

  it('sends nothing for a body without secrets, and owns the config all the same', async () => {
    const { ctx, puts } = context();
    const out = await applyAlertChange(adoption([{ typeName: 'EMAIL', emailAddress: 'a@x.io', delayMin: 0 }]), ctx);
    expect(puts).toEqual([]);
    expect(out).toEqual({ id: 'c1', message: 'adopted', wrote: false });
    expect(ctx.state.projects[GROUP]?.alertConfigs.k?.id).toBe('c1');
  });
});

describe("the record a renamed key's adoption leaves", () => {
  const email = [{ typeName: 'EMAIL', emailAddress: 'a@x.io', delayMin: 0 }];

  it("keeps the old key's createdAt and drops the old record when it still names the config", async () => {
    const { ctx } = context();
    ctx.state.projects[GROUP] = { alertConfigs: { old: { id: 'c1', createdAt: '2026-01-01T00:00:00.000Z' } } };
    await applyAlertChange({ ...adoption(email), movedFrom: 'old' }, ctx);
    const records = ctx.state.projects[GROUP]?.alertConfigs ?? {};
    expect(Object.keys(records)).toEqual(['k']);
    expect(records.k).toMatchObject({ id: 'c1', createdAt: '2026-01-01T00:00:00.000Z' });
  });

  it('leaves the old record, and its createdAt, alone when it names another config since the plan', async () => {
    const { ctx } = context();
    ctx.state.projects[GROUP] = { alertConfigs: { old: { id: 'c7', createdAt: '2026-01-01T00:00:00.000Z' } } };
    await applyAlertChange({ ...adoption(email), movedFrom: 'old' }, ctx);
    const records = ctx.state.projects[GROUP]?.alertConfigs ?? {};
    expect(records.old).toEqual({ id: 'c7', createdAt: '2026-01-01T00:00:00.000Z' });
    expect(records.k?.id).toBe('c1');
    expect(records.k?.createdAt).toBeUndefined();
    expect(records.k?.adoptedAt).toBe('2026-03-01T10:00:00.000Z');
  });
});

describe("a renamed key's update (renamedFrom)", () => {
  const email = [{ typeName: 'EMAIL', emailAddress: 'a@x.io', delayMin: 0 }];
  const update = (): Change => ({ ...adoption(email), action: 'update', movedFrom: 'old' });

  it("writes the old key's config and moves its record, createdAt and adoptedAt kept", async () => {
    const { ctx, puts } = context();
    const old = { id: 'c1', createdAt: '2026-01-01T00:00:00.000Z', adoptedAt: '2026-02-01T00:00:00.000Z' };
    ctx.state.projects[GROUP] = { alertConfigs: { old } };
    await applyAlertChange(update(), ctx);
    expect(puts).toHaveLength(1);
    const records = ctx.state.projects[GROUP]?.alertConfigs ?? {};
    expect(Object.keys(records)).toEqual(['k']);
    expect(records.k).toMatchObject(old);
  });

  it('writes nothing when the old key names another config since the plan, nor when the key owns another one', async () => {
    const states: Record<string, OwnedAlertConfig>[] = [{ old: { id: 'c7' } }, { old: { id: 'c1' }, k: { id: 'c9' } }];
    for (const alertConfigs of states) {
      const { ctx, puts } = context();
      ctx.state.projects[GROUP] = { alertConfigs: structuredClone(alertConfigs) };
      await expect(applyAlertChange(update(), ctx)).rejects.toThrow(/not owned by key "k"/);
      expect(puts).toEqual([]);
      expect(ctx.state.projects[GROUP]?.alertConfigs).toEqual(alertConfigs);
    }
  });

  it('leaves the old record alone when the key owns the config itself and the old key names another', async () => {
    const { ctx } = context();
    ctx.state.projects[GROUP] = { alertConfigs: { k: { id: 'c1' }, old: { id: 'c7' } } };
    await applyAlertChange(update(), ctx);
    expect(ctx.state.projects[GROUP]?.alertConfigs.old).toEqual({ id: 'c7' });
    expect(ctx.state.projects[GROUP]?.alertConfigs.k?.id).toBe('c1');
  });
});

describe('the record a create leaves', () => {
  it('says this tool created the config when the body ignores members too', async () => {
    const { ctx } = context();
    (ctx.api as unknown as Record<string, unknown>).createAlertConfig = async (
      _g: string,
      request: AlertConfigRequest,
    ) => ({
      id: 'n1',
      groupId: GROUP,
      ...request,
    });
    const change = adoption([{ typeName: 'EMAIL', emailAddress: 'a@x.io', delayMin: 0 }]);
    (change.after as DesiredAlertBody).ignoreFields = ['enabled'];
    await applyAlertChange({ ...change, action: 'create', id: undefined }, ctx);
    expect(ctx.state.projects[GROUP]?.alertConfigs.k).toMatchObject({
      id: 'n1',
      ignoredFields: ['enabled'],
      createdAt: '2026-03-01T10:00:00.000Z',
    });
  });
});
