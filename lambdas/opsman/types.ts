/**
 * Wire types of the Ops Manager Public API (spec: shared/seed, plus the reference's real-product behaviour).
 * Type-only: the core imports these with `import type`, so nothing here may have a runtime value.
 */

/** A link of a list envelope or an entity: `rel` is self, next, previous, or a resource name. */
export interface Link {
  rel: string;
  href: string;
}

/** Every list response: one page of results, its links, and the count of the whole result set. */
export interface ListEnvelope<T> {
  results: T[];
  links: Link[];
  /** Absent when the caller sent includeCount=false. */
  totalCount?: number;
}

/** One matcher rule of an alert configuration. */
export interface Matcher {
  fieldName: string;
  operator: string;
  value: string;
}

/** Threshold of a metric-based (OUTSIDE_METRIC_THRESHOLD) alert. */
export interface MetricThreshold {
  metricName: string;
  mode?: string;
  operator: string;
  threshold: number;
  units?: string;
}

/** Threshold of a non-metric alert (TOO_FEW_HEALTHY_MEMBERS, TOO_MANY_UNHEALTHY_MEMBERS). */
export interface Threshold {
  operator: string;
  threshold: number;
  units?: string;
}

/** The secret-bearing notification fields: redacted on read, never written to logs, plans or state. */
export const SECRET_NOTIFICATION_FIELDS = [
  'apiToken',
  'serviceKey',
  'datadogApiKey',
  'opsGenieApiKey',
  'victorOpsApiKey',
  'victorOpsRoutingKey',
  'notificationToken',
  'webhookUrl',
  'webhookSecret',
  'microsoftTeamsWebhookUrl',
] as const;

/** Name of one secret-bearing notification field. */
export type SecretNotificationField = (typeof SECRET_NOTIFICATION_FIELDS)[number];

/**
 * A notification target as sent in a request. The core always fills `roles`; the client sends a one-role list in the
 * spec's `role` form until a server refuses it (role-wire.ts).
 */
export interface NotificationRequest {
  typeName: string;
  delayMin?: number;
  intervalMin?: number;
  emailEnabled?: boolean;
  smsEnabled?: boolean;
  emailAddress?: string;
  mobileNumber?: string;
  username?: string;
  role?: string;
  roles?: string[];
  teamId?: string;
  channelName?: string;
  roomName?: string;
  opsGenieRegion?: string;
  apiToken?: string;
  serviceKey?: string;
  datadogApiKey?: string;
  opsGenieApiKey?: string;
  victorOpsApiKey?: string;
  victorOpsRoutingKey?: string;
  notificationToken?: string;
  webhookUrl?: string;
  webhookSecret?: string;
  microsoftTeamsWebhookUrl?: string;
}

/** A notification as read back: secrets redacted, only the fields of its type, and server-generated extras. */
export interface NotificationResponse extends Omit<NotificationRequest, 'role'> {
  teamName?: string;
  notifierId?: string;
}

/** Body of POST and PUT of an alert configuration. PUT is a full replacement: send everything, `enabled` included. */
export interface AlertConfigRequest {
  enabled?: boolean;
  eventTypeName: string;
  matchers?: Matcher[];
  metricThreshold?: MetricThreshold;
  threshold?: Threshold;
  notifications: NotificationRequest[];
}

/** An alert configuration as read back from Ops Manager. */
export interface AlertConfig {
  id: string;
  groupId: string;
  created: string;
  updated: string;
  enabled: boolean;
  eventTypeName: string;
  /** Legacy, ignored on input. */
  typeName?: string;
  links: Link[];
  matchers: Matcher[];
  metricThreshold?: MetricThreshold;
  threshold?: Threshold;
  notifications: NotificationResponse[];
}

/** The four server types of the usage endpoints. */
export type ServerTypeName = 'DEV_SERVER' | 'TEST_SERVER' | 'PRODUCTION_SERVER' | 'RAM_POOL';

/** A server type as an object (assignments, default server type). */
export interface ServerType {
  name: ServerTypeName;
  label?: string;
}

/** A virtual host bound to a physical host. */
export interface VirtualHost {
  groupId?: string;
  hostname?: string;
}

/** A physical host as listed: `serverType` is a bare string on the real product, an object in some examples. */
export interface PhysicalHost {
  id: string;
  name: string;
  serverType: ServerTypeName | ServerType;
  hosts: VirtualHost[];
}

/** Body of POST /usage/groups and PUT /usage/groups/{id}. */
export interface PhysicalHostRequest {
  name: string;
  serverType: ServerType;
  virtualHosts: VirtualHost[];
}

/** One process on a virtual host of a host assignment. */
export interface HostAssignmentProcess {
  cluster?: string;
  groupName?: string;
  orgName?: string;
  groupId?: string;
  hasConflictingServerType?: boolean;
  name?: string;
  processType?: number;
}

/** One element of a host-assignment listing. */
export interface HostAssignment {
  hostname: string;
  processes: HostAssignmentProcess[];
  serverType: ServerType;
  isChargeable?: boolean;
  memSizeMB?: number;
}

/** A team of an organization. */
export interface Team {
  id: string;
  name: string;
  links: Link[];
}

/** Audit-log rotation of a project: only configured fields are present. */
export interface AuditLogRotateConfig {
  sizeThresholdMB?: number;
  timeThresholdHrs?: number;
  numUncompressed?: number;
  percentOfDiskspace?: number;
  numTotal?: number;
}

/** A JSON document kept byte-exact: the text as received and its parsed value. */
export interface RawJsonDocument {
  text: string;
  value: unknown;
}

/** One element of an event's `diffs`. */
export interface EventDiff {
  id?: string;
  name?: string | null;
  params?: { display?: string; new?: string; old?: string | null; param?: string }[];
  privileges?: unknown[] | null;
  roles?: { db?: string; role?: string }[];
  status?: string;
  type?: string;
}

/** An event of a project or an organization. */
export interface OpsManagerEvent {
  id: string;
  created: string;
  eventTypeName: string;
  groupId?: string;
  orgId?: string;
  alertId?: string;
  alertConfigId?: string;
  maintenanceWindowId?: string;
  apiKeyId?: string;
  publicKey?: string;
  userId?: string;
  username?: string;
  targetUsername?: string;
  targetPublicKey?: string;
  accessListEntry?: string;
  remoteAddress?: string;
  isGlobalAdmin?: boolean;
  teamId?: string;
  clusterId?: string;
  clusterName?: string;
  hostId?: string;
  hostname?: string;
  port?: number;
  replicaSetName?: string;
  shardName?: string;
  metricName?: string;
  currentValue?: { number: number; units: string };
  database?: string;
  collection?: string;
  opType?: string;
  raw?: Record<string, unknown>;
  diffs?: EventDiff[];
  links?: Link[];
}

/** Filters of the event listings. */
export interface EventQuery {
  eventType?: string[];
  minDate?: string;
  maxDate?: string;
  includeRaw?: boolean;
}

/**
 * A cap on a list read: at most `maxItems` items, newest first as served; pages past it are never requested. The
 * caller learns that the list may go on from getting exactly `maxItems` items.
 */
export interface ListLimit {
  maxItems: number;
}

/** An S3-compatible blockstore configuration (admin API). The id is a name chosen by the client. */
export interface S3BlockstoreConfig {
  id: string;
  assignmentEnabled?: boolean;
  awsAccessKey?: string;
  awsSecretKey?: string;
  encryptedCredentials?: boolean;
  labels?: string[];
  loadFactor?: number;
  s3BucketEndpoint?: string;
  s3BucketName?: string;
  uri?: string;
  ssl?: boolean;
  writeConcern?: string;
  acceptedTos?: boolean;
  s3AuthMethod?: 'KEYS' | 'IAM_ROLE';
  pathStyleAccessEnabled?: boolean;
  sseEnabled?: boolean;
  links?: Link[];
}

/** The error body every non-2xx response carries. */
export interface ApiErrorBody {
  detail: string;
  error: number;
  errorCode: string;
  parameters: unknown[];
  reason: string;
}
