// Scenario: Ops Manager answers a read or a write with a body of the wrong shape (a member replaced by null, a number, a string, a list or an object, anywhere in the answer); the run never throws, never reports a bare TypeError, keeps its state readable, and the next run against sound answers converges.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { OpsManagerApi } from '../../lambdas/core/ports.ts';
import { stateDocumentProblem } from '../../lambdas/core/state-check.ts';
import type { ReconcileHarness } from '../helpers/reconcile-world.ts';
import { ORG, ownedId, P1, p1Alerts, scenario, setP1, TEAM } from '../unit/core/scenario-fixture.ts';

/** What a run did before the hostile one: nothing, a first apply, and then a human's change or a desired change. */
type Before = 'nothing' | 'apply' | 'apply+human' | 'apply+desired';

/** Which members of an answer a server controls. */
type Corruptible = (path: readonly (string | number)[]) => boolean;
const BELOW_ITEMS: Corruptible = (p) => p.length >= 2;
const ANYWHERE: Corruptible = () => true;

/**
 * Methods whose answers are read: the part of each answer a server controls, and how a run reaches the method (the
 * command, and what happened before it). The client already guarantees the rest of an answer (tested in
 * test/unit/opsman): a list is an array of objects (pagination), a server type is null or `{name, label?}`
 * (normalised), a version manifest's `text` is the text served. Everything else is the server's JSON.
 */
const ANSWERING: Record<string, { corruptible: Corruptible; command: 'apply' | 'archive'; before: readonly Before[] }> =
  {
    listAlertConfigs: { corruptible: BELOW_ITEMS, command: 'apply', before: ['nothing', 'apply+human'] },
    listProjectEvents: { corruptible: BELOW_ITEMS, command: 'apply', before: ['apply+human'] },
    listOrgEvents: { corruptible: BELOW_ITEMS, command: 'apply', before: ['apply+human'] },
    listPhysicalHosts: { corruptible: BELOW_ITEMS, command: 'archive', before: ['nothing', 'apply'] },
    listProjectHostAssignments: { corruptible: BELOW_ITEMS, command: 'archive', before: ['nothing', 'apply'] },
    createAlertConfig: { corruptible: ANYWHERE, command: 'apply', before: ['nothing'] },
    updateAlertConfig: { corruptible: ANYWHERE, command: 'apply', before: ['apply+desired'] },
    setAlertConfigEnabled: { corruptible: ANYWHERE, command: 'apply', before: ['apply+human'] },
    getAuditLogRotateConfig: { corruptible: ANYWHERE, command: 'apply', before: ['nothing', 'apply+human'] },
    getTeam: { corruptible: ANYWHERE, command: 'apply', before: ['nothing', 'apply'] },
    getVersionManifest: { corruptible: (p) => p[0] === 'value', command: 'archive', before: ['nothing', 'apply'] },
  };
const METHODS = Object.keys(ANSWERING) as (keyof OpsManagerApi)[];

/** What replaces the member: every kind of JSON value. */
const odd = fc.oneof(
  fc.constant(null),
  fc.integer({ min: -2, max: 2 }),
  fc.constantFrom('', 'x', '2026-13-45T99:99:99Z'),
  fc.boolean(),
  fc.constant([]),
  fc.constant([null]),
  fc.constant({}),
  fc.constant({ toString: null }),
);

/** Every path into a JSON value (members and list entries), the root included. */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [prefix];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) out.push(...paths(value[i], [...prefix, i]));
  } else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...prefix, k]));
  return out;
}

/** A deep copy of `value` with the member at `path` replaced by `replacement`. */
function replaced(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let at = copy;
  for (const step of path.slice(0, -1)) at = at[step] as Record<string | number, unknown>;
  at[path[path.length - 1] as string | number] = replacement;
  return copy;
}

/**
 * Makes `method` of the harness's API answer once with a corrupted copy of its real answer; the returned function
 * ends the corruption (if the run never called the method).
 */
function corruptOnce(
  h: ReconcileHarness,
  method: keyof OpsManagerApi,
  pick: number,
  value: unknown,
): { stop: () => void; used: () => boolean } {
  const world = h.world;
  const original = world.as.bind(world);
  let done = false;
  let used = false;
  world.as = (actor: string) => {
    const api = original(actor) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const real = api[method]?.bind(api);
    if (real === undefined) return api as never;
    api[method] = async (...args: unknown[]) => {
      const answer = await real(...args);
      if (done) return answer;
      done = true;
      used = true;
      const allowed = ANSWERING[method]?.corruptible ?? (() => false);
      const all = paths(answer).filter((p) => allowed(p));
      if (all.length === 0) return answer;
      return replaced(answer, all[pick % all.length] as (string | number)[], value);
    };
    return api as never;
  };
  return {
    stop: () => {
      done = true;
    },
    used: () => used,
  };
}

const TYPE_ERROR_TEXT = /Cannot read properties|is not a function|is not iterable|Cannot convert|undefined is not/;

/** Project 1's singletons. */
const P1_EXTRA = {
  defaultServerType: 'PRODUCTION_SERVER',
  auditLogRotation: { enforce: true, sizeThresholdMB: 1000, timeThresholdHrs: 24 },
};

function fresh(): ReconcileHarness {
  const h = scenario(P1_EXTRA, {
    // A team notification: the run reads the team.
    alertConfigs: [
      { key: 'host-down', eventTypeName: 'HOST_DOWN', notifications: [{ typeName: 'TEAM', teamId: TEAM }] },
    ],
  });
  h.source.files.set(
    'org.yaml',
    `apiVersion: opsman-gitops/v1\nkind: Organization\nmetadata: {name: acme, orgId: ${ORG}}\nspec: {defaultServerType: TEST_SERVER}\n`,
  );
  return h;
}

async function prepare(h: ReconcileHarness, before: Before): Promise<void> {
  if (before === 'nothing') return;
  await h.run('apply');
  if (before === 'apply+human') {
    // A human disables one config and changes the organization's server type: the next apply reads events to say who.
    await h.world.as('jdoekey1').setAlertConfigEnabled(P1, ownedId(h, 'disk'), false);
    await h.world.as('jdoekey1').setOrgDefaultServerType(ORG, { name: 'DEV_SERVER' });
  }
  if (before === 'apply+desired') {
    // The desired threshold moves: the next apply sends a full PUT.
    const alerts = p1Alerts().map((a) =>
      a.key === 'disk' ? { ...a, metricThreshold: { ...(a.metricThreshold as object), threshold: 80 } } : a,
    );
    setP1(h, { ...P1_EXTRA, alertConfigs: alerts });
  }
}

describe('hostile answers', () => {
  it('a run never throws or reports a TypeError, its state stays sound, and the next run converges (property)', async () => {
    let used = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...METHODS), fc.nat(), fc.nat(), odd, async (method, pick, which, value) => {
        const reach = ANSWERING[method] as (typeof ANSWERING)[string];
        const h = fresh();
        await prepare(h, reach.before[which % reach.before.length] as Before);
        const corruption = corruptOnce(h, method, pick, value);
        const report = await h.run(reach.command);
        corruption.stop();
        if (corruption.used()) used++;
        const texts = [
          ...report.failures.map((f) => f.message),
          ...report.results.map((r) => r.message ?? ''),
          ...(report.warnings ?? []),
          ...report.plan.changes.map((c) => c.reason),
        ];
        for (const text of texts) expect(text).not.toMatch(TYPE_ERROR_TEXT);
        if (h.state.state !== null)
          expect(stateDocumentProblem(JSON.parse(JSON.stringify(h.state.state)))).toBeUndefined();
        // Sound answers again: the next apply leaves nothing to do on the one after.
        await h.run('apply');
        const again = await h.run('plan');
        expect(again.failures).toEqual([]);
        expect(again.plan.changes.filter((c) => c.action !== 'noop').map((c) => `${c.key}:${c.action}`)).toEqual([]);
      }),
      { numRuns: 200 },
    );
    // Nearly every run must meet the hostile answer (a method the run never calls would prove nothing).
    expect(used).toBeGreaterThan(170);
  });
});
