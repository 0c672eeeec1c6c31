/**
 * The fewest API requests a phase's work needs: list pages at 500 per page, one read per singleton per target, one
 * write per change. `requests / minimum` compares the reconciler with it (target <= 1.05). Digest challenges are not
 * counted here: the ratio is computed on the requests the client made (its observer and the emulator's log agree).
 */
import type { World, WorldProject } from './world.ts';

/** Largest page the API serves (itemsPerPage maximum). */
export const MAX_PAGE_SIZE = 500;

/** The phases of a benchmark run. */
export type PhaseName = 'apply-initial' | 'plan-noop' | 'apply-drift' | 'archive';

/** Every phase, in run order. */
export const PHASES: readonly PhaseName[] = ['apply-initial', 'plan-noop', 'apply-drift', 'archive'];

/** The minimum, broken down. */
export interface Minimum {
  listPages: number;
  singletonReads: number;
  writes: number;
  total: number;
  /** The same total by HTTP method. */
  byMethod: Record<string, number>;
  /** The same total by route (`GET /groups/{groupId}/alertConfigs`), when computed for a phase. */
  byRoute?: Record<string, number>;
}

/** Route names, as the client's observer and the emulator's log spell them. */
export const ROUTES = {
  alertConfigs: 'GET /groups/{groupId}/alertConfigs',
  createAlert: 'POST /groups/{groupId}/alertConfigs',
  patchAlert: 'PATCH /groups/{groupId}/alertConfigs/{alertConfigId}',
  projectServerType: 'GET /usage/groups/{groupId}/defaultServerType',
  orgServerType: 'GET /usage/organizations/{orgId}/defaultServerType',
  auditLog: 'GET /groups/{groupId}/automationConfig/auditLogRotateConfig',
  team: 'GET /orgs/{orgId}/teams/{teamId}',
  projectEvents: 'GET /groups/{groupId}/events',
  manifest: 'GET /unauth/versionManifest',
  physicalHosts: 'GET /usage/groups',
  projectAssignments: 'GET /usage/groups/{groupId}/hosts',
} as const;

/** Pages needed to read `items` items: at least one (an empty list is still one request). */
export function pagesFor(items: number, pageSize: number = MAX_PAGE_SIZE): number {
  if (!Number.isInteger(items) || items < 0) throw new RangeError(`items must be a non-negative integer, got ${items}`);
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new RangeError(`pageSize must be >= 1, got ${pageSize}`);
  return Math.max(1, Math.ceil(items / pageSize));
}

/** Combines list sizes, singleton reads and writes into a Minimum. Reads are GETs; writes are counted by method. */
export function minimumRequests(input: {
  lists: number[];
  singletonReads: number;
  writes: Record<string, number>;
  pageSize?: number;
}): Minimum {
  const listPages = input.lists.reduce((n, items) => n + pagesFor(items, input.pageSize), 0);
  const writes = Object.values(input.writes).reduce((n, w) => n + w, 0);
  const byMethod: Record<string, number> = { GET: listPages + input.singletonReads };
  for (const [method, count] of Object.entries(input.writes)) {
    if (count > 0) byMethod[method] = (byMethod[method] ?? 0) + count;
  }
  return {
    listPages,
    singletonReads: input.singletonReads,
    writes,
    total: listPages + input.singletonReads + writes,
    byMethod,
  };
}

/** Distinct teams a project's alerts notify: each is one GET team for that target. */
export function teamsReferenced(project: WorldProject): string[] {
  const ids = new Set<string>();
  for (const alert of project.alerts) {
    for (const n of alert.body.notifications)
      if (n.typeName === 'TEAM' && typeof n.teamId === 'string') ids.add(n.teamId);
  }
  return [...ids].sort();
}

/** Which desired alert configs phase 3 disables behind the tool's back: ~1% of them, spread over the projects. */
export interface DriftSelection {
  /** `[projectIndex, alertIndex]` pairs, only alerts desired enabled. */
  targets: [number, number][];
  /** Distinct projects touched: each costs one events read for attribution. */
  projects: number;
}

/** Picks `ceil(fraction x enabled alerts)` enabled alerts at an even stride (deterministic). */
export function selectDrift(world: World, fraction = 0.01): DriftSelection {
  const enabled: [number, number][] = [];
  for (const p of world.projects) {
    p.alerts.forEach((a, i) => {
      if (a.body.enabled) enabled.push([p.index, i]);
    });
  }
  const want = Math.min(enabled.length, Math.ceil(enabled.length * fraction));
  const targets: [number, number][] = [];
  if (want > 0) {
    const stride = enabled.length / want;
    for (let k = 0; k < want; k++) targets.push(enabled[Math.floor(k * stride)] as [number, number]);
  }
  return { targets, projects: new Set(targets.map(([p]) => p)).size };
}

/** Distinct (org, team) pairs the whole world notifies: a team needs one check per run, however many projects name it. */
export function distinctTeams(world: World): number {
  const pairs = new Set<string>();
  for (const p of world.projects) for (const t of teamsReferenced(p)) pairs.add(`${p.orgId}/${t}`);
  return pairs.size;
}

/** Reads of one plan over the whole world: alert lists (with `extraLive` alerts per project), singletons, teams. */
function planReads(world: World, alertsLive: (p: WorldProject) => number) {
  const lists = world.projects.map((p) => alertsLive(p));
  // Org defaultServerType, each project's defaultServerType and audit-log rotation, each distinct team once.
  const singletonReads = world.orgs.length + 2 * world.projects.length + distinctTeams(world);
  return { lists, singletonReads };
}

/** The minimum of one phase by route. */
export function phaseRoutes(
  world: World,
  phase: PhaseName,
  drift: DriftSelection = selectDrift(world),
): Record<string, number> {
  const n = world.projects.length;
  const teams = distinctTeams(world);
  const alertPages = (extra: (p: WorldProject) => number) =>
    world.projects.reduce((sum, p) => sum + pagesFor(p.defaults.length + extra(p)), 0);
  const reads = (extra: (p: WorldProject) => number): Record<string, number> => ({
    [ROUTES.alertConfigs]: alertPages(extra),
    [ROUTES.projectServerType]: n,
    [ROUTES.auditLog]: n,
    [ROUTES.orgServerType]: world.orgs.length,
    [ROUTES.team]: teams,
  });
  const out: Record<string, number> = (() => {
    switch (phase) {
      case 'apply-initial':
        return { ...reads(() => 0), [ROUTES.createAlert]: world.projects.reduce((sum, p) => sum + p.alerts.length, 0) };
      case 'plan-noop':
        return reads((p) => p.alerts.length);
      case 'apply-drift':
        return {
          ...reads((p) => p.alerts.length),
          [ROUTES.projectEvents]: drift.projects,
          [ROUTES.patchAlert]: drift.targets.length,
        };
      case 'archive': {
        const hosts = world.projects.reduce((sum, p) => sum + p.hostnames.length, 0);
        const assignments = world.projects.reduce((sum, p) => sum + pagesFor(p.hostnames.length), 0);
        return {
          [ROUTES.manifest]: 1,
          [ROUTES.physicalHosts]: pagesFor(hosts),
          [ROUTES.projectAssignments]: assignments,
        };
      }
    }
  })();
  for (const [route, count] of Object.entries(out)) if (count === 0) delete out[route];
  return out;
}

/** Where `observed` (requests by route) exceeds or falls short of the minimum by route: `route: observed (minimum m)`. */
export function routeDifferences(observed: Record<string, number>, minimum: Record<string, number>): string[] {
  const routes = [...new Set([...Object.keys(observed), ...Object.keys(minimum)])].sort();
  return routes
    .filter((r) => (observed[r] ?? 0) !== (minimum[r] ?? 0))
    .map((r) => `${r}: ${observed[r] ?? 0} (minimum ${minimum[r] ?? 0})`);
}

/** The minimum of one phase of the benchmark over `world` (with phase 3's drift selection). */
export function phaseMinimum(world: World, phase: PhaseName, drift: DriftSelection = selectDrift(world)): Minimum {
  return { ...phaseMinimumTotals(world, phase, drift), byRoute: phaseRoutes(world, phase, drift) };
}

function phaseMinimumTotals(world: World, phase: PhaseName, drift: DriftSelection): Minimum {
  switch (phase) {
    case 'apply-initial': {
      const reads = planReads(world, (p) => p.defaults.length);
      const creates = world.projects.reduce((n, p) => n + p.alerts.length, 0);
      return minimumRequests({ ...reads, writes: { POST: creates } });
    }
    case 'plan-noop':
      return minimumRequests({ ...planReads(world, (p) => p.defaults.length + p.alerts.length), writes: {} });
    case 'apply-drift': {
      const reads = planReads(world, (p) => p.defaults.length + p.alerts.length);
      // Attribution: one events read per drifted project.
      return minimumRequests({
        lists: reads.lists,
        singletonReads: reads.singletonReads + drift.projects,
        writes: { PATCH: drift.targets.length },
      });
    }
    case 'archive': {
      const hosts = world.projects.reduce((n, p) => n + p.hostnames.length, 0);
      // The manifest, the physical hosts, and each project's host assignments of the month.
      const lists = [hosts, ...world.projects.map((p) => p.hostnames.length)];
      return minimumRequests({ lists, singletonReads: 1, writes: {} });
    }
  }
}

/** requests / minimum, rounded to 3 decimals. A zero minimum gives 1 when no request was made, else Infinity. */
export function ratio(actual: number, minimum: number): number {
  if (minimum === 0) return actual === 0 ? 1 : Number.POSITIVE_INFINITY;
  return Math.round((actual / minimum) * 1000) / 1000;
}
