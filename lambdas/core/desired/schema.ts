/**
 * The JSON Schema (draft 2020-12) of desired-state documents: the single source of their structure. Ajv validates
 * with it, `opsman-gitops schema` prints it, and desired-state/schema/opsman-gitops.schema.json is this object written
 * out (a test keeps the two equal). Rules that span fields or documents live in the semantic checks, not here.
 */
import { WEEKDAYS } from '../zoned-time.ts';
import {
  API_VERSION,
  EVENT_TYPE_NAMES,
  GROUP_ROLES,
  IGNORABLE_FIELDS,
  KINDS,
  MATCHER_FIELDS,
  MATCHER_OPERATORS,
  MAX_NOTIFICATION_MINUTES,
  METRIC_MODES,
  MIN_INTERVAL_MIN,
  MODE_VALUES,
  NOTIFICATION_TYPES,
  OPS_GENIE_REGIONS,
  ORG_ROLES,
  SERVER_TYPES,
  THRESHOLD_OPERATORS,
  UNITS,
} from './enums.ts';
import { SECRET_REF_SCHEMA_PATTERN } from './secret-ref.ts';

/** "an alert key", "a project id": the article follows the noun's first letter. */
const withArticle = (what: string) => `${/^[aeiou]/.test(what) ? 'an' : 'a'} ${what}`;

const objectId = (what: string) => ({
  type: 'string',
  pattern: '^[0-9a-f]{24}$',
  description: `${withArticle(what)} (24 lowercase hexadecimal characters)`,
});

const name = (what: string) => ({
  type: 'string',
  pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$',
  description: `${withArticle(what)} (letters, digits, '.', '_' or '-', starting with a letter or digit, at most 63 characters)`,
});

/**
 * Free text: not empty, and not ending with a line break. That is what a block scalar leaves unseen (`value: |` keeps
 * its last newline): Ops Manager would get the text as it is, and a matcher value "rs0\n" never matches. Spaces at
 * an end are allowed: only quotes can write them, so they are there on purpose (and a live value may hold them).
 */
const text = (what: string) => ({
  type: 'string',
  minLength: 1,
  pattern: '^[\\s\\S]*(?<![\\r\\n])$',
  description: `${what}, not ending with a line break`,
});

const closed = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

const secretRef = { $ref: '#/$defs/SecretRef' };

const notification = closed(
  {
    typeName: { enum: [...NOTIFICATION_TYPES], description: 'notification target type' },
    delayMin: {
      type: 'integer',
      minimum: 0,
      maximum: MAX_NOTIFICATION_MINUTES,
      description: 'minutes to wait before the first notification',
    },
    intervalMin: {
      type: 'integer',
      minimum: MIN_INTERVAL_MIN,
      maximum: MAX_NOTIFICATION_MINUTES,
      description: `minutes between repeats, at least ${MIN_INTERVAL_MIN}`,
    },
    emailEnabled: { type: 'boolean' },
    smsEnabled: { type: 'boolean' },
    emailAddress: { type: 'string', pattern: '^[^@\\s]+@[^@\\s]+$', description: 'an email address' },
    mobileNumber: text('a mobile number'),
    username: text('an Ops Manager username'),
    role: { enum: [...GROUP_ROLES, ...ORG_ROLES], description: 'one role (normalised to roles)' },
    roles: {
      type: 'array',
      items: { enum: [...GROUP_ROLES, ...ORG_ROLES] },
      minItems: 1,
      uniqueItems: true,
      description: 'roles to notify (GROUP and ORG)',
    },
    teamId: objectId('team id'),
    channelName: text('a chat channel name'),
    roomName: text('a chat room name'),
    opsGenieRegion: { enum: [...OPS_GENIE_REGIONS] },
    apiToken: secretRef,
    serviceKey: secretRef,
    datadogApiKey: secretRef,
    opsGenieApiKey: secretRef,
    victorOpsApiKey: secretRef,
    victorOpsRoutingKey: secretRef,
    notificationToken: secretRef,
    webhookUrl: secretRef,
    webhookSecret: secretRef,
    microsoftTeamsWebhookUrl: secretRef,
  },
  ['typeName'],
);

const alertConfig = closed(
  {
    key: name('alert key'),
    eventTypeName: { enum: [...EVENT_TYPE_NAMES], description: 'event type that triggers the alert' },
    enabled: { type: 'boolean', description: 'defaults to true' },
    matchers: {
      type: 'array',
      items: closed(
        {
          fieldName: { enum: [...MATCHER_FIELDS] },
          operator: { enum: [...MATCHER_OPERATORS] },
          value: text('the value the operator tests'),
        },
        ['fieldName', 'operator', 'value'],
      ),
    },
    metricThreshold: closed(
      {
        metricName: {
          type: 'string',
          pattern: '^[A-Z][A-Z0-9_]*$',
          description: 'a metric name in upper case, e.g. CONNECTIONS',
        },
        mode: { enum: [...METRIC_MODES] },
        operator: { enum: [...THRESHOLD_OPERATORS] },
        threshold: { type: 'number' },
        units: { enum: [...UNITS] },
      },
      ['metricName', 'operator', 'threshold'],
    ),
    threshold: closed(
      {
        operator: { enum: [...THRESHOLD_OPERATORS] },
        threshold: { type: 'number' },
        units: { enum: [...UNITS] },
      },
      ['operator', 'threshold'],
    ),
    notifications: { type: 'array', items: { $ref: '#/$defs/Notification' }, minItems: 1 },
    ignoreFields: {
      type: 'array',
      items: { enum: [...IGNORABLE_FIELDS] },
      uniqueItems: true,
      description:
        'members set as desired on create, then left to Ops Manager: a live difference in them is never planned, written or reported as drift',
    },
    renamedFrom: {
      type: 'array',
      items: name('alert key'),
      minItems: 1,
      uniqueItems: true,
      description:
        'keys this config had before: the live config such a key (no longer declared) owns becomes this one, edits included, instead of a delete and a create',
    },
  },
  ['key', 'eventTypeName', 'notifications'],
);

const alertConfigs = { type: 'array', items: { $ref: '#/$defs/AlertConfig' } };
const mode = { enum: [...MODE_VALUES], description: 'observe, plan or apply' };

const clock = (what: string) => ({
  type: 'string',
  pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
  description: `${what}: a time HH:MM from 00:00 to 23:59, quoted ("09:00")`,
});

/** A change window of Settings (checked further in window-checks.ts: one shape or the other, instants, time zone). */
const changeWindow = closed(
  {
    name: name('window name'),
    kind: { enum: ['allow', 'deny'], description: 'allow or deny' },
    from: text('when an absolute window opens: RFC 3339 with Z or an offset'),
    until: text('when an absolute window closes: RFC 3339 with Z or an offset'),
    days: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { enum: [...WEEKDAYS], description: 'a day: Mon, Tue, Wed, Thu, Fri, Sat or Sun' },
    },
    start: clock('when a weekly window opens'),
    end: clock('when a weekly window closes (at or before start: the next day)'),
    timeZone: text('the IANA time zone of a weekly window (default Etc/UTC)'),
    projects: { type: 'array', minItems: 1, uniqueItems: true, items: objectId('project id') },
  },
  ['name', 'kind'],
);
const serverType = { enum: [...SERVER_TYPES] };

const project = {
  metadata: closed(
    { name: name('project name'), projectId: objectId('project id'), orgId: objectId('organization id') },
    ['name', 'projectId'],
  ),
  spec: closed({
    mode,
    defaultServerType: serverType,
    auditLogRotation: closed(
      {
        enforce: { type: 'boolean', description: 'write it when it differs (default false: report only)' },
        sizeThresholdMB: { type: 'number', exclusiveMinimum: 0 },
        timeThresholdHrs: { type: 'integer', minimum: 1 },
        // At least 1: the count includes the current file, which is never compressed; Ops Manager refuses 0.
        numUncompressed: { type: 'integer', minimum: 1 },
        // A fraction, though the spec's table says "percentage": Ops Manager's default is 0.02 (2%).
        percentOfDiskspace: {
          type: 'number',
          minimum: 0,
          maximum: 1,
          description: 'a fraction of the total disk space, 0 to 1: 0.4 is 40%',
        },
        numTotal: { type: 'integer', minimum: 0 },
      },
      ['sizeThresholdMB', 'timeThresholdHrs'],
    ),
    alertTemplates: { type: 'array', items: name('template name'), uniqueItems: true },
    alertConfigs,
    prune: { type: 'boolean', description: 'delete owned alert configs that left git (default false)' },
    protect: { type: 'array', items: name('alert key'), uniqueItems: true },
    release: {
      type: 'array',
      items: name('alert key'),
      uniqueItems: true,
      description:
        'alert keys to stop managing without deleting: an owned config of such a key is left in Ops Manager and forgotten (none may be declared)',
    },
  }),
};

const kindRule = (kind: string, metadata: unknown, spec: unknown, required: string[]) => ({
  if: { properties: { kind: { const: kind } }, required: ['kind'] },
  // biome-ignore lint/suspicious/noThenProperty: `then` is JSON Schema's keyword here, not a thenable.
  then: { properties: { metadata, spec }, required },
});

/** The JSON Schema of one desired-state document (draft 2020-12). */
export const DESIRED_STATE_SCHEMA: Record<string, unknown> = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'urn:opsman-gitops:desired-state:v1',
  title: 'opsman-gitops desired state document',
  description: 'One YAML document of an opsman-gitops desired state (Project, AlertTemplate, Organization, Settings).',
  type: 'object',
  properties: {
    apiVersion: { const: API_VERSION },
    kind: { enum: [...KINDS] },
    metadata: { type: 'object' },
    spec: { type: 'object' },
  },
  required: ['apiVersion', 'kind', 'spec'],
  additionalProperties: false,
  allOf: [
    kindRule('Project', { $ref: '#/$defs/ProjectMetadata' }, { $ref: '#/$defs/ProjectSpec' }, ['metadata']),
    kindRule(
      'AlertTemplate',
      closed({ name: name('template name') }, ['name']),
      closed({ alertConfigs: { ...alertConfigs, minItems: 1 } }, ['alertConfigs']),
      ['metadata'],
    ),
    kindRule(
      'Organization',
      closed({ name: name('organization name'), orgId: objectId('organization id') }, ['name', 'orgId']),
      closed({ mode, defaultServerType: serverType }),
      ['metadata'],
    ),
    kindRule(
      'Settings',
      closed({ name: name('settings name') }),
      closed({
        mode,
        prune: closed({
          maxDeletes: { type: 'integer', minimum: 0, description: 'most deletions one run may make' },
          allowEmpty: { type: 'boolean', description: 'allow pruning a project down to no owned alert configs' },
        }),
        archive: closed({ versionManifest: { type: 'boolean' }, usage: { type: 'boolean' } }),
        changeWindows: { type: 'array', items: changeWindow },
        versionManifest: closed({
          pin: {
            type: 'string',
            pattern: '^(?!/)(?!.*(^|/)\\.\\.(/|$)).+\\.json$',
            description: 'the path of a .json manifest under the desired-state root, without ".."',
          },
        }),
      }),
      [],
    ),
  ],
  $defs: {
    SecretRef: closed(
      {
        secretRef: {
          type: 'string',
          pattern: SECRET_REF_SCHEMA_PATTERN,
          description: 'a secret reference "<secret id>#<json key>"',
        },
      },
      ['secretRef'],
    ),
    Notification: notification,
    AlertConfig: alertConfig,
    ProjectMetadata: project.metadata,
    ProjectSpec: project.spec,
  },
};
