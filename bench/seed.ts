/**
 * Renders the emulator seed of a benchmark world: organizations, teams, projects, the tool's GLOBAL_OWNER key and a
 * second "human" key, the unmanaged default alerts of every project, default server types and audit-log rotation equal
 * to what the desired state declares (so a first apply writes only alert configs), physical hosts, a month of host
 * assignments and a version manifest for the archive phase.
 */
import { hexId } from './random.ts';
import type { World } from './world.ts';

/** The seed object, in the emulator's seed format (see the emulator README). */
export type Seed = Record<string, unknown>;

/** ISO date (YYYY-MM-DD) of the first day of the month of `now`, and of `now` itself. */
export function monthRange(now: Date): { startDate: string; endDate: string } {
  const iso = (d: Date) => d.toISOString().slice(0, 10);
  return { startDate: iso(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))), endDate: iso(now) };
}

const SERVER_LABELS: Record<string, string> = {
  DEV_SERVER: 'Dev Server',
  TEST_SERVER: 'Test Server',
  PRODUCTION_SERVER: 'Production Server',
};

/** A small, realistic version manifest. */
function versionManifest(): Record<string, unknown> {
  const build = (version: string, platform: string) => ({
    architecture: 'amd64',
    gitVersion: `${version.replace(/\./g, '')}0000000000000000000000000000000000`.slice(0, 40),
    platform,
    url: `https://fastdl.mongodb.org/linux/mongodb-linux-x86_64-${platform}-${version}.tgz`,
  });
  return {
    updated: 1_700_000_000_000,
    versions: ['6.0.19', '7.0.15', '8.0.4'].map((name) => ({
      name,
      builds: [build(name, 'rhel80'), build(name, 'ubuntu2204')],
    })),
  };
}

/** The seed of the world, at `now` (the month of its host assignments). */
export function renderSeed(world: World, now: Date = new Date()): Seed {
  const alertConfigs: Record<string, unknown>[] = [];
  for (const p of world.projects) {
    for (const d of p.defaults) alertConfigs.push({ groupId: p.id, ...d.body });
  }
  return {
    organizations: world.orgs.map((o) => ({ id: o.id, name: o.name })),
    teams: world.orgs.map((o) => ({ id: o.teamId, name: o.teamName, orgId: o.id })),
    projects: world.projects.map((p) => ({ id: p.id, name: p.name, orgId: p.orgId })),
    apiKeys: world.keys.map((k) => ({
      publicKey: k.publicKey,
      privateKey: k.privateKey,
      roles: [{ roleName: k.roleName }],
    })),
    alertConfigs,
    defaultServerTypes: [
      ...world.projects.map((p) => ({
        groupId: p.id,
        serverType: { name: p.serverType, label: SERVER_LABELS[p.serverType] },
      })),
      ...world.orgs.map((o) => ({
        orgId: o.id,
        serverType: { name: 'PRODUCTION_SERVER', label: 'Production Server' },
      })),
    ],
    auditLogRotateConfigs: world.projects.map((p) => ({ groupId: p.id, ...p.auditLogRotation })),
    physicalHosts: world.projects.flatMap((p) =>
      p.hostnames.map((hostname, h) => ({
        id: hexId('6e00', p.index * p.hostnames.length + h),
        name: `phys-${hostname}`,
        serverType: p.serverType,
        hosts: [{ groupId: p.id, hostname }],
      })),
    ),
    hostAssignments: world.projects.flatMap((p) =>
      p.hostnames.map((hostname) => ({
        groupId: p.id,
        hostname,
        serverType: p.serverType,
        processes: [{ cluster: `${p.name}-rs`, name: hostname, processType: 7 }],
        isChargeable: true,
        memSizeMB: 16384,
        from: monthRange(now).startDate,
      })),
    ),
    versionManifest: versionManifest(),
  };
}
