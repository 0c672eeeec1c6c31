/**
 * The alert configs of the benchmark world: a catalogue of realistic kinds (matchers, metric and plain thresholds,
 * GROUP/EMAIL/SLACK/PAGER_DUTY/WEBHOOK/TEAM/SMS/DATADOG notifications, secretRefs), cycled and varied so that every
 * alert of a project differs from every other in a non-secret field (adoption can never be ambiguous).
 */
import type { AlertConfigRequest } from '../lambdas/opsman/types.ts';
import { derivedToken } from './random.ts';

/** A notification as written in desired state: secret fields are `{secretRef}`. */
export type SpecNotification = Record<string, unknown>;

/** The body of one alert config as desired state writes it (secret fields as `{secretRef}`). */
export interface SpecBody {
  eventTypeName: string;
  enabled: boolean;
  matchers?: { fieldName: string; operator: string; value: string }[];
  metricThreshold?: { metricName: string; mode: string; operator: string; threshold: number; units: string };
  threshold?: { operator: string; threshold: number; units?: string };
  notifications: SpecNotification[];
}

/** A secret value the generated secrets file must hold. */
export interface SpecSecret {
  secretId: string;
  jsonKey: string;
  value: string;
}

/** One desired alert config of a project. */
export interface AlertSpec {
  key: string;
  /** True when it comes from the shared AlertTemplate `baseline`. */
  template: boolean;
  body: SpecBody;
  secrets: SpecSecret[];
}

/** An unmanaged alert present in every project of the seed (never in desired state). */
export interface DefaultAlertSpec {
  body: AlertConfigRequest;
}

/** Alerts a fresh Ops Manager project comes with; their event types never appear in the desired state. */
export const DEFAULT_ALERTS: readonly DefaultAlertSpec[] = [
  {
    body: {
      eventTypeName: 'HOST_SSL_CERTIFICATE_STALE',
      enabled: true,
      notifications: [
        {
          typeName: 'GROUP',
          delayMin: 0,
          intervalMin: 1440,
          emailEnabled: true,
          smsEnabled: false,
          roles: ['GROUP_OWNER'],
        },
      ],
    },
  },
  {
    body: {
      eventTypeName: 'USERS_WITHOUT_MULTI_FACTOR_AUTH',
      enabled: true,
      notifications: [
        {
          typeName: 'GROUP',
          delayMin: 0,
          intervalMin: 1440,
          emailEnabled: true,
          smsEnabled: false,
          roles: ['GROUP_OWNER'],
        },
      ],
    },
  },
  {
    body: {
      eventTypeName: 'JOINED_GROUP',
      enabled: false,
      notifications: [{ typeName: 'EMAIL', delayMin: 0, intervalMin: 60, emailAddress: 'admin@bench.example' }],
    },
  },
];

const ref = (secretRef: string) => ({ secretRef });
const METRICS = ['CONNECTIONS', 'ASSERT_REGULAR', 'OPCOUNTER_CMD', 'DISK_PARTITION_SPACE_USED_DATA'] as const;
const MEMBER_TYPES = ['PRIMARY', 'SECONDARY', 'STANDALONE', 'MONGOS', 'CONFIG'] as const;

/** Context of one project's alerts. */
interface KindContext {
  project: string;
  /** Cycle number: how many times the catalogue has wrapped; varies a field so bodies stay distinct. */
  c: number;
  teamId: string;
  secretId: string;
}

/** One kind of the catalogue: its key slug, body builder and the secret json keys it references. */
interface Kind {
  slug: string;
  secretKeys: string[];
  build(ctx: KindContext): SpecBody;
}

const KINDS: readonly Kind[] = [
  {
    slug: 'host-down',
    secretKeys: [],
    build: ({ c }) => ({
      eventTypeName: 'HOST_DOWN',
      enabled: true,
      matchers: [
        { fieldName: 'TYPE_NAME', operator: 'EQUALS', value: MEMBER_TYPES[c % MEMBER_TYPES.length] as string },
      ],
      notifications: [
        {
          typeName: 'GROUP',
          delayMin: c,
          intervalMin: 5,
          emailEnabled: true,
          smsEnabled: false,
          roles: ['GROUP_OWNER'],
        },
      ],
    }),
  },
  {
    slug: 'metric',
    secretKeys: [],
    build: ({ c, project }) => ({
      eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
      enabled: true,
      metricThreshold: {
        metricName: METRICS[c % METRICS.length] as string,
        mode: 'AVERAGE',
        operator: 'GREATER_THAN',
        threshold: 80 + c,
        units: 'RAW',
      },
      notifications: [
        { typeName: 'EMAIL', delayMin: 0, intervalMin: 60, emailAddress: `dba+${project}@bench.example` },
      ],
    }),
  },
  {
    slug: 'no-primary-slack',
    secretKeys: ['slack-token'],
    build: ({ c, project, secretId }) => ({
      eventTypeName: 'NO_PRIMARY',
      enabled: true,
      notifications: [
        {
          typeName: 'SLACK',
          delayMin: c,
          intervalMin: 15,
          channelName: `#alerts-${project}`,
          apiToken: ref(`${secretId}#slack-token`),
        },
      ],
    }),
  },
  {
    slug: 'few-healthy-pd',
    secretKeys: ['pagerduty-key'],
    build: ({ c, secretId }) => ({
      eventTypeName: 'TOO_FEW_HEALTHY_MEMBERS',
      enabled: true,
      // No units: Ops Manager fills RAW, which the diff must treat as the default.
      threshold: { operator: 'LESS_THAN', threshold: 2 + c },
      notifications: [{ typeName: 'PAGER_DUTY', delayMin: 0, serviceKey: ref(`${secretId}#pagerduty-key`) }],
    }),
  },
  {
    slug: 'oplog-webhook',
    secretKeys: ['webhook-url', 'webhook-secret'],
    build: ({ c, secretId }) => ({
      eventTypeName: 'OPLOG_BEHIND',
      enabled: true,
      notifications: [
        {
          typeName: 'WEBHOOK',
          delayMin: c,
          intervalMin: 30,
          webhookUrl: ref(`${secretId}#webhook-url`),
          webhookSecret: ref(`${secretId}#webhook-secret`),
        },
      ],
    }),
  },
  {
    slug: 'agent-team',
    secretKeys: [],
    build: ({ c, teamId }) => ({
      eventTypeName: 'AUTOMATION_AGENT_DOWN',
      enabled: true,
      notifications: [
        { typeName: 'TEAM', delayMin: c, intervalMin: 60, emailEnabled: true, smsEnabled: false, teamId },
      ],
    }),
  },
  {
    slug: 'backup-sms',
    secretKeys: [],
    build: ({ c }) => ({
      eventTypeName: 'BACKUP_AGENT_DOWN',
      enabled: c % 2 === 0,
      notifications: [{ typeName: 'SMS', delayMin: c, intervalMin: 120, mobileNumber: '+15550100200' }],
    }),
  },
  {
    slug: 'unhealthy-datadog',
    secretKeys: ['datadog-key'],
    build: ({ c, secretId }) => ({
      eventTypeName: 'TOO_MANY_UNHEALTHY_MEMBERS',
      enabled: true,
      threshold: { operator: 'GREATER_THAN', threshold: 1 + c, units: 'RAW' },
      notifications: [
        {
          typeName: 'GROUP',
          delayMin: 0,
          intervalMin: 10,
          emailEnabled: true,
          smsEnabled: false,
          roles: ['GROUP_OWNER', 'GROUP_MONITORING_ADMIN'],
        },
        { typeName: 'DATADOG', delayMin: 0, intervalMin: 10, datadogApiKey: ref(`${secretId}#datadog-key`) },
      ],
    }),
  },
];

/** Alerts of the shared AlertTemplate `baseline` (same body in every project; secrets under `bench/shared`). */
const TEMPLATE: readonly { key: string; body: SpecBody; secretKeys: string[] }[] = [
  {
    key: 'baseline-primary-elected',
    secretKeys: [],
    body: {
      eventTypeName: 'PRIMARY_ELECTED',
      enabled: true,
      notifications: [
        {
          typeName: 'GROUP',
          delayMin: 0,
          intervalMin: 60,
          emailEnabled: true,
          smsEnabled: false,
          roles: ['GROUP_OWNER'],
        },
      ],
    },
  },
  {
    key: 'baseline-no-primary-pd',
    secretKeys: ['pagerduty-key'],
    body: {
      eventTypeName: 'NO_PRIMARY',
      enabled: true,
      notifications: [{ typeName: 'PAGER_DUTY', delayMin: 5, serviceKey: ref('bench/shared#pagerduty-key') }],
    },
  },
  {
    key: 'baseline-disk-full',
    secretKeys: [],
    body: {
      eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
      enabled: true,
      metricThreshold: {
        metricName: 'DISK_PARTITION_SPACE_USED_DATA',
        mode: 'AVERAGE',
        operator: 'GREATER_THAN',
        threshold: 95,
        units: 'RAW',
      },
      notifications: [
        {
          typeName: 'GROUP',
          delayMin: 0,
          intervalMin: 30,
          emailEnabled: true,
          smsEnabled: false,
          roles: ['GROUP_OWNER'],
        },
      ],
    },
  },
];

/** How many of a project's `count` alerts come from the template: min(3, floor(count / 2)). */
export function templateAlertCount(count: number): number {
  return Math.min(TEMPLATE.length, Math.floor(count / 2));
}

/** The secret values for one secret id and its json keys (stable: derived from the id). */
function secretsOf(secretId: string, keys: string[]): SpecSecret[] {
  return keys.map((jsonKey) => ({
    secretId,
    jsonKey,
    value:
      jsonKey === 'webhook-url'
        ? `https://hooks.bench.example/${derivedToken(`${secretId}/${jsonKey}`, 24)}`
        : `${jsonKey.slice(0, 2)}-${derivedToken(`${secretId}/${jsonKey}`, 32)}`,
  }));
}

/** The `count` desired alert configs of one project, template ones first. */
export function alertSpecsFor(input: {
  projectIndex: number;
  projectName: string;
  count: number;
  teamId: string;
}): AlertSpec[] {
  const fromTemplate = templateAlertCount(input.count);
  const specs: AlertSpec[] = TEMPLATE.slice(0, fromTemplate).map((t) => ({
    key: t.key,
    template: true,
    body: t.body,
    secrets: secretsOf('bench/shared', t.secretKeys),
  }));
  const secretId = `bench/${input.projectName}`;
  for (let i = 0; i < input.count - fromTemplate; i++) {
    // Offset by the project index so projects do not all start with the same kind.
    const kind = KINDS[(i + input.projectIndex) % KINDS.length] as Kind;
    const c = Math.floor(i / KINDS.length);
    specs.push({
      key: `${kind.slug}-${c}`,
      template: false,
      body: kind.build({ project: input.projectName, c, teamId: input.teamId, secretId }),
      secrets: secretsOf(secretId, kind.secretKeys),
    });
  }
  return specs;
}

/** The API request body of a spec with its secretRefs resolved from `secrets` (for the bare-client baseline). */
export function resolveSpecBody(body: SpecBody, secrets: Record<string, Record<string, string>>): AlertConfigRequest {
  const notifications = body.notifications.map((n) => {
    const out: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(n)) {
      if (value !== null && typeof value === 'object' && 'secretRef' in value) {
        const [id = '', key = ''] = String((value as { secretRef: string }).secretRef).split('#');
        const resolved = secrets[id]?.[key];
        if (resolved === undefined) throw new Error(`no generated secret for ${id}#${key}`);
        out[field] = resolved;
      } else {
        out[field] = value;
      }
    }
    return out;
  });
  // Cast: the catalogue writes only notification fields of the wire type.
  return { ...body, notifications } as unknown as AlertConfigRequest;
}
