/**
 * The emulator's in-memory state: what the real product keeps in its application database. Maps keep insertion
 * order, so lists come back in creation order. `seed.ts` builds it and `snapshot.ts` turns it back into a seed.
 */

/** The four server types and their labels. */
export const SERVER_TYPES = {
  DEV_SERVER: 'Dev Server',
  TEST_SERVER: 'Test Server',
  PRODUCTION_SERVER: 'Production Server',
  RAM_POOL: 'RAM Pool',
} as const;

/** Name of a server type. */
export type ServerTypeName = keyof typeof SERVER_TYPES;

/**
 * True when `name` is one of the server type names. An own-property test: `constructor` or `toString` (inherited by
 * every object) is not a server type.
 */
export function isServerTypeName(name: string): name is ServerTypeName {
  return Object.hasOwn(SERVER_TYPES, name);
}

/** Every role name an API key can hold. */
export const ROLE_NAMES = [
  'GLOBAL_OWNER',
  'GLOBAL_READ_ONLY',
  'GLOBAL_AUTOMATION_ADMIN',
  'GLOBAL_MONITORING_ADMIN',
  'ORG_OWNER',
  'ORG_MEMBER',
  'ORG_READ_ONLY',
  'GROUP_OWNER',
  'GROUP_AUTOMATION_ADMIN',
  'GROUP_MONITORING_ADMIN',
  'GROUP_READ_ONLY',
] as const;

/** One role name. */
export type RoleName = (typeof ROLE_NAMES)[number];

/** An organization. */
export interface Org {
  id: string;
  name: string;
}

/** A project (group), always inside an organization. */
export interface Group {
  id: string;
  name: string;
  orgId: string;
}

/** A team of an organization. */
export interface TeamRec {
  id: string;
  name: string;
  orgId: string;
}

/** One role of an API key: global roles carry no scope, ORG_* an orgId, GROUP_* a groupId. */
export interface RoleAssignment {
  roleName: RoleName;
  orgId?: string;
  groupId?: string;
}

/** A programmatic API key: Digest user name `publicKey`, password `privateKey`. */
export interface ApiKeyRec {
  id: string;
  publicKey: string;
  privateKey: string;
  desc?: string;
  roles: RoleAssignment[];
}

/** A stored notification: only its type's own fields, secrets in clear, plus the server's notifierId. */
export interface StoredNotification {
  typeName: string;
  notifierId: string;
  [field: string]: unknown;
}

/** A stored alert configuration (secrets in clear; redaction happens on read). */
export interface StoredAlertConfig {
  id: string;
  groupId: string;
  created: string;
  updated: string;
  enabled: boolean;
  eventTypeName: string;
  /** Deprecated and ignored (the spec), kept only to be echoed as sent. */
  typeName?: string;
  matchers: { fieldName: string; operator: string; value: string }[];
  metricThreshold?: Record<string, unknown>;
  threshold?: Record<string, unknown>;
  notifications: StoredNotification[];
}

/** A physical host of the usage reports; `serverType` is a bare name as the real list answers it. */
export interface PhysicalHostRec {
  id: string;
  name: string;
  serverType: ServerTypeName;
  hosts: { groupId?: string; hostname?: string }[];
}

/** One process of a host assignment (project and organization names are filled in on read). */
export interface ProcessRec {
  cluster?: string;
  name?: string;
  processType?: number;
  hasConflictingServerType?: boolean;
}

/** A host assignment: a virtual host of a project over an optional date interval (inclusive, YYYY-MM-DD). */
export interface HostAssignmentRec {
  groupId: string;
  hostId?: string;
  hostname: string;
  serverType: ServerTypeName;
  processes: ProcessRec[];
  isChargeable?: boolean;
  memSizeMB?: number;
  from?: string;
  to?: string;
}

/** Audit-log rotation: only the configured fields. */
export interface AuditLogRotateRec {
  sizeThresholdMB?: number;
  timeThresholdHrs?: number;
  numUncompressed?: number;
  percentOfDiskspace?: number;
  numTotal?: number;
}

/** An S3 blockstore configuration; `id` is the name the client chose. Secrets in clear. */
export interface S3ConfigRec {
  id: string;
  [field: string]: unknown;
}

/** An event (project, organization, or global when it has neither groupId nor orgId). */
export interface EventRec {
  id: string;
  created: string;
  eventTypeName: string;
  groupId?: string;
  orgId?: string;
  [field: string]: unknown;
}

/** The value of the `X-Vendor-Service-Version` header. */
export interface ServiceVersion {
  gitHash: string;
  versionString: string;
}

/** The whole state. */
export interface State {
  serviceVersion: ServiceVersion;
  orgs: Map<string, Org>;
  groups: Map<string, Group>;
  teams: Map<string, TeamRec>;
  /** By public key. */
  apiKeys: Map<string, ApiKeyRec>;
  /** By groupId, then alert config id. */
  alertConfigs: Map<string, Map<string, StoredAlertConfig>>;
  physicalHosts: Map<string, PhysicalHostRec>;
  hostAssignments: HostAssignmentRec[];
  groupServerTypes: Map<string, ServerTypeName>;
  orgServerTypes: Map<string, ServerTypeName>;
  auditLogRotate: Map<string, AuditLogRotateRec>;
  /** The manifest text exactly as uploaded; null when none. */
  versionManifest: string | null;
  s3Configs: Map<string, S3ConfigRec>;
  /** Oldest first (listings reverse it). */
  events: EventRec[];
}

/** The default service version header value. */
export const DEFAULT_SERVICE_VERSION: ServiceVersion = {
  gitHash: 'f7bdac406b7beceb1415fd32c81fc64501b6e031',
  versionString: '7.0.12.500.20260901T1200Z',
};

/** The alert configurations of one group (created on first use). */
export function groupAlerts(state: State, groupId: string): Map<string, StoredAlertConfig> {
  let map = state.alertConfigs.get(groupId);
  if (!map) {
    map = new Map();
    state.alertConfigs.set(groupId, map);
  }
  return map;
}
