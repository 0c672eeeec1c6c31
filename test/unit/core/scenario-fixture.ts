/** Shared world and desired state of the scenario tests (not a test file). */
import { FakeWorld } from '../../helpers/fake-opsman-api.ts';
import { type ProjectDoc, projectYaml, ReconcileHarness, settingsYaml } from '../../helpers/reconcile-world.ts';

export const P1 = '5e2211c17a3e5a48f5497de3';
export const P2 = '5e2211c17a3e5a48f5497de4';
export const ORG = '5e2211c17a3e5a48f5497de0';
export const TEAM = '6a1f00000000000000000001';

export const SECRETS = {
  'notify#url': 'https://hooks.example.invalid/very-secret-path-1234',
  'notify#secret': 'whsec-super-secret-value-9876',
};

/** The live form of the `disk` alert of p1Alerts, as a human created it in Ops Manager (adoption scenarios). */
export const DISK_BODY = {
  eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
  enabled: true,
  metricThreshold: {
    metricName: 'DISK_PARTITION_SPACE_USED_DATA',
    mode: 'AVERAGE',
    operator: 'GREATER_THAN',
    threshold: 90.0,
    units: 'RAW',
  },
  notifications: [
    { typeName: 'EMAIL', emailAddress: 'dba@acme.example', intervalMin: 60, delayMin: 0 },
    { typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 60, delayMin: 0, emailEnabled: true },
  ],
};

/** The alert configs of project 1. */
export function p1Alerts(): Record<string, unknown>[] {
  return [
    {
      key: 'no-primary',
      eventTypeName: 'NO_PRIMARY',
      notifications: [
        { typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5, delayMin: 0, emailEnabled: true },
        { typeName: 'WEBHOOK', webhookUrl: { secretRef: 'notify#url' }, webhookSecret: { secretRef: 'notify#secret' } },
      ],
    },
    {
      key: 'disk',
      eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
      metricThreshold: {
        metricName: 'DISK_PARTITION_SPACE_USED_DATA',
        mode: 'AVERAGE',
        operator: 'GREATER_THAN',
        threshold: 90,
        units: 'RAW',
      },
      notifications: [
        { typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 60, delayMin: 0, emailEnabled: true },
        { typeName: 'EMAIL', emailAddress: 'dba@acme.example', intervalMin: 60, delayMin: 0 },
      ],
    },
  ];
}

/** A harness over a fresh world with two projects; `p1`/`p2` override the project documents. */
export function scenario(
  p1: Partial<ProjectDoc> = {},
  p2: Partial<ProjectDoc> = {},
  settings: Record<string, unknown> = {},
): ReconcileHarness {
  const w = new FakeWorld();
  w.addProject(P1, ORG);
  w.addProject(P2, ORG);
  w.addTeam(ORG, TEAM);
  w.seedAlert(P1, {
    eventTypeName: 'HOST_DOWN',
    enabled: true,
    notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'] }],
  });
  const h = new ReconcileHarness(w);
  h.secrets.values = { ...SECRETS };
  h.setFiles({
    'settings.yaml': settingsYaml({ mode: 'apply', prune: { maxDeletes: 5, allowEmpty: false }, ...settings }),
    'p1.yaml': projectYaml({
      name: 'payments-prod',
      projectId: P1,
      orgId: ORG,
      prune: true,
      alertConfigs: p1Alerts(),
      ...p1,
    }),
    'p2.yaml': projectYaml({ name: 'payments-staging', projectId: P2, orgId: ORG, alertConfigs: p2Alerts(), ...p2 }),
  });
  return h;
}

/** Replaces project 1's document. */
export function setP1(h: ReconcileHarness, p1: Partial<ProjectDoc>): void {
  h.source.files.set(
    'p1.yaml',
    projectYaml({ name: 'payments-prod', projectId: P1, orgId: ORG, prune: true, alertConfigs: p1Alerts(), ...p1 }),
  );
}

/** The alert configs of project 2. */
export function p2Alerts(): Record<string, unknown>[] {
  return [
    { key: 'host-down', eventTypeName: 'HOST_DOWN', notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'] }] },
  ];
}

/** Replaces project 2's document. */
export function setP2(h: ReconcileHarness, p2: Partial<ProjectDoc>): void {
  h.source.files.set(
    'p2.yaml',
    projectYaml({ name: 'payments-staging', projectId: P2, orgId: ORG, alertConfigs: p2Alerts(), ...p2 }),
  );
}

/** Id of project 1's owned config `key`, from state. */
export function ownedId(h: ReconcileHarness, key: string, project = P1): string {
  const id = h.state.state?.projects[project]?.alertConfigs[key]?.id;
  if (id === undefined) throw new Error(`no owned ${key}`);
  return id;
}

/** Non-noop changes as `key:action`. */
export function actions(report: { plan: { changes: { key: string; action: string }[] } }): string[] {
  return report.plan.changes.filter((c) => c.action !== 'noop').map((c) => `${c.key}:${c.action}`);
}

/** 2026-03-01 10:00 UTC, a Sunday: the staging-hours window (below) is closed. */
export const SUNDAY = Date.parse('2026-03-01T10:00:00Z');

/** Settings with one allow window for project 2, Monday to Friday 09:00-17:00 in Paris. */
export const STAGING_HOURS = {
  changeWindows: [
    {
      name: 'staging-hours',
      kind: 'allow',
      days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'],
      start: '09:00',
      end: '17:00',
      timeZone: 'Europe/Paris',
      projects: [P2],
    },
  ],
};
