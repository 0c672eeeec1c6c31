/**
 * Enumerations of the desired-state format, from the Ops Manager reference (shared/reference/ops-manager-api.md).
 * Extending one (a new eventTypeName Ops Manager supports) is a one-line change here: the JSON Schema, the editor
 * completion and the validation all follow.
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
 * Event types an alert configuration may watch: the reference's list plus a few more of the real product. Unknown
 * names are refused: a typo would create an alert that never fires.
 */
export const EVENT_TYPE_NAMES = [
  'HOST_DOWN',
  'HOST_RECOVERING',
  'HOST_RESTARTED',
  'HOST_ROLLBACK',
  'HOST_SSL_CERTIFICATE_STALE',
  'HOST_UPGRADED',
  'HOST_NOW_PRIMARY',
  'HOST_NOW_SECONDARY',
  'OUTSIDE_METRIC_THRESHOLD',
  'VERSION_BEHIND',
  'NO_PRIMARY',
  'PRIMARY_ELECTED',
  'TOO_MANY_ELECTIONS',
  'TOO_FEW_HEALTHY_MEMBERS',
  'TOO_MANY_UNHEALTHY_MEMBERS',
  'MEMBER_ADDED',
  'MEMBER_REMOVED',
  'AUTOMATION_AGENT_DOWN',
  'AUTOMATION_AGENT_UP',
  'MONITORING_AGENT_DOWN',
  'MONITORING_AGENT_UP',
  'BACKUP_AGENT_DOWN',
  'BACKUP_AGENT_UP',
  'OPLOG_BEHIND',
  'RESYNC_REQUIRED',
  'CLUSTER_MONGOS_IS_MISSING',
  'BI_CONNECTOR_DOWN',
  'AUTOMATION_CONFIG_PUBLISHED_AUDIT',
  'JOINED_GROUP',
  'REMOVED_FROM_GROUP',
  'USERS_WITHOUT_MULTI_FACTOR_AUTH',
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
  GROUP: { required: ['roles'], optional: ['emailEnabled', 'smsEnabled'] },
  HIPCHAT: { required: ['notificationToken', 'roomName'], optional: [] },
  MICROSOFT_TEAMS: { required: ['microsoftTeamsWebhookUrl'], optional: [] },
  OPS_GENIE: { required: ['opsGenieApiKey'], optional: ['opsGenieRegion'] },
  ORG: { required: ['roles'], optional: ['emailEnabled', 'smsEnabled'] },
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
