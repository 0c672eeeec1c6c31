/**
 * Enumerations of the desired-state format, from the Ops Manager reference (shared/reference/ops-manager-api.md).
 * Extending one (a new eventTypeName Ops Manager supports) is a one-line change here: the JSON Schema, the editor
 * completion and the validation all follow. The emulator keeps its own transcription (emulator/alerts/catalog.ts) on
 * purpose, so a slip in one shows as a disagreement in test/integration/emulator/desired-apply-agreement.property.test.ts.
 */

/** The document format version every file declares. */
export const API_VERSION = 'opsman-gitops/v1';

/** Kinds of document. */
export const KINDS = ['Project', 'AlertTemplate', 'Organization', 'Settings'] as const;

/** Run modes, least to most. */
export const MODE_VALUES = ['observe', 'plan', 'apply'] as const;

/** Server types of the usage endpoints. */
export const SERVER_TYPES = ['DEV_SERVER', 'TEST_SERVER', 'PRODUCTION_SERVER', 'RAM_POOL'] as const;

/**
 * Event types an alert configuration may watch: Ops Manager's alert conditions by the categories the spec names
 * (Agent, Automation Configuration, Backup, BI Connector, Cluster, Data Explorer Accessed, Host, Organization,
 * Project, Replica Set, Team, User; names as Ops Manager's own list spells them, CLUSTER_CHECKKPOINT included), plus
 * HOST_NOW_PRIMARY, HOST_NOW_SECONDARY and HOST_UPGRADED of the real product. Unknown names are refused: a typo would
 * create an alert that never fires.
 */
export const EVENT_TYPE_NAMES = [
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
] as const;

/** The event type that takes (and requires) `metricThreshold`. */
export const METRIC_EVENT_TYPE = 'OUTSIDE_METRIC_THRESHOLD';

/** Event types that take (and require) a non-metric `threshold`. */
export const THRESHOLD_EVENT_TYPES: readonly string[] = ['TOO_FEW_HEALTHY_MEMBERS', 'TOO_MANY_UNHEALTHY_MEMBERS'];

/** Notification target types. */
export const NOTIFICATION_TYPES = [
  'ADMIN',
  'DATADOG',
  'EMAIL',
  'GROUP',
  'HIPCHAT',
  'MICROSOFT_TEAMS',
  'OPS_GENIE',
  'ORG',
  'PAGER_DUTY',
  'SLACK',
  'SMS',
  'TEAM',
  'USER',
  'VICTOR_OPS',
  'WEBHOOK',
] as const;

/** Notification types that must not set intervalMin (Ops Manager refuses it). */
export const NO_INTERVAL_TYPES: readonly string[] = ['PAGER_DUTY', 'OPS_GENIE', 'VICTOR_OPS'];

/** Smallest intervalMin Ops Manager accepts. */
export const MIN_INTERVAL_MIN = 5;

/**
 * Largest delayMin and intervalMin Ops Manager accepts: it holds them in a Java int, and refuses a larger number with
 * 400 INVALID_JSON_ATTRIBUTE at apply time.
 */
export const MAX_NOTIFICATION_MINUTES = 2_147_483_647;

/** Project roles a GROUP notification may target. */
export const GROUP_ROLES = [
  'GROUP_OWNER',
  'GROUP_READ_ONLY',
  'GROUP_AUTOMATION_ADMIN',
  'GROUP_MONITORING_ADMIN',
  'GROUP_BACKUP_ADMIN',
  'GROUP_USER_ADMIN',
  'GROUP_DATA_ACCESS_ADMIN',
  'GROUP_DATA_ACCESS_READ_WRITE',
  'GROUP_DATA_ACCESS_READ_ONLY',
] as const;

/** Organization roles an ORG notification may target. */
export const ORG_ROLES = ['ORG_OWNER', 'ORG_MEMBER', 'ORG_GROUP_CREATOR', 'ORG_READ_ONLY'] as const;

/** Matcher field names. */
export const MATCHER_FIELDS = [
  'TYPE_NAME',
  'HOSTNAME',
  'PORT',
  'HOSTNAME_AND_PORT',
  'REPLICA_SET_NAME',
  'SHARD_NAME',
  'CLUSTER_NAME',
] as const;

/** Matcher operators. */
export const MATCHER_OPERATORS = [
  'EQUALS',
  'NOT_EQUALS',
  'CONTAINS',
  'NOT_CONTAINS',
  'STARTS_WITH',
  'ENDS_WITH',
  'REGEX',
] as const;

/** Values a TYPE_NAME matcher compares against with EQUALS / NOT_EQUALS. */
export const TYPE_NAME_VALUES: readonly string[] = ['PRIMARY', 'SECONDARY', 'STANDALONE', 'CONFIG', 'MONGOS'];

/**
 * The alert config members an entry's `ignoreFields` may name: after the create, a difference in them is left to
 * whoever changes them in Ops Manager (Terraform's ignore_changes). Not `notifications`: keeping the live ones would
 * mean sending them back with a full PUT, and Ops Manager returns their secrets redacted.
 */
export const IGNORABLE_FIELDS = ['enabled', 'threshold', 'metricThreshold', 'matchers'] as const;

/** One member `ignoreFields` may name. */
export type IgnorableField = (typeof IGNORABLE_FIELDS)[number];

/** Threshold comparison operators. */
export const THRESHOLD_OPERATORS = ['GREATER_THAN', 'LESS_THAN'] as const;

/** Aggregation modes of a metric threshold (TOTAL is refused by Ops Manager). */
export const METRIC_MODES = ['AVERAGE'] as const;

/** Units of thresholds (the spec's currentValue.units). */
export const UNITS = [
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
] as const;

/** OpsGenie API regions. */
export const OPS_GENIE_REGIONS = ['US', 'EU'] as const;

/**
 * Fields each notification type takes besides typeName, delayMin and intervalMin. Ops Manager does not echo fields
 * that do not belong to a type, so declaring one would show a difference forever: they are refused instead.
 */
export const NOTIFICATION_FIELDS: Readonly<Record<string, { required: string[]; optional: string[] }>> = {
  ADMIN: { required: [], optional: ['emailEnabled', 'smsEnabled'] },
  DATADOG: { required: ['datadogApiKey'], optional: [] },
  EMAIL: { required: ['emailAddress'], optional: [] },
  // roles are optional: the spec says "required" only of emailAddress (EMAIL) and mobileNumber (SMS) and gives `role`
  // "for role-based targets" without it; Ops Manager stores a GROUP/ORG notification without roles (the emulator's
  // seeded default NO_PRIMARY alert is one). Only an empty list is refused (MISSING_ROLES_FOR_GROUP_NOTIFICATION),
  // which the schema's `minItems: 1` keeps.
  GROUP: { required: [], optional: ['roles', 'emailEnabled', 'smsEnabled'] },
  HIPCHAT: { required: ['notificationToken', 'roomName'], optional: [] },
  MICROSOFT_TEAMS: { required: ['microsoftTeamsWebhookUrl'], optional: [] },
  OPS_GENIE: { required: ['opsGenieApiKey'], optional: ['opsGenieRegion'] },
  ORG: { required: [], optional: ['roles', 'emailEnabled', 'smsEnabled'] },
  PAGER_DUTY: { required: ['serviceKey'], optional: [] },
  SLACK: { required: ['apiToken', 'channelName'], optional: [] },
  SMS: { required: ['mobileNumber'], optional: [] },
  TEAM: { required: ['teamId'], optional: ['emailEnabled', 'smsEnabled'] },
  USER: { required: ['username'], optional: ['emailEnabled', 'smsEnabled'] },
  VICTOR_OPS: { required: ['victorOpsApiKey', 'victorOpsRoutingKey'], optional: [] },
  WEBHOOK: { required: ['webhookUrl'], optional: ['webhookSecret'] },
};

/** Fields every notification type takes. */
export const COMMON_NOTIFICATION_FIELDS: readonly string[] = ['typeName', 'delayMin', 'intervalMin'];
