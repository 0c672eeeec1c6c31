/** The State as a seed document: what the data file stores, and what buildState reads back unchanged. */
import type { State } from './state.ts';

/** Serialises the whole state in the seed format (secrets in clear: the data file is the emulator's database). */
export function toSeedDocument(state: State): Record<string, unknown> {
  return {
    serviceVersion: state.serviceVersion,
    organizations: [...state.orgs.values()],
    projects: [...state.groups.values()],
    teams: [...state.teams.values()],
    apiKeys: [...state.apiKeys.values()],
    alertConfigs: [...state.alertConfigs.values()].flatMap((m) => [...m.values()]),
    physicalHosts: [...state.physicalHosts.values()],
    hostAssignments: state.hostAssignments,
    defaultServerTypes: [
      ...[...state.groupServerTypes].map(([groupId, serverType]) => ({ groupId, serverType })),
      ...[...state.orgServerTypes].map(([orgId, serverType]) => ({ orgId, serverType })),
    ],
    auditLogRotateConfigs: [...state.auditLogRotate].map(([groupId, cfg]) => ({ groupId, ...cfg })),
    versionManifest: state.versionManifest,
    s3Configs: [...state.s3Configs.values()],
    events: state.events,
  };
}
