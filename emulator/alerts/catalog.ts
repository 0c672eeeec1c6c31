/**
 * Enumerations of alert configurations and the field table of each notification type (reference, "Alert configurations").
 * Deliberately a second transcription, not an import of lambdas/core/desired/enums.ts: the emulator plays Ops Manager,
 * so sharing the product's lists would share any slip in them; the two copies are held equal by
 * test/integration/emulator/desired-apply-agreement.property.test.ts, which catches a slip in either.
 */

/**
 * Event types an alert configuration accepts: Ops Manager's alert conditions by the categories the spec names, plus
 * HOST_NOW_PRIMARY, HOST_NOW_SECONDARY and HOST_UPGRADED of the real product.
 */
export const EVENT_TYPE_NAMES: ReadonlySet<string> = new Set([
  // Agent
  'AUTOMATION_AGENT_DOWN',
  'AUTOMATION_AGENT_UP',
  'BACKUP_AGENT_CONF_CALL_FAILURE',
  'BACKUP_AGENT_DOWN',
  'BACKUP_AGENT_UP',
  'BACKUP_AGENT_VERSION_BEHIND',
  'BACKUP_AGENT_VERSION_CURRENT',
  'MONITORING_AGENT_DOWN',
  'MONITORING_AGENT_UP',
  'MONITORING_AGENT_VERSION_BEHIND',
  'MONITORING_AGENT_VERSION_CURRENT',
  'NEW_AGENT',
  // Automation Configuration
  'AUTOMATION_CONFIG_PUBLISHED_AUDIT',
  // Backup
  'BAD_CLUSTERSHOTS',
  'CLUSTER_BLACKLIST_UPDATED_AUDIT',
  'CLUSTER_CHECKKPOINT_UPDATED_AUDIT',
  'CLUSTER_CREDENTIAL_UPDATED_AUDIT',
  'CLUSTER_SNAPSHOT_SCHEDULE_UPDATED_AUDIT',
  'CLUSTER_STATE_CHANGED_AUDIT',
  'CLUSTER_STORAGE_ENGINE_UPDATED_AUDIT',
  'CLUSTERSHOT_DELETED_AUDIT',
  'CLUSTERSHOT_EXPIRY_UPDATED_AUDIT',
  'CONSISTENT_BACKUP_CONFIGURATION',
  'GOOD_CLUSTERSHOT',
  'INCONSISTENT_BACKUP_CONFIGURATION',
  'INITIAL_SYNC_FINISHED_AUDIT',
  'INITIAL_SYNC_STARTED_AUDIT',
  'OPLOG_BEHIND',
  'OPLOG_CURRENT',
  'RESTORE_REQUESTED_AUDIT',
  'RESYNC_PERFORMED',
  'RESYNC_REQUIRED',
  'RS_BLACKLIST_UPDATED_AUDIT',
  'RS_CREDENTIAL_UPDATED_AUDIT',
  'RS_ROTATE_MASTER_KEY_AUDIT',
  'RS_SNAPSHOT_SCHEDULE_UPDATED_AUDIT',
  'RS_STATE_CHANGED_AUDIT',
  'RS_STORAGE_ENGINE_UPDATED_AUDIT',
  'SNAPSHOT_DELETED_AUDIT',
  'SNAPSHOT_EXPIRY_UPDATED_AUDIT',
  'SYNC_PENDING_AUDIT',
  'SYNC_REQUIRED_AUDIT',
  // BI Connector
  'BI_CONNECTOR_DOWN',
  'BI_CONNECTOR_UP',
  // Cluster
  'CLUSTER_MONGOS_IS_MISSING',
  'CLUSTER_MONGOS_IS_PRESENT',
  'SHARD_ADDED',
  'SHARD_REMOVED',
  // Data Explorer Accessed
  'DATA_EXPLORER',
  'DATA_EXPLORER_CRUD',
  // Host
  'ADD_HOST_AUDIT',
  'ADD_HOST_TO_REPLICA_SET_AUDIT',
  'DELETE_HOST_AUDIT',
  'HOST_DOWN',
  'HOST_NOW_PRIMARY',
  'HOST_NOW_SECONDARY',
  'HOST_RECOVERING',
  'HOST_RESTARTED',
  'HOST_ROLLBACK',
  'HOST_SSL_CERTIFICATE_STALE',
  'HOST_UPGRADED',
  'OUTSIDE_METRIC_THRESHOLD',
  'REMOVE_HOST_FROM_REPLICA_SET_AUDIT',
  'UNDELETE_HOST_AUDIT',
  'VERSION_BEHIND',
  // Organization
  'ALL_ORG_USERS_HAVE_MFA',
  'ORG_API_KEY_ADDED',
  'ORG_API_KEY_DELETED',
  'ORG_EMPLOYEE_ACCESS_RESTRICTED',
  'ORG_EMPLOYEE_ACCESS_UNRESTRICTED',
  'ORG_PUBLIC_API_ACCESS_LIST_NOT_REQUIRED',
  'ORG_PUBLIC_API_ACCESS_LIST_REQUIRED',
  'ORG_RENAMED',
  'ORG_TWO_FACTOR_AUTH_OPTIONAL',
  'ORG_TWO_FACTOR_AUTH_REQUIRED',
  'ORG_USERS_WITHOUT_MFA',
  // Project
  'ALL_USERS_HAVE_MULTI_FACTOR_AUTH',
  'USERS_WITHOUT_MULTI_FACTOR_AUTH',
  // Replica Set
  'CONFIGURATION_CHANGED',
  'ENOUGH_HEALTHY_MEMBERS',
  'MEMBER_ADDED',
  'MEMBER_REMOVED',
  'MULTIPLE_PRIMARIES',
  'NO_PRIMARY',
  'ONE_PRIMARY',
  'PRIMARY_ELECTED',
  'TOO_FEW_HEALTHY_MEMBERS',
  'TOO_MANY_ELECTIONS',
  'TOO_MANY_UNHEALTHY_MEMBERS',
  // Team
  'TEAM_ADDED_TO_GROUP',
  'TEAM_CREATED',
  'TEAM_DELETED',
  'TEAM_NAME_CHANGED',
  'TEAM_REMOVED_FROM_GROUP',
  'TEAM_ROLES_MODIFIED',
  'TEAM_UPDATED',
  'USER_ADDED_TO_TEAM',
  // User
  'INVITED_TO_GROUP',
  'INVITED_TO_ORG',
  'JOIN_GROUP_REQUEST_APPROVED_AUDIT',
  'JOIN_GROUP_REQUEST_DENIED_AUDIT',
  'JOINED_GROUP',
  'JOINED_ORG',
  'JOINED_TEAM',
  'REMOVED_FROM_GROUP',
  'REMOVED_FROM_ORG',
  'REMOVED_FROM_TEAM',
  'REQUESTED_TO_JOIN_GROUP',
  'USER_ROLES_CHANGED_AUDIT',
]);

/** Event types whose alerts need a `threshold` (and the only ones that may carry one). */
export const THRESHOLD_EVENT_TYPES: ReadonlySet<string> = new Set([
  'TOO_FEW_HEALTHY_MEMBERS',
  'TOO_MANY_UNHEALTHY_MEMBERS',
]);

/** The event type whose alerts need a `metricThreshold` (and the only one that may carry one). */
export const METRIC_EVENT_TYPE = 'OUTSIDE_METRIC_THRESHOLD';

/** Units of thresholds and metric thresholds. */
export const UNITS: ReadonlySet<string> = new Set([
  'RAW',
  'BITS',
  'BYTES',
  'KILOBITS',
  'KILOBYTES',
  'MEGABITS',
  'MEGABYTES',
  'GIGABITS',
  'GIGABYTES',
  'TERABYTES',
  'PETABYTES',
  'MILLISECONDS',
  'SECONDS',
  'MINUTES',
  'HOURS',
  'DAYS',
]);

/** Comparison operators of thresholds. */
export const THRESHOLD_OPERATORS: ReadonlySet<string> = new Set(['GREATER_THAN', 'LESS_THAN']);

/** Matcher field names. */
export const MATCHER_FIELDS: ReadonlySet<string> = new Set([
  'TYPE_NAME',
  'HOSTNAME',
  'PORT',
  'HOSTNAME_AND_PORT',
  'REPLICA_SET_NAME',
  'SHARD_NAME',
  'CLUSTER_NAME',
]);

/** Matcher operators. */
export const MATCHER_OPERATORS: ReadonlySet<string> = new Set([
  'EQUALS',
  'NOT_EQUALS',
  'CONTAINS',
  'NOT_CONTAINS',
  'STARTS_WITH',
  'ENDS_WITH',
  'REGEX',
]);

/**
 * Roles an ORG notification may target: Ops Manager's organization roles. ORG_BILLING_ADMIN is an Atlas and Cloud
 * Manager role that self-hosted Ops Manager does not have; it was accepted here while the desired-state loader refused
 * it, so the two now agree (see test/integration/emulator/desired-apply-agreement.property.test.ts).
 */
export const ORG_NOTIFICATION_ROLES: ReadonlySet<string> = new Set([
  'ORG_OWNER',
  'ORG_MEMBER',
  'ORG_GROUP_CREATOR',
  'ORG_READ_ONLY',
]);

/** Roles a GROUP notification may target. */
export const GROUP_NOTIFICATION_ROLES: ReadonlySet<string> = new Set([
  'GROUP_OWNER',
  'GROUP_READ_ONLY',
  'GROUP_AUTOMATION_ADMIN',
  'GROUP_MONITORING_ADMIN',
  'GROUP_BACKUP_ADMIN',
  'GROUP_DATA_ACCESS_ADMIN',
  'GROUP_DATA_ACCESS_READ_ONLY',
  'GROUP_DATA_ACCESS_READ_WRITE',
  'GROUP_USER_ADMIN',
]);

/** What one notification type stores and echoes besides typeName/delayMin/intervalMin. */
export interface NotificationTypeSpec {
  /** The type's own fields (echoed when set). */
  own: readonly string[];
  /** Own fields that must be present and non-empty. */
  required: readonly string[];
  /** Whether intervalMin applies (false: it must not be sent). */
  interval: boolean;
}

/** The field table of every notification type. */
export const NOTIFICATION_TYPES: Readonly<Record<string, NotificationTypeSpec>> = {
  ADMIN: { own: ['emailEnabled', 'smsEnabled'], required: [], interval: true },
  GROUP: { own: ['emailEnabled', 'smsEnabled', 'roles'], required: [], interval: true },
  ORG: { own: ['emailEnabled', 'smsEnabled', 'roles'], required: [], interval: true },
  TEAM: { own: ['emailEnabled', 'smsEnabled', 'teamId'], required: ['teamId'], interval: true },
  USER: { own: ['emailEnabled', 'smsEnabled', 'username'], required: ['username'], interval: true },
  EMAIL: { own: ['emailAddress'], required: ['emailAddress'], interval: true },
  SMS: { own: ['mobileNumber'], required: ['mobileNumber'], interval: true },
  SLACK: { own: ['apiToken', 'channelName'], required: ['apiToken', 'channelName'], interval: true },
  HIPCHAT: { own: ['notificationToken', 'roomName'], required: ['notificationToken', 'roomName'], interval: true },
  DATADOG: { own: ['datadogApiKey'], required: ['datadogApiKey'], interval: true },
  PAGER_DUTY: { own: ['serviceKey'], required: ['serviceKey'], interval: false },
  OPS_GENIE: { own: ['opsGenieApiKey', 'opsGenieRegion'], required: ['opsGenieApiKey'], interval: false },
  VICTOR_OPS: {
    own: ['victorOpsApiKey', 'victorOpsRoutingKey'],
    required: ['victorOpsApiKey', 'victorOpsRoutingKey'],
    interval: false,
  },
  WEBHOOK: { own: ['webhookUrl', 'webhookSecret'], required: ['webhookUrl'], interval: true },
  MICROSOFT_TEAMS: { own: ['microsoftTeamsWebhookUrl'], required: ['microsoftTeamsWebhookUrl'], interval: true },
};

/**
 * The spec of a notification type, or undefined. An own-property lookup: a client's `constructor` or `__proto__` must
 * not find what every JavaScript object inherits.
 */
export function notificationTypeSpec(typeName: string): NotificationTypeSpec | undefined {
  return Object.hasOwn(NOTIFICATION_TYPES, typeName) ? NOTIFICATION_TYPES[typeName] : undefined;
}

/** Secret fields redacted on read: keep the last 4 characters. */
export const KEY_LIKE_FIELDS: ReadonlySet<string> = new Set([
  'apiToken',
  'serviceKey',
  'datadogApiKey',
  'opsGenieApiKey',
  'victorOpsApiKey',
  'victorOpsRoutingKey',
  'notificationToken',
  'microsoftTeamsWebhookUrl',
]);

/** Every secret field of a notification (key-like, plus webhookUrl and webhookSecret). */
export const SECRET_FIELDS: ReadonlySet<string> = new Set([...KEY_LIKE_FIELDS, 'webhookUrl', 'webhookSecret']);

/** Boolean notification fields; everything else is a string except delayMin/intervalMin (integers) and roles. */
export const BOOLEAN_NOTIFICATION_FIELDS: ReadonlySet<string> = new Set(['emailEnabled', 'smsEnabled']);

/**
 * Fields the spec says a response notification returns "when they were set" (besides typeName, delayMin and
 * intervalMin, which every type handles itself): one sent on a type that does not own it is kept and echoed as sent.
 */
export const ECHOED_WHEN_SET: readonly string[] = [
  'apiToken',
  'channelName',
  'datadogApiKey',
  'emailAddress',
  'emailEnabled',
  'microsoftTeamsWebhookUrl',
  'mobileNumber',
  'notificationToken',
  'roomName',
  'serviceKey',
  'smsEnabled',
  'teamId',
  'username',
  'webhookSecret',
  'webhookUrl',
];

/** Every field a notification of any type may carry in a request. */
export const KNOWN_NOTIFICATION_FIELDS: ReadonlySet<string> = new Set([
  'typeName',
  'delayMin',
  'intervalMin',
  'role',
  'notifierId',
  'teamName',
  ...Object.values(NOTIFICATION_TYPES).flatMap((t) => t.own),
]);
