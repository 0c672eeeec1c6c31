/** Enumerations of alert configurations and the field table of each notification type (reference, "Alert configurations"). */

/** Event types an alert configuration accepts (the reference's list plus a few more of the real product). */
export const EVENT_TYPE_NAMES: ReadonlySet<string> = new Set([
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

/** Roles an ORG notification may target (Atlas/Ops Manager organization roles). */
export const ORG_NOTIFICATION_ROLES: ReadonlySet<string> = new Set([
  'ORG_OWNER',
  'ORG_MEMBER',
  'ORG_GROUP_CREATOR',
  'ORG_BILLING_ADMIN',
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
