// Scenario: a saved plan handed to the reconciler (the function `apply --plan` calls) with a malformed member that apply
// or the report reads (unmanaged, targetModes, liveReads, liveDigests, a change's fields, before/after for its kind) is
// refused by path before the lease is taken: nothing written to Ops Manager, no state saved. Before these checks, a
// rotation update whose body was null was written (a PUT of the live fields only) and then reported failed with a
// TypeError, the plan's three creates applied around it; every other case here was applied (or skipped) unnoticed.
import { describe, expect, it } from 'vitest';
import { SavedPlanInvalidError } from '../../../lambdas/core/errors.ts';
import type { Change, Plan } from '../../../lambdas/core/model.ts';
import { P1, P2, scenario } from './scenario-fixture.ts';

const ROTATION = { enforce: true, sizeThresholdMB: 1000, timeThresholdHrs: 24, numTotal: 20 };
const SECRET = 'hunter2-do-not-print';
const K1 = `project:${P1}`;
const K2 = `project:${P2}`;

/**
 * A fresh world and its first plan, as JSON (what a file holds): creates of `disk` and `no-primary` and a rotation
 * update in project 1, a create of `host-down` in project 2, project 1's seeded HOST_DOWN config unmanaged.
 */
async function firstPlan() {
  const h = scenario({ auditLogRotation: ROTATION });
  const plan = JSON.parse(JSON.stringify((await h.run('plan')).plan)) as Plan;
  expect(plan.changes.map((c) => `${c.key}:${c.action}`)).toEqual([
    'disk:create',
    'no-primary:create',
    'auditLogRotation:update',
    'host-down:create',
  ]);
  return { h, plan };
}

/** `plan` with change `i` replaced by `edit` of it (malformed on purpose: what a hand or another program may write). */
function editChange(plan: Plan, i: number, edit: (c: Record<string, unknown>) => unknown): Plan {
  const changes = plan.changes.map((c, at) => (at === i ? edit(structuredClone(c) as never) : c));
  return { ...plan, changes } as Plan;
}

/** Applies `plan` as a saved plan; expects it refused with `message`, nothing written and no state saved. */
async function expectRefused(h: Awaited<ReturnType<typeof firstPlan>>['h'], plan: Plan, message: string) {
  let error: unknown;
  try {
    await h.run('apply', { savedPlan: plan });
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(SavedPlanInvalidError);
  expect((error as Error).message).toBe(message);
  expect((error as Error).message).not.toContain(SECRET);
  expect(h.world.writes()).toEqual([]);
  expect(h.world.auditLog.get(P1)).toBeUndefined();
  expect(h.state.state).toBeNull();
}

describe('a saved plan: every member apply or the report reads is checked before anything is written', () => {
  it('the plan as made applies (the checks let through every member a plan of this version carries)', async () => {
    const { h, plan } = await firstPlan();
    const report = await h.run('apply', { savedPlan: plan });
    expect(report.results.map((r) => `${r.change.key}:${r.status}`)).toEqual([
      'disk:applied',
      'no-primary:applied',
      'auditLogRotation:applied',
      'host-down:applied',
    ]);
  });

  it('a rotation update whose body is null: refused, where it was written and then failed with a TypeError', async () => {
    const { h, plan } = await firstPlan();
    const edited = editChange(plan, 2, (c) => ({ ...c, after: null }));
    await expectRefused(h, edited, 'the saved plan has a malformed change (changes[2]: after is not an object)');
  });

  it.each([
    ['unmanaged not a list', (p: Plan) => ({ ...p, unmanaged: { id: SECRET } }), 'unmanaged is not a list'],
    [
      'an unmanaged object without its target',
      (p: Plan) => ({ ...p, unmanaged: [{ kind: 'alertConfig', id: SECRET, summary: 's' }] }),
      'unmanaged[0].target.type is not project, organization or global',
    ],
    [
      'an unmanaged object of an unknown kind',
      (p: Plan) => ({ ...p, unmanaged: [{ ...p.unmanaged?.[0], kind: SECRET }] }),
      'unmanaged[0].kind is not a kind of change',
    ],
    [
      'an unmanaged object whose id is not a string',
      (p: Plan) => ({ ...p, unmanaged: [{ ...p.unmanaged?.[0], id: 6 }] }),
      'unmanaged[0].id is not a string',
    ],
    [
      'a target mode that is no mode',
      (p: Plan) => ({ ...p, targetModes: { ...p.targetModes, [K1]: SECRET } }),
      `targetModes["${K1}"] is not observe, plan or apply`,
    ],
    [
      'targetModes keyed by something else than a target',
      (p: Plan) => ({ ...p, targetModes: { [SECRET]: 'apply' } }),
      'targetModes has a key that is not a target key (project:<id>, organization:<id>, global:global)',
    ],
    [
      'liveReads of a target not a list',
      (p: Plan) => ({ ...p, liveReads: { ...p.liveReads, [K2]: SECRET } }),
      `liveReads["${K2}"] is not a list`,
    ],
    [
      'a live read of an unknown component',
      (p: Plan) => ({ ...p, liveReads: { ...p.liveReads, [K1]: ['alertConfigs', SECRET] } }),
      `liveReads["${K1}"][1] is not a live component (alertConfigs, defaultServerType, auditLogRotation, versionManifest)`,
    ],
    [
      'a live digest that is not a string',
      (p: Plan) => ({ ...p, liveDigests: { ...p.liveDigests, [K2]: { digest: SECRET } } }),
      `liveDigests["${K2}"] is not a string`,
    ],
    [
      'liveDigests keyed by something else than a target',
      (p: Plan) => ({ ...p, liveDigests: { ...p.liveDigests, [SECRET]: 'x' } }),
      'liveDigests has a key that is not a target key (project:<id>, organization:<id>, global:global)',
    ],
  ])('%s: refused by path, nothing written', async (_name, edit, problem) => {
    const { h, plan } = await firstPlan();
    await expectRefused(h, edit(plan) as Plan, `the saved plan has a malformed member (${problem})`);
  });

  const field = (extra: Record<string, unknown>) => (c: Record<string, unknown>) => ({
    ...c,
    fields: [...(c.fields as unknown[]), { path: 'numTotal', before: 0, after: 20, ...extra }],
  });
  it.each([
    [
      'a field that is not an object',
      2,
      (c: Record<string, unknown>) => ({ ...c, fields: [SECRET] }),
      'fields[0] is not an object',
    ],
    ['a field whose secret flag is text', 2, field({ secret: SECRET }), 'fields[3].secret is not true or false'],
    [
      'a field with a note no version writes',
      2,
      field({ secret: true, note: SECRET }),
      'fields[3].note is not one of changed, removed on live, added, set on live, not in desired, changed on live, set',
    ],
    ['a field whose item is negative', 2, field({ item: -1 }), 'fields[3].item is not a whole number from 0'],
    ['a field whose unmodelled marker is false', 2, field({ unmodelled: false }), 'fields[3].unmodelled is not true'],
    [
      'a create whose body lacks enabled (Ops Manager would create it disabled)',
      0,
      (c: Record<string, unknown>) => ({ ...c, after: { ...(c.after as object), enabled: undefined } }),
      'after.enabled is not true or false',
    ],
    [
      'a create whose body carries a secret value instead of its reference',
      1,
      (c: Record<string, unknown>) => {
        const after = c.after as { notifications: Record<string, unknown>[] };
        after.notifications[1] = { ...after.notifications[1], webhookSecret: SECRET };
        return c;
      },
      'after.notifications[1].webhookSecret is not a secret reference ({secretRef})',
    ],
    [
      'a create whose notifications are not a list',
      3,
      (c: Record<string, unknown>) => ({ ...c, after: { ...(c.after as object), notifications: SECRET } }),
      'after.notifications is not a list',
    ],
    [
      'a create whose matchers hold a text',
      3,
      (c: Record<string, unknown>) => ({ ...c, after: { ...(c.after as object), matchers: [SECRET] } }),
      'after.matchers[0] is not an object',
    ],
    [
      'a create whose ignoreFields name a member no version ignores',
      3,
      (c: Record<string, unknown>) => ({ ...c, after: { ...(c.after as object), ignoreFields: ['enabled', SECRET] } }),
      'after.ignoreFields[1] is not one of enabled, threshold, metricThreshold, matchers',
    ],
    [
      'a create whose body has no event type',
      0,
      (c: Record<string, unknown>) => ({ ...c, after: { ...(c.after as object), eventTypeName: 7 } }),
      'after.eventTypeName is not a string',
    ],
    [
      'a create whose threshold is text',
      0,
      (c: Record<string, unknown>) => ({ ...c, after: { ...(c.after as object), threshold: SECRET } }),
      'after.threshold is not an object',
    ],
    [
      'a create whose notification has no type',
      0,
      (c: Record<string, unknown>) => ({ ...c, after: { ...(c.after as object), notifications: [{ delayMin: 0 }] } }),
      'after.notifications[0].typeName is not a string',
    ],
    [
      'a change whose target has no name',
      0,
      (c: Record<string, unknown>) => ({ ...c, target: { ...(c.target as object), name: 7 } }),
      'target.id and target.name must be strings',
    ],
    [
      'an alert config whose before is text',
      0,
      (c: Record<string, unknown>) => ({ ...c, before: SECRET }),
      'before is not an object',
    ],
    [
      'a rotation body with a member Ops Manager is not sent',
      2,
      (c: Record<string, unknown>) => ({ ...c, after: { ...(c.after as object), [SECRET]: 1 } }),
      'after has a member that is not a rotation field (sizeThresholdMB, timeThresholdHrs, numUncompressed, percentOfDiskspace, numTotal)',
    ],
    [
      'a rotation field that is text',
      2,
      (c: Record<string, unknown>) => ({ ...c, after: { ...(c.after as object), numTotal: SECRET } }),
      'after.numTotal is not a number',
    ],
    [
      'a rotation update without its body',
      2,
      (c: Record<string, unknown>) => ({ ...c, after: undefined }),
      'update without a desired value (after)',
    ],
    [
      'a rotation change that claims to delete',
      2,
      (c: Record<string, unknown>) => ({ ...c, action: 'delete' }),
      'delete is not an action of auditLogRotation (update, noop, drift, blocked)',
    ],
    [
      'a server type change whose value is no server type',
      2,
      (c: Record<string, unknown>) => ({ ...c, kind: 'defaultServerType', key: 'defaultServerType', after: SECRET }),
      'after is not a server type (DEV_SERVER, TEST_SERVER, PRODUCTION_SERVER, RAM_POOL)',
    ],
    [
      'a manifest update whose pin has no sha256',
      2,
      (c: Record<string, unknown>) => ({
        ...c,
        kind: 'versionManifest',
        key: 'versionManifest',
        after: { path: 'm.json' },
      }),
      'after.sha256 is not a string',
    ],
  ])('%s: refused naming the change and the path, nothing written', async (_name, i, edit, problem) => {
    const { h, plan } = await firstPlan();
    const edited = JSON.parse(JSON.stringify(editChange(plan, i, edit))) as Plan;
    await expectRefused(h, edited, `the saved plan has a malformed change (changes[${i}]: ${problem})`);
  });

  it('a well-formed field of every optional marker passes', async () => {
    const { h, plan } = await firstPlan();
    const edited = editChange(plan, 2, field({ secret: false, item: 0 }));
    const marked = editChange(
      edited,
      2,
      field({ secret: true, note: 'set on live, not in desired', unmodelled: true }),
    );
    const report = await h.run('apply', { savedPlan: JSON.parse(JSON.stringify(marked)) as Plan });
    expect(report.results.every((r) => r.status === 'applied')).toBe(true);
    expect((report.plan.changes[2] as Change).fields).toHaveLength(5);
  });
});
