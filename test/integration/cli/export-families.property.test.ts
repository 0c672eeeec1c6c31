// Scenario: spec-valid alert configs of every event type family (plain events, OUTSIDE_METRIC_THRESHOLD with a metric
// threshold, the replica-set member counts with a threshold) and every notification type with its own fields (roles or
// one role, toggles, delayMin/intervalMin, secrets of every kind, TEAM, USER, ORG, GROUP), enabled or not, with
// matchers, are created in the emulator with the real client over Digest. `export --org` writes them all, `validate`
// accepts the files, and `plan` against the same installation adopts every config with nothing to create, update or
// delete, the singletons unchanged, nothing left unmanaged, and every secret given its real value read as the one Ops
// Manager holds (re-sent by the adoption, never `changed`). Secret values appear in no output.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../emulator/index.ts';
import { runCli } from '../../../lambdas/cli/main.ts';
import {
  EVENT_TYPE_NAMES,
  GROUP_ROLES,
  MATCHER_FIELDS,
  MATCHER_OPERATORS,
  METRIC_EVENT_TYPE,
  NOTIFICATION_TYPES,
  ORG_ROLES,
  THRESHOLD_EVENT_TYPES,
  TYPE_NAME_VALUES,
  UNITS,
} from '../../../lambdas/core/desired/enums.ts';
import type { Plan } from '../../../lambdas/core/model.ts';
import { createOpsManagerClient, type OpsManagerClient } from '../../../lambdas/opsman/index.ts';
import type { AlertConfigRequest } from '../../../lambdas/opsman/types.ts';
import { noEmulator, recordingIo } from '../../helpers/cli-io.ts';
import { KEYS, toolEnv } from '../../helpers/cli-run.ts';

const ORG = '5e2211c17a3e5a48f5497de0';
const P = '5e2211c17a3e5a48f5497de3';
const TEAMS = ['6a1f00000000000000000001', '6a1f00000000000000000002'];

/** One fake value per secret field: plan checks each against the mask Ops Manager shows. None may be printed. */
const SECRET_VALUES: Record<string, string> = {
  apiToken: 'xoxb-fake-families-slack-0001',
  notificationToken: 'hipchat-fake-families-0002',
  datadogApiKey: 'dd-fake-families-key-0003',
  serviceKey: 'pd-fake-families-key-0004',
  opsGenieApiKey: 'og-fake-families-key-0005',
  victorOpsApiKey: 'vo-fake-families-api-0006',
  victorOpsRoutingKey: 'vo-fake-families-route-0007',
  webhookUrl: 'https://hooks.example.com/fake-families-0008',
  webhookSecret: 'whsec-fake-families-0009',
  microsoftTeamsWebhookUrl: 'https://teams.example.com/fake-families-0010',
};

const SEED = {
  organizations: [{ id: ORG, name: 'acme' }],
  projects: [{ id: P, name: 'families', orgId: ORG }],
  teams: TEAMS.map((id, i) => ({ id, name: `team-${i}`, orgId: ORG })),
  apiKeys: [{ id: '6b1f000000000000000000a1', ...KEYS.tool, desc: 'tool', roles: [{ roleName: 'GLOBAL_OWNER' }] }],
  alertConfigs: [],
};

const text = fc.stringMatching(/^[A-Za-z0-9#@._+ -]{1,16}$/).filter((s) => s.trim() === s);
/** delayMin and intervalMin as Ops Manager takes them, each present or not (absent: the server's default). */
const timing = (interval: boolean): fc.Arbitrary<{ delayMin?: number; intervalMin?: number }> =>
  interval
    ? fc.record(
        { delayMin: fc.integer({ min: 0, max: 120 }), intervalMin: fc.integer({ min: 5, max: 1440 }) },
        { requiredKeys: [] },
      )
    : fc.record({ delayMin: fc.integer({ min: 0, max: 120 }) }, { requiredKeys: [] });
const toggles = fc.record({ emailEnabled: fc.boolean(), smsEnabled: fc.boolean() }, { requiredKeys: [] });
const secret = (...fields: string[]) => Object.fromEntries(fields.map((f) => [f, SECRET_VALUES[f]]));

/** A GROUP or ORG notification: several roles, a single `role`, or none. */
function roleBased(typeName: string, roles: readonly string[]) {
  return fc
    .tuple(
      fc.oneof(
        fc.subarray([...roles], { minLength: 1 }).map((r) => ({ roles: r })),
        fc.constantFrom(...roles).map((role) => ({ role })),
        fc.constant({}),
      ),
      timing(true),
      toggles,
    )
    .map(([r, t, e]) => ({ typeName, ...r, ...t, ...e }));
}

/** A notification of each type with the fields the spec gives it. */
const notificationOf: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  ADMIN: fc.tuple(timing(true), toggles).map(([t, e]) => ({ typeName: 'ADMIN', ...t, ...e })),
  GROUP: roleBased('GROUP', GROUP_ROLES),
  ORG: roleBased('ORG', ORG_ROLES),
  TEAM: fc
    .tuple(fc.constantFrom(...TEAMS), timing(true), toggles)
    .map(([teamId, t, e]) => ({ typeName: 'TEAM', teamId, ...t, ...e })),
  USER: fc
    .tuple(fc.stringMatching(/^[a-z]{1,8}(\.[a-z]{1,8})?@acme\.example$/), timing(true), toggles)
    .map(([username, t, e]) => ({ typeName: 'USER', username, ...t, ...e })),
  EMAIL: fc
    .tuple(fc.stringMatching(/^[a-z]{1,8}@[a-z]{1,8}\.example$/), timing(true))
    .map(([emailAddress, t]) => ({ typeName: 'EMAIL', emailAddress, ...t })),
  SMS: fc
    .tuple(fc.stringMatching(/^\+?[0-9]{6,14}$/), timing(true))
    .map(([mobileNumber, t]) => ({ typeName: 'SMS', mobileNumber, ...t })),
  SLACK: fc
    .tuple(text, timing(true))
    .map(([channelName, t]) => ({ typeName: 'SLACK', channelName, ...secret('apiToken'), ...t })),
  HIPCHAT: fc
    .tuple(text, timing(true))
    .map(([roomName, t]) => ({ typeName: 'HIPCHAT', roomName, ...secret('notificationToken'), ...t })),
  DATADOG: timing(true).map((t) => ({ typeName: 'DATADOG', ...secret('datadogApiKey'), ...t })),
  PAGER_DUTY: timing(false).map((t) => ({ typeName: 'PAGER_DUTY', ...secret('serviceKey'), ...t })),
  OPS_GENIE: fc.tuple(fc.constantFrom(undefined, 'US', 'EU'), timing(false)).map(([region, t]) => ({
    typeName: 'OPS_GENIE',
    ...secret('opsGenieApiKey'),
    ...(region === undefined ? {} : { opsGenieRegion: region }),
    ...t,
  })),
  VICTOR_OPS: timing(false).map((t) => ({
    typeName: 'VICTOR_OPS',
    ...secret('victorOpsApiKey', 'victorOpsRoutingKey'),
    ...t,
  })),
  WEBHOOK: fc.tuple(fc.boolean(), timing(true)).map(([withSecret, t]) => ({
    typeName: 'WEBHOOK',
    ...secret('webhookUrl', ...(withSecret ? ['webhookSecret'] : [])),
    ...t,
  })),
  MICROSOFT_TEAMS: timing(true).map((t) => ({
    typeName: 'MICROSOFT_TEAMS',
    ...secret('microsoftTeamsWebhookUrl'),
    ...t,
  })),
};

const notification = fc
  .constantFrom(...NOTIFICATION_TYPES)
  .chain((type) => notificationOf[type] as fc.Arbitrary<Record<string, unknown>>);

const matcher = fc.oneof(
  fc.record({
    fieldName: fc.constantFrom(...MATCHER_FIELDS.filter((f) => f !== 'TYPE_NAME')),
    operator: fc.constantFrom(...MATCHER_OPERATORS),
    value: text,
  }),
  fc.record({
    fieldName: fc.constant('TYPE_NAME'),
    operator: fc.constantFrom(...MATCHER_OPERATORS),
    value: fc.constantFrom(...TYPE_NAME_VALUES),
  }),
);

const thresholdValue = fc.oneof(
  fc.integer({ min: -1000, max: 100_000 }),
  fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }),
);
const operator = fc.constantFrom('GREATER_THAN', 'LESS_THAN');
const metricThreshold = fc.record(
  {
    metricName: fc.constantFrom('CONNECTIONS', 'ASSERT_REGULAR', 'DISK_PARTITION_SPACE_USED_DATA', 'OPCOUNTER_CMD'),
    mode: fc.constant('AVERAGE'),
    operator,
    threshold: thresholdValue,
    units: fc.constantFrom(...UNITS),
  },
  { requiredKeys: ['metricName', 'operator', 'threshold'] },
);
const threshold = fc.record(
  { operator, threshold: thresholdValue, units: fc.constantFrom(...UNITS) },
  { requiredKeys: ['operator', 'threshold'] },
);

/** An alert config request of any family; the threshold kind its event type needs, and only that one. */
const alertBody = fc
  .record({
    eventTypeName: fc.oneof(
      fc.constantFrom(...EVENT_TYPE_NAMES),
      fc.constantFrom(METRIC_EVENT_TYPE, ...THRESHOLD_EVENT_TYPES),
    ),
    enabled: fc.boolean(),
    matchers: fc.array(matcher, { maxLength: 3 }),
    notifications: fc.array(notification, { minLength: 1, maxLength: 3 }),
    metricThreshold,
    threshold,
  })
  .map(({ metricThreshold: mt, threshold: t, ...body }) => ({
    ...body,
    ...(body.eventTypeName === METRIC_EVENT_TYPE ? { metricThreshold: mt } : {}),
    ...(THRESHOLD_EVENT_TYPES.includes(body.eventTypeName) ? { threshold: t } : {}),
  }));

let emulator: { url: string; close(): Promise<void> };
let client: OpsManagerClient;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-families-'));
  emulator = await startEmulator({ port: 0, host: '127.0.0.1', seed: SEED });
  client = createOpsManagerClient({ baseUrl: emulator.url, ...KEYS.tool, retry: { maxAttempts: 1 } });
});

afterAll(async () => {
  await client?.close();
  await emulator?.close();
  await rm(dir, { recursive: true, force: true });
});

async function cli(argv: string[]) {
  const io = recordingIo({ env: toolEnv(emulator.url) });
  const code = await runCli(argv, { startEmulator: noEmulator, io });
  return { code, out: io.out(), err: io.err() };
}

function expectNoSecret(output: string): void {
  for (const value of Object.values(SECRET_VALUES)) expect(output).not.toContain(value);
}

let run = 0;

describe('export of every alert config family (property)', { timeout: 600_000 }, () => {
  it('validates, and plan against the same installation adopts every config, nothing else', async () => {
    const seen = { configs: 0, types: new Set<string>(), events: new Set<string>() };
    await fc.assert(
      fc.asyncProperty(fc.array(alertBody, { minLength: 1, maxLength: 4 }), async (bodies) => {
        run += 1;
        for (const old of await client.listAlertConfigs(P)) await client.deleteAlertConfig(P, old.id);
        for (const body of bodies) {
          try {
            await client.createAlertConfig(P, body as unknown as AlertConfigRequest);
          } catch (error) {
            throw new Error(`the emulator refused a generated body: ${(error as Error).message}`);
          }
          seen.configs += 1;
          seen.events.add(body.eventTypeName);
          for (const n of body.notifications) seen.types.add(String(n.typeName));
        }

        const desired = join(dir, `desired-${run}`);
        const exported = await cli(['export', '--project', P, '--org', ORG, '--out', desired]);
        expect(exported.err).toContain(`Exported project ${P}: ${bodies.length} alert config(s) -> `);
        expect(exported.code).toBe(0);
        expectNoSecret(exported.err);

        const validate = await cli(['validate', '--desired', desired]);
        expect(validate.out).toContain('Valid: loaded 1 project');
        expect(validate.code).toBe(0);

        // Each reference names its field (`<key>.<field>` with an occurrence number from the second on).
        const secrets: Record<string, Record<string, string>> = {};
        for (const line of exported.err.split('\n').filter((l) => l.startsWith('  opsman/'))) {
          const [id, key] = line.trim().split('#') as [string, string];
          const field = (/\.([A-Za-z]+?)\d*$/.exec(key)?.[1] ?? '') as string;
          const value = SECRET_VALUES[field];
          if (value === undefined) throw new Error(`a reference names no secret field: ${line}`);
          secrets[id] = { ...secrets[id], [key]: value };
        }
        const secretsFile = join(dir, `secrets-${run}.json`);
        await writeFile(secretsFile, JSON.stringify(secrets));

        const plan = await cli([
          'plan',
          '--json',
          '--desired',
          desired,
          '--state-dir',
          join(dir, `state-${run}`),
          '--secrets-file',
          secretsFile,
        ]);
        expect(plan.code).toBe(0);
        expectNoSecret(plan.out);
        expectNoSecret(plan.err);
        const parsed = JSON.parse(plan.out) as Plan;
        expect(parsed.failures).toEqual([]);
        const actions = parsed.changes.filter((c) => c.kind === 'alertConfig').map((c) => c.action);
        expect(actions).toEqual(bodies.map(() => 'adopt'));
        // Every secret was given its real value: each is re-sent, none reads as another one than Ops Manager holds.
        const notes = parsed.changes.flatMap((c) => c.fields.filter((f) => f.secret === true).map((f) => f.note));
        expect(notes.filter((note) => note !== 'set')).toEqual([]);
        const others = parsed.changes.filter((c) => c.kind !== 'alertConfig').map((c) => c.action);
        expect(others.filter((a) => a !== 'noop')).toEqual([]);
        expect(parsed.unmanaged ?? []).toEqual([]);
      }),
      { numRuns: Number(process.env.EXPORT_FAMILY_RUNS ?? 40) },
    );
    // Not vacuous: every notification type and every threshold family reached the server and came back.
    expect([...seen.types].sort()).toEqual([...NOTIFICATION_TYPES].sort());
    for (const family of [METRIC_EVENT_TYPE, ...THRESHOLD_EVENT_TYPES]) expect(seen.events).toContain(family);
  });
});
