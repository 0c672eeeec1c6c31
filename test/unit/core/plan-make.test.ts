// Scenario: makePlan over a fake Ops Manager, called directly: progress lines count every target (organizations too)
// and never call a failed one planned, keepAlive is awaited after each target, a stop plans no further target and
// reads nothing more (the version manifest included), and targets are read at most targetConcurrency at a time.
import { describe, expect, it } from 'vitest';
import { RunInterruptedError } from '../../../lambdas/core/interrupt.ts';
import { DEFAULT_SETTINGS, type DesiredState } from '../../../lambdas/core/model.ts';
import { makePlan, type PlanDependencies, type PlanRequest } from '../../../lambdas/core/plan.ts';
import { singletonDigest } from '../../../lambdas/core/plan-singletons.ts';
import type { OpsManagerApi, ReconcileState } from '../../../lambdas/core/ports.ts';
import { emptyState } from '../../../lambdas/core/state.ts';
import { FakeWorld, serverError } from '../../helpers/fake-opsman-api.ts';
import { desiredProject, ListReporter } from '../../helpers/reconcile-world.ts';
import { ownedId, P2 as P2_FIXTURE, scenario } from './scenario-fixture.ts';

const P = ['5e2211c17a3e5a48f5497d01', '5e2211c17a3e5a48f5497d02', '5e2211c17a3e5a48f5497d03'];
const ORG = '5e2211c17a3e5a48f5497d00';
const MANIFEST = '{"updated":1700000000000,"versions":[{"name":"7.0.1","builds":[]}]}';

function world(): FakeWorld {
  const w = new FakeWorld();
  for (const p of P) w.addProject(p, ORG);
  return w;
}

function desired(pin = false): DesiredState {
  return {
    projects: P.map((p) => desiredProject(p, [{ key: 'down' }], { defaultServerType: 'PRODUCTION_SERVER' })),
    organizations: [
      { name: 'acme', orgId: ORG, defaultServerType: 'DEV_SERVER', source: { file: 'o.yaml', line: 1, column: 1 } },
    ],
    settings: {
      ...DEFAULT_SETTINGS,
      mode: 'apply',
      ...(pin ? { versionManifest: { pin: { path: 'm.json', text: '{"versions":[]}', sha256: 'abc' } } } : {}),
    },
    files: [],
    digest: 'd',
  };
}

function request(extra: Partial<PlanRequest> = {}): PlanRequest {
  return {
    runId: 'r',
    createdAt: '2026-03-01T10:00:00Z',
    command: 'plan',
    desired: desired(),
    state: null,
    stateCorrupt: false,
    ...extra,
  };
}

function deps(
  api: OpsManagerApi,
  extra: Omit<Partial<PlanDependencies>, 'reporter'> = {},
): PlanDependencies & { reporter: ListReporter } {
  return {
    api,
    secrets: { resolve: async () => 'x' },
    fingerprintKey: new Uint8Array(32),
    reporter: new ListReporter(),
    ...extra,
  };
}

/** An API view that runs `before` ahead of each call of `method` (to stop the run mid-read, or to count reads). */
function hooked(
  api: OpsManagerApi,
  method: keyof OpsManagerApi,
  before: (args: unknown[]) => Promise<void> | void,
): OpsManagerApi {
  return new Proxy(api, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop !== method || typeof value !== 'function')
        return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: unknown[]) => {
        await before(args);
        return value.apply(target, args);
      };
    },
  });
}

describe('makePlan progress', () => {
  it('counts projects and organizations, and calls a target whose read failed "could not plan", never "planned"', async () => {
    const w = world();
    w.faults.push({ method: 'listAlertConfigs', groupId: P[1], error: () => serverError() });
    const d = deps(w.as('gitopsbt'));
    const plan = await makePlan(request(), d, { targetConcurrency: 1 });
    expect(d.reporter.messages).toEqual([
      'planned p-7d01 (1/4)',
      'could not plan p-7d02 (2/4)',
      'planned p-7d03 (3/4)',
      'planned acme (4/4)',
    ]);
    // The failed read is the plan's failure (with its code and status), never an empty project to create into.
    expect(plan.failures).toEqual([
      expect.objectContaining({
        target: expect.objectContaining({ id: P[1] }),
        phase: 'read',
        code: 'OPSMAN_API_ERROR',
        httpStatus: 500,
      }),
    ]);
    // A 500 says nothing of the id: no "check metadata.projectId" advice (that is for Ops Manager's 404 alone).
    expect(plan.failures[0]?.message).not.toContain('projectId');
    expect(plan.changes.filter((c) => c.target.id === P[1])).toEqual([]);
    expect(plan.changes.filter((c) => c.target.id === P[0]).map((c) => `${c.key}:${c.action}`)).toEqual([
      'down:create',
      'defaultServerType:update',
    ]);
  });

  // A new author's mistyped projectId: Ops Manager's 404 alone does not say where the id is written or what to do.
  it('a project Ops Manager does not know is a read failure naming where its Project document is', async () => {
    const w = new FakeWorld();
    for (const p of P.slice(1)) w.addProject(p, ORG);
    const plan = await makePlan(request(), deps(w.as('gitopsbt')), { targetConcurrency: 1 });
    expect(plan.failures.map((f) => [f.target.id, f.phase, f.httpStatus, f.message])).toEqual([
      [
        P[0],
        'read',
        404,
        `GET /groups/{groupId}/alertConfigs failed: 404 GROUP_NOT_FOUND: No group with ID ${P[0]} exists; no project has the id ${P[0]}: check metadata.projectId of Project p-7d01 at x.yaml:1:1, create the project in Ops Manager first if it is new (opsman-gitops does not create projects), or remove that document if the project was deleted`,
      ],
    ]);
  });

  it('an organization whose read fails is a failure and "could not plan", not a server type set from nothing', async () => {
    const w = world();
    w.faults.push({
      method: 'getOrgDefaultServerType',
      error: () => serverError('GET', '/orgs/{orgId}/defaultServerType'),
    });
    const d = deps(w.as('gitopsbt'));
    const plan = await makePlan(request(), d);
    expect(d.reporter.messages.at(-1)).toBe('could not plan acme (4/4)');
    expect(plan.failures.map((f) => `${f.target.type}:${f.phase}`)).toEqual(['organization:read']);
    expect(plan.changes.filter((c) => c.target.type === 'organization')).toEqual([]);
  });

  it("an organization that fails after its read (its drift attribution throws) keeps no change, and the failure is the plan's", async () => {
    const w = world();
    w.serverTypes.set(`org:${ORG}`, { name: 'TEST_SERVER', label: 'Test' });
    const applied = singletonDigest('DEV_SERVER');
    const state: ReconcileState = {
      ...emptyState('2026-02-01T00:00:00Z'),
      organizations: {
        [ORG]: { lastReconciledAt: '2026-02-01T00:00:00Z', singletons: { defaultServerType: applied } },
      },
    };
    const api = w.as('gitopsbt');
    // An answer that is no list: the attribution's own code throws on it, after the server type was read and planned.
    const broken = Object.assign(Object.create(api) as OpsManagerApi, {
      listOrgEvents: async () => null as unknown as Awaited<ReturnType<OpsManagerApi['listOrgEvents']>>,
    });
    const plan = await makePlan(request({ state }), deps(broken));
    expect(plan.failures.map((f) => `${f.target.type}:${f.phase}`)).toEqual(['organization:plan']);
    expect(plan.changes.filter((c) => c.target.type === 'organization')).toEqual([]);
  });

  it('a --project plan counts only the selected projects and plans no organization', async () => {
    const w = world();
    const d = deps(w.as('gitopsbt'));
    const plan = await makePlan(request({ projects: [P[2] as string, P[0] as string] }), d, { targetConcurrency: 1 });
    expect(d.reporter.messages).toEqual(['planned p-7d01 (1/2)', 'planned p-7d03 (2/2)']);
    expect(plan.projects).toEqual([P[0], P[2]]);
    expect(Object.keys(plan.targetModes ?? {})).toEqual([`project:${P[0]}`, `project:${P[2]}`]);
    expect(w.calls.filter((c) => c.method === 'getOrgDefaultServerType')).toEqual([]);
  });
});

describe('makePlan keepAlive', () => {
  it('is awaited after each target: the next target is not read before it ends, and its error aborts the plan', async () => {
    const w = world();
    const order: string[] = [];
    const api = hooked(w.as('gitopsbt'), 'listAlertConfigs', (args) => {
      order.push(`read ${String(args[0]).slice(-2)}`);
    });
    let n = 0;
    const keepAlive = async () => {
      n++;
      await new Promise((r) => setTimeout(r, 5));
      order.push(`renewed ${n}`);
      if (n === 2) throw new Error('lease lost');
    };
    await expect(makePlan(request(), deps(api, { keepAlive }), { targetConcurrency: 1 })).rejects.toThrow('lease lost');
    expect(order).toEqual(['read 01', 'renewed 1', 'read 02', 'renewed 2']);
  });
});

describe('makePlan stopped', () => {
  it('stopped while a target is read: no progress line for it, no further target read, RunInterruptedError', async () => {
    const w = world();
    const stop = new AbortController();
    const api = hooked(w.as('gitopsbt'), 'listAlertConfigs', (args) => {
      if (args[0] === P[1]) stop.abort();
    });
    const d = deps(api, { signal: stop.signal });
    await expect(makePlan(request(), d, { targetConcurrency: 1 })).rejects.toBeInstanceOf(RunInterruptedError);
    expect(d.reporter.messages).toEqual(['planned p-7d01 (1/4)']);
    expect(w.calls.filter((c) => c.method === 'listAlertConfigs').map((c) => c.groupId)).toEqual([P[0], P[1]]);
    expect(w.calls.filter((c) => c.method === 'getOrgDefaultServerType')).toEqual([]);
  });

  it('stopped while the last organization is read: the version manifest is not read', async () => {
    const w = world();
    w.manifest = MANIFEST;
    const stop = new AbortController();
    const api = hooked(w.as('gitopsbt'), 'getOrgDefaultServerType', () => stop.abort());
    await expect(
      makePlan(request({ desired: desired(true) }), deps(api, { signal: stop.signal })),
    ).rejects.toBeInstanceOf(RunInterruptedError);
    expect(w.calls.filter((c) => c.method === 'getVersionManifest')).toEqual([]);
  });

  it('stopped while the version manifest is read: RunInterruptedError, not a plan', async () => {
    const w = world();
    w.manifest = MANIFEST;
    const stop = new AbortController();
    const api = hooked(w.as('gitopsbt'), 'getVersionManifest', () => stop.abort());
    await expect(
      makePlan(request({ desired: desired(true) }), deps(api, { signal: stop.signal })),
    ).rejects.toBeInstanceOf(RunInterruptedError);
  });

  it('stopped while organizations wait: none is read', async () => {
    const w = world();
    const stop = new AbortController();
    const api = hooked(w.as('gitopsbt'), 'listAlertConfigs', (args) => {
      if (args[0] === P[2]) stop.abort();
    });
    await expect(
      makePlan(request(), deps(api, { signal: stop.signal }), { targetConcurrency: 1 }),
    ).rejects.toBeInstanceOf(RunInterruptedError);
    expect(w.calls.filter((c) => c.method === 'getOrgDefaultServerType')).toEqual([]);
  });
});

describe('makePlan concurrency', () => {
  it('reads at most targetConcurrency targets at once, and that many when it can', async () => {
    const w = world();
    let inFlight = 0;
    let most = 0;
    const base = w.as('gitopsbt');
    const api = new Proxy(base, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (prop !== 'listAlertConfigs' || typeof value !== 'function')
          return typeof value === 'function' ? value.bind(target) : value;
        return async (...args: unknown[]) => {
          inFlight++;
          most = Math.max(most, inFlight);
          await new Promise((r) => setTimeout(r, 10));
          try {
            return await value.apply(target, args);
          } finally {
            inFlight--;
          }
        };
      },
    });
    await makePlan(request(), deps(api), { targetConcurrency: 2 });
    expect(most).toBe(2);
  });
});

describe('makePlan targets', () => {
  it('plans the pinned version manifest in a full plan, and reads it not at all in a --project plan', async () => {
    const w = world();
    w.manifest = MANIFEST;
    const plan = await makePlan(request({ desired: desired(true) }), deps(w.as('gitopsbt')));
    const manifest = plan.changes.filter((c) => c.kind === 'versionManifest');
    expect(manifest.map((c) => `${c.target.type}:${c.action}`)).toEqual(['global:update']);
    expect(Object.keys(plan.liveDigests)).toContain('global:global');
    const partial = await makePlan(
      request({ desired: desired(true), projects: [P[0] as string] }),
      deps(w.as('gitopsbt')),
    );
    expect(partial.changes.filter((c) => c.kind === 'versionManifest')).toEqual([]);
    expect(w.calls.filter((c) => c.method === 'getVersionManifest')).toHaveLength(1);
  });

  it("a drift whose authors cannot be read is a plan warning, for a project's singleton and an organization's", async () => {
    const w = world();
    w.serverTypes.set(P[0] as string, { name: 'TEST_SERVER', label: 'Test' });
    w.serverTypes.set(`org:${ORG}`, { name: 'TEST_SERVER', label: 'Test' });
    w.faults.push({ method: 'listProjectEvents', error: () => serverError('GET', '/groups/{groupId}/events') });
    w.faults.push({ method: 'listOrgEvents', error: () => serverError('GET', '/orgs/{orgId}/events') });
    // The state says DEV_SERVER was applied: live moved since, so each difference is drift.
    const applied = singletonDigest('DEV_SERVER');
    const state: ReconcileState = {
      ...emptyState('2026-02-01T00:00:00Z'),
      projects: {
        [P[0] as string]: {
          lastReconciledAt: '2026-02-01T00:00:00Z',
          alertConfigs: {},
          singletons: { defaultServerType: applied },
        },
      },
      organizations: {
        [ORG]: { lastReconciledAt: '2026-02-01T00:00:00Z', singletons: { defaultServerType: applied } },
      },
    };
    const plan = await makePlan(request({ state }), deps(w.as('gitopsbt')));
    expect(plan.warnings?.filter((m) => m.startsWith('drift attribution for'))).toEqual([
      expect.stringMatching(/^drift attribution for p-7d01 unavailable/),
      expect.stringMatching(/^drift attribution for acme unavailable/),
    ]);
  });
});

describe('makePlan notices of alert planning', () => {
  it("carries a project's notes (a released key it does not own) and warnings (an undigested create marker)", async () => {
    const w = world();
    const d = desired();
    d.projects[0] = { ...(d.projects[0] as DesiredState['projects'][number]), release: ['ghost'] };
    const state: ReconcileState = {
      ...emptyState('2026-02-01T00:00:00Z'),
      projects: {
        [P[1] as string]: {
          alertConfigs: { gone: { pendingCreate: { runId: 'old-run', startedAt: '2026-01-01T00:00:00Z' } } },
        },
      },
    };
    const plan = await makePlan(request({ desired: d, state }), deps(w.as('gitopsbt')));
    expect(plan.notes).toEqual([expect.stringContaining('project p-7d01: released key "ghost" is not owned')]);
    expect(plan.warnings).toEqual([
      expect.stringContaining('project p-7d02 (5e2211c17a3e5a48f5497d02): alert key "gone"'),
    ]);
  });
});

describe('makePlan order and counts', () => {
  it('orders the changes by target name, kind and key, whatever the order of the files and of the reads', async () => {
    const w = world();
    const d = desired();
    d.projects = [
      desiredProject(P[0] as string, [{ key: 'zz' }, { key: 'aa' }], { name: 'zeta', defaultServerType: 'DEV_SERVER' }),
      desiredProject(P[1] as string, [{ key: 'mm' }], { name: 'alpha' }),
    ];
    const plan = await makePlan(request({ desired: d }), deps(w.as('gitopsbt')));
    expect(plan.changes.map((c) => `${c.target.name}/${c.key}`)).toEqual([
      'alpha/mm',
      'zeta/aa',
      'zeta/zz',
      'zeta/defaultServerType',
      'acme/defaultServerType',
    ]);
  });

  it('a project that left the desired state names its first five keys, then "..."', async () => {
    const w = world();
    const gone = '5e2211c17a3e5a48f5497d09';
    const keys = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6'];
    const state: ReconcileState = {
      ...emptyState('2026-02-01T00:00:00Z'),
      projects: { [gone]: { alertConfigs: Object.fromEntries(keys.map((k, i) => [k, { id: `6b${i}` }])) } },
    };
    const plan = await makePlan(request({ state }), deps(w.as('gitopsbt')));
    expect(plan.warnings).toEqual([
      expect.stringContaining(
        `project ${gone} is no longer in the desired state; the 6 alert config(s) it owns (k1, k2, k3, k4, k5, ...)`,
      ),
    ]);
  });

  it('with a corrupt state, a delete is blocked (nothing is pruned while ownership is unknown)', async () => {
    const w = world();
    const id = w.seedAlert(P[0] as string, { eventTypeName: 'HOST_DOWN', enabled: true, notifications: [] });
    const d = desired();
    d.projects[0] = { ...(d.projects[0] as DesiredState['projects'][number]), prune: true };
    const state: ReconcileState = {
      ...emptyState('2026-02-01T00:00:00Z'),
      projects: { [P[0] as string]: { alertConfigs: { old: { id } } } },
    };
    const plan = await makePlan(request({ state, stateCorrupt: true }), deps(w.as('gitopsbt')));
    expect(plan.warnings?.[0]).toMatch(
      /^.*ownership is unknown this run; owned alert configs are recovered by adoption and nothing is pruned$/,
    );
    expect(plan.changes.filter((c) => c.key === 'old').map((c) => `${c.action}: ${c.reason}`)).toEqual([
      expect.stringMatching(/^blocked: the state was unreadable \(corrupt\)/),
    ]);
  });
});

describe('makePlan change windows', () => {
  /** Project 1's server type was applied as DEV_SERVER, changed by hand for five applies in a row: a fight. */
  function fighting(): ReconcileState {
    const at = '2026-02-01T00:00:00Z';
    return {
      ...emptyState(at),
      projects: {
        [P[0] as string]: {
          lastReconciledAt: at,
          alertConfigs: {},
          singletons: { defaultServerType: singletonDigest('DEV_SERVER') },
          driftStreaks: { defaultServerType: { runs: 5, since: at, actors: [], fields: ['defaultServerType'] } },
        },
      },
    };
  }

  it('a drift on a target a window holds is no fight this run; the same drift unheld is', async () => {
    const w = world();
    w.serverTypes.set(P[0] as string, { name: 'TEST_SERVER', label: 'Test' });
    const fights = (p: Awaited<ReturnType<typeof makePlan>>) =>
      p.changes.filter((c) => c.drift?.fight !== undefined).map((c) => `${c.target.id}/${c.key}`);
    const open = await makePlan(request({ command: 'apply', state: fighting() }), deps(w.as('gitopsbt')));
    expect(fights(open)).toEqual([`${P[0]}/defaultServerType`]);
    const d = desired();
    d.settings.changeWindows = [
      { name: 'freeze', kind: 'deny', from: '2026-03-01T00:00:00Z', until: '2026-03-02T00:00:00Z' },
    ];
    const held = await makePlan(request({ command: 'apply', desired: d, state: fighting() }), deps(w.as('gitopsbt')));
    expect(held.windowHolds?.[`project:${P[0]}`]).toBeDefined();
    expect(fights(held)).toEqual([]);
  });

  it('windows that hold nothing record no windowHolds', async () => {
    const d = desired();
    d.settings.changeWindows = [
      { name: 'freeze', kind: 'deny', from: '2026-04-01T00:00:00Z', until: '2026-04-02T00:00:00Z' },
    ];
    const plan = await makePlan(request({ command: 'apply', desired: d }), deps(world().as('gitopsbt')));
    expect(plan.changeWindows).toEqual(d.settings.changeWindows);
    expect(plan).not.toHaveProperty('windowHolds');
  });
});

describe('makePlan a target failing late', () => {
  it('a project whose planning throws after its changes were made keeps none of them, only its failure', async () => {
    const w = world();
    w.serverTypes.set(P[0] as string, { name: 'TEST_SERVER', label: 'Test' });
    // An unmanaged config in each of the first two projects: listed for the one planned, not for the one that failed.
    for (const p of [P[0], P[1]] as string[])
      w.seedAlert(p, { eventTypeName: 'JOINED_GROUP', enabled: true, notifications: [] });
    // A malformed events answer (not a list) makes drift attribution throw: the last step of planning a project.
    const api = new Proxy(w.as('gitopsbt'), {
      get(target, prop, receiver) {
        if (prop === 'listProjectEvents') return async () => null;
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const state: ReconcileState = {
      ...emptyState('2026-02-01T00:00:00Z'),
      projects: {
        [P[0] as string]: {
          lastReconciledAt: '2026-02-01T00:00:00Z',
          alertConfigs: {},
          singletons: { defaultServerType: singletonDigest('DEV_SERVER') },
        },
      },
    };
    const plan = await makePlan(request({ command: 'apply', state }), deps(api));
    expect(plan.failures.map((f) => `${f.target.id}:${f.phase}`)).toEqual([`${P[0]}:plan`]);
    expect(plan.changes.filter((c) => c.target.id === P[0])).toEqual([]);
    expect(plan.changes.filter((c) => c.target.id === P[1]).length).toBeGreaterThan(0);
    expect((plan.unmanaged ?? []).map((u) => u.target.id)).toEqual([P[1]]);
  });
});

describe('makePlan organizations and the installation', () => {
  it('an organization without defaultServerType is neither read nor given a change', async () => {
    const w = world();
    const d = desired();
    d.organizations = [{ name: 'acme', orgId: ORG, source: { file: 'o.yaml', line: 1, column: 1 } }];
    const plan = await makePlan(request({ desired: d }), deps(w.as('gitopsbt')));
    expect(plan.changes.filter((c) => c.target.type === 'organization')).toEqual([]);
    expect(w.calls.filter((c) => c.method === 'getOrgDefaultServerType')).toEqual([]);
  });

  it('in observe mode an organization and the pinned manifest report drift, never an update', async () => {
    const w = world();
    w.manifest = MANIFEST;
    const d = desired(true);
    d.settings.mode = 'observe';
    const plan = await makePlan(request({ command: 'apply', desired: d }), deps(w.as('gitopsbt')));
    expect(
      plan.changes.filter((c) => c.target.type !== 'project').map((c) => `${c.target.type}/${c.key}:${c.action}`),
    ).toEqual(['organization/defaultServerType:drift', 'global/versionManifest:drift']);
  });

  it("an organization's drift authors are read from its last reconcile on, not from the beginning", async () => {
    const w = world();
    w.serverTypes.set(`org:${ORG}`, { name: 'TEST_SERVER', label: 'Test' });
    const queries: unknown[] = [];
    const api = hooked(w.as('gitopsbt'), 'listOrgEvents', (args) => {
      queries.push(args[1]);
    });
    const state: ReconcileState = {
      ...emptyState('2026-02-01T00:00:00Z'),
      organizations: {
        [ORG]: {
          lastReconciledAt: '2026-02-01T00:00:00Z',
          singletons: { defaultServerType: singletonDigest('DEV_SERVER') },
        },
      },
    };
    await makePlan(request({ state }), deps(api));
    expect(queries).toEqual([expect.objectContaining({ minDate: expect.stringMatching(/^2026-0[12]-/) })]);
  });
});

describe('makePlan the manifest read failing', () => {
  it('is a failure of the installation target, not a manifest left unplanned in silence', async () => {
    const w = world();
    w.faults.push({ method: 'getVersionManifest', error: () => serverError('GET', '/unauth/versionManifest') });
    const plan = await makePlan(request({ desired: desired(true) }), deps(w.as('gitopsbt')));
    expect(plan.failures.map((f) => `${f.target.type}:${f.phase}:${f.httpStatus}`)).toEqual(['global:read:500']);
    expect(plan.changes.filter((c) => c.kind === 'versionManifest')).toEqual([]);
  });
});

describe("makePlan an organization's own mode", () => {
  it('spec.mode observe of an organization turns its update into drift while the projects apply', async () => {
    const d = desired();
    d.organizations = d.organizations.map((o) => ({ ...o, mode: 'observe' as const }));
    const plan = await makePlan(request({ command: 'apply', desired: d }), deps(world().as('gitopsbt')));
    expect(plan.targetModes?.[`organization:${ORG}`]).toBe('observe');
    expect(plan.changes.filter((c) => c.target.type === 'organization').map((c) => c.action)).toEqual(['drift']);
    expect(plan.targetModes?.[`project:${P[0]}`]).toBe('apply');
  });
});

describe('makePlan an owned config deleted by hand', () => {
  it("is re-created as drift naming who deleted it (the former id's events)", async () => {
    const h = scenario();
    await h.run('apply');
    const id = ownedId(h, 'host-down', P2_FIXTURE);
    await h.world.as('jdoekey1').deleteAlertConfig(P2_FIXTURE, id);
    const report = await h.run('plan');
    const change = report.plan.changes.find((c) => c.key === 'host-down');
    expect(change?.action).toBe('create');
    expect(change?.drift?.attribution?.map((a) => [a.actor, a.eventTypeName])).toEqual([
      ['jdoekey1', 'ALERT_CONFIG_DELETED_AUDIT'],
    ]);
  });
});
