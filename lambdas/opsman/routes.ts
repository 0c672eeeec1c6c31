/**
 * Path templates of every operation, relative to `{base_url}` (the S3 configs live under its `/admin/backup`). The
 * parameter names match the emulator's route log, so the observer's pathTemplate and the request log agree.
 */
export const ROUTES = Object.freeze({
  alertConfigs: '/groups/{groupId}/alertConfigs',
  alertConfig: '/groups/{groupId}/alertConfigs/{alertConfigId}',
  matcherFieldNames: '/alertConfigs/matchers/fieldNames',
  auditLogRotateConfig: '/groups/{groupId}/automationConfig/auditLogRotateConfig',
  physicalHosts: '/usage/groups',
  physicalHost: '/usage/groups/{physicalHostId}',
  projectHostAssignments: '/usage/groups/{groupId}/hosts',
  orgHostAssignments: '/usage/organizations/{orgId}/hosts',
  hostServerType: '/usage/hosts/{hostId}',
  projectDefaultServerType: '/usage/groups/{groupId}/defaultServerType',
  orgDefaultServerType: '/usage/organizations/{orgId}/defaultServerType',
  team: '/orgs/{orgId}/teams/{teamId}',
  projectEvents: '/groups/{groupId}/events',
  projectEvent: '/groups/{groupId}/events/{eventId}',
  orgEvents: '/orgs/{orgId}/events',
  orgEvent: '/orgs/{orgId}/events/{eventId}',
  versionManifest: '/versionManifest',
  unauthVersionManifest: '/unauth/versionManifest',
  s3Configs: '/admin/backup/snapshot/s3Configs',
  s3Config: '/admin/backup/snapshot/s3Configs/{s3ConfigId}',
});

/** Name of one route. */
export type RouteName = keyof typeof ROUTES;
