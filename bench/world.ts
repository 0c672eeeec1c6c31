/**
 * The benchmark world: a deterministic, plain description of N projects x M alert configs, their organizations,
 * teams, API keys and a few unmanaged default alerts. The emulator seed and the desired state are both rendered from
 * it (seed.ts, desired.ts), so the two always match and the expected request counts can be computed from it.
 */
import { type AlertSpec, alertSpecsFor, DEFAULT_ALERTS, type DefaultAlertSpec } from './alert-catalogue.ts';
import { hexId } from './random.ts';

/** Sizes and knobs of a generated world. */
export interface WorldOptions {
  /** Number of projects (groups). */
  projects: number;
  /** Desired alert configs per project (templates included). */
  alerts: number;
  /** Projects per organization. */
  projectsPerOrg?: number;
  /** Unmanaged default alerts already present in every project (0..3). */
  defaultAlertsPerProject?: number;
  /** Physical hosts, and virtual hosts per project in the month's assignments. */
  hostsPerProject?: number;
}

/** Defaults of WorldOptions beyond the two sizes. */
export const DEFAULT_WORLD_OPTIONS = {
  projectsPerOrg: 50,
  defaultAlertsPerProject: 3,
  hostsPerProject: 2,
} as const;

/** An API key of the world. */
export interface WorldKey {
  publicKey: string;
  privateKey: string;
  roleName: string;
}

/** The tool's own key, GLOBAL_OWNER (fixed id of the example world). */
export const TOOL_KEY: WorldKey = {
  publicKey: 'gitopsbt',
  privateKey: '7f3c2a9e-4b1d-4e8f-9a6c-1d2e3f4a5b6c',
  roleName: 'GLOBAL_OWNER',
};

/** A second key that plays "a human editing by hand": the drift of phase 3 comes from it. */
export const DRIFT_KEY: WorldKey = {
  publicKey: 'benchhmn',
  privateKey: '5d6e7f80-9a1b-4c2d-8e3f-405162738495',
  roleName: 'GLOBAL_OWNER',
};

/** One organization with its team. */
export interface WorldOrg {
  id: string;
  name: string;
  teamId: string;
  teamName: string;
}

/** One project with what the desired state says about it. */
export interface WorldProject {
  id: string;
  name: string;
  orgId: string;
  /** Index in the world, from 0. */
  index: number;
  serverType: 'DEV_SERVER' | 'TEST_SERVER' | 'PRODUCTION_SERVER';
  /** Declared (not enforced) audit-log rotation: every project. */
  auditLogRotation: { sizeThresholdMB: number; timeThresholdHrs: number; numUncompressed: number; numTotal: number };
  /** Desired alert configs in order (template ones first). */
  alerts: AlertSpec[];
  /** Unmanaged alerts the seed puts in the project. */
  defaults: DefaultAlertSpec[];
  /** Hostnames of the project's virtual hosts (for the usage archive). */
  hostnames: string[];
  /** `spec.prune` of the project (false in generated worlds; scenarios turn it on). */
  prune?: boolean;
}

/** The whole world. */
export interface World {
  options: Required<WorldOptions>;
  orgs: WorldOrg[];
  projects: WorldProject[];
  keys: WorldKey[];
  /** Alert keys that come from the AlertTemplate `baseline` (shared by every project). */
  templateKeys: string[];
  /** Secret file contents: `{"<secret id>": {"<json key>": value}}`. */
  secrets: Record<string, Record<string, string>>;
}

const SERVER_TYPES = ['PRODUCTION_SERVER', 'TEST_SERVER', 'DEV_SERVER'] as const;
const ENVIRONMENTS = ['prod', 'staging', 'dev', 'qa'] as const;

/** Builds the world for the given sizes. Deterministic: same options, same world. */
export function buildWorld(input: WorldOptions): World {
  const options: Required<WorldOptions> = { ...DEFAULT_WORLD_OPTIONS, ...input };
  if (!Number.isInteger(options.projects) || options.projects < 1) throw new RangeError('projects must be >= 1');
  if (!Number.isInteger(options.alerts) || options.alerts < 1) throw new RangeError('alerts must be >= 1');
  const orgCount = Math.max(2, Math.ceil(options.projects / options.projectsPerOrg));
  const orgs: WorldOrg[] = [];
  for (let o = 0; o < orgCount; o++) {
    orgs.push({
      id: hexId('6c00', o),
      name: `org-${String(o).padStart(3, '0')}`,
      teamId: hexId('6d00', o),
      teamName: `oncall-${String(o).padStart(3, '0')}`,
    });
  }
  const secrets: Record<string, Record<string, string>> = {};
  const projects: WorldProject[] = [];
  for (let p = 0; p < options.projects; p++) {
    const org = orgs[p % orgCount] as WorldOrg;
    const env = ENVIRONMENTS[p % ENVIRONMENTS.length] as string;
    const name = `svc-${String(p).padStart(5, '0')}-${env}`;
    const alerts = alertSpecsFor({ projectIndex: p, projectName: name, count: options.alerts, teamId: org.teamId });
    for (const alert of alerts) {
      for (const s of alert.secrets) {
        const bucket = secrets[s.secretId] ?? {};
        bucket[s.jsonKey] = s.value;
        secrets[s.secretId] = bucket;
      }
    }
    projects.push({
      id: hexId('6b00', p),
      name,
      orgId: org.id,
      index: p,
      serverType: SERVER_TYPES[p % SERVER_TYPES.length] as WorldProject['serverType'],
      auditLogRotation: { sizeThresholdMB: 1000, timeThresholdHrs: 24, numUncompressed: 5, numTotal: 20 + (p % 5) },
      alerts,
      defaults: DEFAULT_ALERTS.slice(0, options.defaultAlertsPerProject),
      hostnames: Array.from({ length: options.hostsPerProject }, (_, h) => `${name}-${h}.db.bench.internal`),
    });
  }
  const templateKeys = (projects[0]?.alerts ?? []).filter((a) => a.template).map((a) => a.key);
  return { options, orgs, projects, keys: [TOOL_KEY, DRIFT_KEY], templateKeys, secrets };
}

/** Total desired alert configs of a world. */
export function countDesiredAlerts(world: World): number {
  return world.projects.reduce((n, p) => n + p.alerts.length, 0);
}
