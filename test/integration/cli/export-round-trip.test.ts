// Scenario: `export` over real HTTP with Digest against the emulator, seeded with varied alert configs (thresholds,
// metric thresholds, matchers, every secret-bearing notification type, disabled configs, server-filled defaults): the
// YAML passes `validate`, `plan` with an empty state adopts every exported config and writes nothing, secrets appear
// only as references, a config the format refuses is skipped by id, and two exports are byte-identical.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../emulator/index.ts';
import { runCli } from '../../../lambdas/cli/main.ts';
import type { Plan } from '../../../lambdas/core/model.ts';
import { noEmulator, recordingIo } from '../../helpers/cli-io.ts';
import { KEYS, toolEnv } from '../../helpers/cli-run.ts';

const ORG = '5e2211c17a3e5a48f5497de0';
const P = '5e2211c17a3e5a48f5497de3';
const Q = '5e2211c17a3e5a48f5497de4';
const TEAM = '6a1f00000000000000000001';

/** Every secret the seed holds (fake): none may appear in any output. */
const SECRETS = {
  slack: 'xoxb-fake-slack-token-0001',
  hookUrl: 'https://hooks.example.com/services/fake-0002',
  hookSecret: 'whsec-fake-secret-0003',
  hookUrl2: 'https://alerts.example.org/in/fake-0004',
  pagerDuty: 'pd-fake-service-key-0005',
  datadog: 'dd-fake-api-key-0006',
  opsGenie: 'og-fake-api-key-0007',
  teams: 'https://teams.example.com/webhook/fake-0008',
  victorApi: 'vo-fake-api-key-0009',
  victorRouting: 'vo-fake-routing-0010',
} as const;

/** A key that may read alert configs but neither the usage endpoints nor audit-log rotation. */
const READER = { publicKey: 'roviewer', privateKey: '3b4c5d6e-7f80-4192-a3b4-c5d6e7f80912' };

let n = 0;
/** A seeded alert config of project P with the server-filled fields Ops Manager returns. */
function alert(created: string, body: Record<string, unknown>): Record<string, unknown> {
  n += 1;
  return {
    id: `6c99000000000000000000${String(n).padStart(2, '0')}`,
    groupId: P,
    created,
    updated: created,
    matchers: [],
    ...body,
  };
}

const SEED = {
  organizations: [{ id: ORG, name: 'acme' }],
  projects: [
    { id: P, name: 'payments-prod', orgId: ORG },
    { id: Q, name: 'payments-staging', orgId: ORG },
  ],
  teams: [{ id: TEAM, name: 'dba-oncall', orgId: ORG }],
  apiKeys: [
    { id: '6b1f000000000000000000a1', ...KEYS.tool, desc: 'tool', roles: [{ roleName: 'GLOBAL_OWNER' }] },
    { id: '6b1f000000000000000000a3', ...READER, desc: 'reader', roles: [{ roleName: 'GLOBAL_READ_ONLY' }] },
  ],
  alertConfigs: [
    // Created later than the next one: it gets host-down-2 although its id is lower.
    alert('2026-09-02T08:00:00Z', {
      enabled: true,
      eventTypeName: 'HOST_DOWN',
      notifications: [
        {
          typeName: 'GROUP',
          delayMin: 0,
          intervalMin: 60,
          emailEnabled: true,
          smsEnabled: false,
          roles: ['GROUP_READ_ONLY', 'GROUP_OWNER'],
        },
      ],
    }),
    alert('2026-09-01T08:00:00Z', {
      enabled: false,
      eventTypeName: 'HOST_DOWN',
      matchers: [
        { fieldName: 'HOSTNAME', operator: 'STARTS_WITH', value: 'db-' },
        { fieldName: 'PORT', operator: 'EQUALS', value: '27017' },
      ],
      notifications: [{ typeName: 'EMAIL', emailAddress: 'ops@example.com', delayMin: 5, intervalMin: 30 }],
    }),
    alert('2026-09-03T08:00:00Z', {
      enabled: true,
      eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
      matchers: [{ fieldName: 'TYPE_NAME', operator: 'EQUALS', value: 'PRIMARY' }],
      metricThreshold: {
        metricName: 'CONNECTIONS',
        mode: 'AVERAGE',
        operator: 'GREATER_THAN',
        threshold: 5000,
        units: 'RAW',
      },
      notifications: [
        { typeName: 'SLACK', apiToken: SECRETS.slack, channelName: '#db-alerts', delayMin: 0, intervalMin: 60 },
        { typeName: 'SMS', mobileNumber: '+15555550100', delayMin: 10, intervalMin: 60 },
      ],
    }),
    alert('2026-09-04T08:00:00Z', {
      enabled: true,
      eventTypeName: 'TOO_FEW_HEALTHY_MEMBERS',
      threshold: { operator: 'LESS_THAN', threshold: 2, units: 'RAW' },
      notifications: [
        { typeName: 'WEBHOOK', webhookUrl: SECRETS.hookUrl, webhookSecret: SECRETS.hookSecret, intervalMin: 15 },
        { typeName: 'PAGER_DUTY', serviceKey: SECRETS.pagerDuty, delayMin: 0 },
      ],
    }),
    alert('2026-09-05T08:00:00Z', {
      enabled: true,
      eventTypeName: 'NO_PRIMARY',
      notifications: [
        { typeName: 'TEAM', teamId: TEAM, emailEnabled: true, smsEnabled: true, intervalMin: 60 },
        { typeName: 'WEBHOOK', webhookUrl: SECRETS.hookUrl, webhookSecret: SECRETS.hookSecret, intervalMin: 15 },
        { typeName: 'WEBHOOK', webhookUrl: SECRETS.hookUrl2, intervalMin: 45 },
      ],
    }),
    alert('2026-09-06T08:00:00Z', {
      enabled: false,
      eventTypeName: 'MONITORING_AGENT_DOWN',
      notifications: [
        { typeName: 'DATADOG', datadogApiKey: SECRETS.datadog },
        { typeName: 'OPS_GENIE', opsGenieApiKey: SECRETS.opsGenie, opsGenieRegion: 'EU' },
        { typeName: 'MICROSOFT_TEAMS', microsoftTeamsWebhookUrl: SECRETS.teams },
        { typeName: 'VICTOR_OPS', victorOpsApiKey: SECRETS.victorApi, victorOpsRoutingKey: SECRETS.victorRouting },
        { typeName: 'USER', username: 'j.doe@example.com', smsEnabled: true },
        { typeName: 'ADMIN' },
      ],
    }),
    // Ops Manager takes this matcher; the desired state refuses it (TYPE_NAME compares with a known role only).
    alert('2026-09-07T08:00:00Z', {
      enabled: true,
      eventTypeName: 'AUTOMATION_AGENT_DOWN',
      matchers: [{ fieldName: 'TYPE_NAME', operator: 'EQUALS', value: 'ARBITER' }],
      notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'] }],
    }),
    alert('2026-09-08T08:00:00Z', {
      enabled: true,
      eventTypeName: 'TOO_MANY_UNHEALTHY_MEMBERS',
      threshold: { operator: 'GREATER_THAN', threshold: 1 },
      notifications: [{ typeName: 'ORG', roles: ['ORG_OWNER'], delayMin: 0, intervalMin: 120 }],
    }),
  ],
  defaultServerTypes: [{ groupId: P, serverType: 'PRODUCTION_SERVER' }],
  auditLogRotateConfigs: [
    {
      groupId: P,
      sizeThresholdMB: 1000,
      timeThresholdHrs: 24,
      numUncompressed: 5,
      percentOfDiskspace: 0.02,
      numTotal: 10,
    },
  ],
};

/** The id of the config the loader refuses (the seventh). */
const REFUSED_ID = '6c9900000000000000000007';

/** Each reference export must write, with the value it stands for (what a user would put in the secrets file). */
const EXPECTED_REFS: Record<string, string> = {
  [`opsman/${P}#outside-metric-threshold.apiToken`]: SECRETS.slack,
  [`opsman/${P}#too-few-healthy-members.webhookUrl`]: SECRETS.hookUrl,
  [`opsman/${P}#too-few-healthy-members.webhookSecret`]: SECRETS.hookSecret,
  [`opsman/${P}#too-few-healthy-members.serviceKey`]: SECRETS.pagerDuty,
  [`opsman/${P}#no-primary.webhookUrl`]: SECRETS.hookUrl,
  [`opsman/${P}#no-primary.webhookSecret`]: SECRETS.hookSecret,
  [`opsman/${P}#no-primary.webhookUrl2`]: SECRETS.hookUrl2,
  [`opsman/${P}#monitoring-agent-down.datadogApiKey`]: SECRETS.datadog,
  [`opsman/${P}#monitoring-agent-down.opsGenieApiKey`]: SECRETS.opsGenie,
  [`opsman/${P}#monitoring-agent-down.microsoftTeamsWebhookUrl`]: SECRETS.teams,
  [`opsman/${P}#monitoring-agent-down.victorOpsApiKey`]: SECRETS.victorApi,
  [`opsman/${P}#monitoring-agent-down.victorOpsRoutingKey`]: SECRETS.victorRouting,
};

let emulator: { url: string; close(): Promise<void> };
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-round-trip-'));
  emulator = await startEmulator({ port: 0, host: '127.0.0.1', seed: SEED });
});

afterAll(async () => {
  await emulator?.close();
  await rm(dir, { recursive: true, force: true });
});

async function cli(argv: string[], env: Record<string, string> = {}) {
  const io = recordingIo({ env: toolEnv(emulator.url, env) });
  const code = await runCli(argv, { startEmulator: noEmulator, io });
  return { code, out: io.out(), err: io.err() };
}

function expectNoSecret(text: string): void {
  for (const value of Object.values(SECRETS)) expect(text).not.toContain(value);
  // A redacted value (a run of asterisks) is never written as if it were the secret.
  expect(text).not.toMatch(/\*{4,}/);
}

describe('export round trip', { timeout: 60_000 }, () => {
  it('writes YAML that validates and that plan adopts config by config, with nothing to write', async () => {
    const desired = join(dir, 'desired');
    const run = await cli(['export', '--project', P, '--project', Q, '--org', ORG, '--out', desired]);
    expect(run.err).toContain(`Exported project ${P}: 7 alert config(s), 1 skipped`);
    expect(run.code).toBe(0);
    expect(run.out).toBe('');
    const text = await readFile(join(desired, `project-${P}.yaml`), 'utf8');
    expectNoSecret(text);
    expectNoSecret(run.err);

    // Creation order, not id order, picks the bare key; defaults and server-only fields are left out.
    expect(text).toMatch(/- key: host-down\n\s+eventTypeName: HOST_DOWN\n\s+enabled: false/);
    expect(text).toContain('key: host-down-2');
    for (const omitted of ['delayMin: 0', 'intervalMin: 60', 'mode: AVERAGE', 'units: RAW', 'smsEnabled: false']) {
      expect(text).not.toContain(omitted);
    }
    for (const serverOnly of ['notifierId', 'teamName', 'groupId', 'created', 'links']) {
      expect(text).not.toContain(serverOnly);
    }
    expect(text).toContain('defaultServerType: PRODUCTION_SERVER');
    expect(text).toMatch(/auditLogRotation:\n\s+sizeThresholdMB: 1000\n\s+timeThresholdHrs: 24\n\s+numTotal: 10\n/);

    // The refused config is named with its id and reason, and the secrets to create are listed by name only.
    expect(run.err).toMatch(
      new RegExp(`skipped alert config ${REFUSED_ID} \\(would be key "automation-agent-down"\\): .*ARBITER`),
    );
    expect(run.err).toContain('1 alert config(s) not exported');
    const listed = run.err
      .split('\n')
      .filter((line) => line.startsWith('  opsman/'))
      .map((line) => line.trim());
    expect(listed.sort()).toEqual(Object.keys(EXPECTED_REFS).sort());

    const validate = await cli(['validate', '--desired', desired]);
    expect(validate.out).toContain('Valid: loaded 2 projects');
    expect(validate.code).toBe(0);

    const secretsFile = join(dir, 'secrets.json');
    const secrets: Record<string, Record<string, string>> = {};
    for (const [ref, value] of Object.entries(EXPECTED_REFS)) {
      const [id, key] = ref.split('#') as [string, string];
      secrets[id] = { ...secrets[id], [key]: value };
    }
    await writeFile(secretsFile, JSON.stringify(secrets));
    const plan = await cli([
      'plan',
      '--json',
      '--desired',
      desired,
      '--state-dir',
      join(dir, 'state'),
      '--secrets-file',
      secretsFile,
    ]);
    expect(plan.err).not.toContain('error');
    expect(plan.code).toBe(0);
    expectNoSecret(plan.out);
    const parsed = JSON.parse(plan.out) as Plan;
    expect(parsed.failures).toEqual([]);
    const alerts = parsed.changes.filter((c) => c.kind === 'alertConfig');
    expect(alerts.map((c) => `${c.action} ${c.key}`).sort()).toEqual(
      [
        'host-down',
        'host-down-2',
        'monitoring-agent-down',
        'no-primary',
        'outside-metric-threshold',
        'too-few-healthy-members',
        'too-many-unhealthy-members',
      ].map((key) => `adopt ${key}`),
    );
    const others = parsed.changes.filter((c) => c.kind !== 'alertConfig').map((c) => `${c.action} ${c.key}`);
    expect(others.sort()).toEqual(['noop auditLogRotation', 'noop defaultServerType']);
    // Only the refused config stays unmanaged.
    expect((parsed.unmanaged ?? []).map((u) => u.id)).toEqual([REFUSED_ID]);
  });

  it('shows a secret typed in wrong (its redaction on live shows other characters) as changed on its adoption', async () => {
    // The first plan after export is all adoptions, each re-sending its secrets: a wrong value must not pass as a resend.
    const wrong: Record<string, string> = {
      ...EXPECTED_REFS,
      [`opsman/${P}#outside-metric-threshold.apiToken`]: 'xoxb-fake-slack-token-9999',
      [`opsman/${P}#too-few-healthy-members.webhookUrl`]: 'https://other.example.net/services/fake-0002',
    };
    const secrets: Record<string, Record<string, string>> = {};
    for (const [ref, value] of Object.entries(wrong)) {
      const [id, key] = ref.split('#') as [string, string];
      secrets[id] = { ...secrets[id], [key]: value };
    }
    const secretsFile = join(dir, 'wrong-secrets.json');
    await writeFile(secretsFile, JSON.stringify(secrets));
    const args = ['--desired', join(dir, 'desired'), '--secrets-file', secretsFile];
    const plan = await cli(['plan', '--json', ...args, '--state-dir', join(dir, 'state-wrong')]);
    expect(plan.code).toBe(0);
    const parsed = JSON.parse(plan.out) as Plan;
    const adoption = (key: string) => parsed.changes.find((c) => c.key === key && c.kind === 'alertConfig');
    const notes = (key: string) => (adoption(key)?.fields ?? []).map((f) => `${f.path} ${f.note}`);
    expect(adoption('outside-metric-threshold')?.action).toBe('adopt');
    expect(notes('outside-metric-threshold')).toEqual(['notifications[SLACK:#db-alerts].apiToken changed']);
    expect(adoption('outside-metric-threshold')?.reason).toContain(
      '1 of its secrets cannot be the one Ops Manager holds',
    );
    expect(notes('too-few-healthy-members')).toEqual([
      'notifications[PAGER_DUTY].serviceKey set',
      'notifications[WEBHOOK].webhookSecret set',
      'notifications[WEBHOOK].webhookUrl changed',
    ]);
    // The others read as typed in right: re-sent, nothing more.
    expect(notes('monitoring-agent-down').every((n) => n.endsWith(' set'))).toBe(true);
    const text = await cli(['plan', ...args, '--state-dir', join(dir, 'state-wrong-text')]);
    expect(text.out).toContain('notifications[SLACK:#db-alerts].apiToken: (secret changed)');
    expect(text.out).toContain('notifications[PAGER_DUTY].serviceKey: (secret, will be sent on adoption)');
    expectNoSecret(plan.out);
    expectNoSecret(text.out);
    expect(plan.out).not.toContain('9999');
  });

  it('gives byte-identical YAML on every run, the same on stdout as in the files', async () => {
    const first = await cli(['export', '--project', P, '--project', Q, '--org', ORG]);
    const second = await cli(['export', '--project', P, '--project', Q, '--org', ORG]);
    expect(first.code).toBe(0);
    expect(second.out).toBe(first.out);
    const files = await Promise.all(
      [P, Q].map((id) => readFile(join(dir, 'desired', `project-${id}.yaml`), 'utf8').catch(() => '')),
    );
    expect(first.out).toBe(files.join('---\n'));
  });

  it('without --org, skips the config that notifies a TEAM by id and says how to export it', async () => {
    const run = await cli(['export', '--project', P]);
    expect(run.code).toBe(0);
    expect(run.err).toMatch(/skipped alert config 6c9900000000000000000005 \(would be key "no-primary"\): .*--org/);
    expect(run.out).not.toContain('key: no-primary');
  });

  it('with a key that may not read the singletons, exports the alert configs and says what it left out', async () => {
    const run = await cli(['export', '--project', P, '--org', ORG], {
      OPSMAN_PUBLIC_KEY: READER.publicKey,
      OPSMAN_PRIVATE_KEY: READER.privateKey,
    });
    expect(run.code).toBe(0);
    expect(run.err).toContain(`warning: project ${P}: defaultServerType not exported: the API key may not read it`);
    expect(run.err).toContain(`warning: project ${P}: auditLogRotation not exported: the API key may not read it`);
    expect(run.out).not.toContain('defaultServerType');
    expect(run.out).toContain('key: too-many-unhealthy-members');
  });

  it('refuses to overwrite an existing file, naming it, before reading anything', async () => {
    const out = join(dir, 'desired');
    const run = await cli(['export', '--project', P, '--out', out]);
    expect(run.code).toBe(1);
    expect(run.err).toContain(`${join(out, `project-${P}.yaml`)} already exists`);
  });

  it('fails with a clear message for an unknown project, refused credentials and an unreachable server', async () => {
    const unknown = await cli(['export', '--project', '5e2211c17a3e5a48f5497dff']);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain(
      'project 5e2211c17a3e5a48f5497dff does not exist in this Ops Manager (GROUP_NOT_FOUND)',
    );
    expect(unknown.out).toBe('');

    const refused = await cli(['export', '--project', P], { OPSMAN_PRIVATE_KEY: 'not-the-key' });
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('OPSMAN_AUTH_ERROR');
    expect(refused.err).not.toContain('not-the-key');

    const unreachable = await cli(['export', '--project', P, '--request-timeout', '2'], {
      OPSMAN_BASE_URL: 'http://127.0.0.1:1/api/public/v1.0',
    });
    expect(unreachable.code).toBe(1);
    expect(unreachable.err).toContain('OPSMAN_TRANSPORT_ERROR');

    const usage = await cli(['export']);
    expect(usage.code).toBe(2);
    expect(usage.err).toContain('export needs at least one --project ID');
  });
});

/** The document `export --json` prints (docs/cli.md, "export --json"). */
interface ExportJson {
  formatVersion: number;
  ok: true;
  projects: {
    projectId: string;
    file?: string;
    yaml?: string;
    exported: { key: string; id: string }[];
    skipped: { id: string; key: string; reason: string }[];
    secretRefs: string[];
    warnings: string[];
  }[];
}

describe('export --json', { timeout: 60_000 }, () => {
  it('prints one document: per project the YAML, the configs exported by key and id, those skipped, the secretRefs', async () => {
    const text = await cli(['export', '--project', P, '--org', ORG]);
    const run = await cli(['export', '--json', '--project', P, '--project', Q, '--org', ORG]);
    // Was: refused as a usage error (export does not take --json), and no JSON on stdout.
    expect(run.code, run.err).toBe(0);
    expectNoSecret(run.out);
    expectNoSecret(run.err);
    const doc = JSON.parse(run.out) as ExportJson;
    expect(doc.formatVersion).toBe(1);
    expect(doc.ok).toBe(true);
    expect(doc.projects.map((p) => p.projectId)).toEqual([P, Q]);
    const [p, q] = doc.projects as [ExportJson['projects'][0], ExportJson['projects'][0]];
    // The same YAML the text output prints, and no file.
    expect(p.yaml).toBe(text.out);
    expect(p.file).toBeUndefined();
    expect(p.exported).toEqual([
      { key: 'host-down', id: '6c9900000000000000000002' },
      { key: 'host-down-2', id: '6c9900000000000000000001' },
      { key: 'outside-metric-threshold', id: '6c9900000000000000000003' },
      { key: 'too-few-healthy-members', id: '6c9900000000000000000004' },
      { key: 'no-primary', id: '6c9900000000000000000005' },
      { key: 'monitoring-agent-down', id: '6c9900000000000000000006' },
      { key: 'too-many-unhealthy-members', id: '6c9900000000000000000008' },
    ]);
    expect(p.skipped).toEqual([
      { id: REFUSED_ID, key: 'automation-agent-down', reason: expect.stringContaining('ARBITER') },
    ]);
    expect([...p.secretRefs].sort()).toEqual(Object.keys(EXPECTED_REFS).sort());
    expect(p.warnings).toEqual([]);
    expect(q).toMatchObject({ projectId: Q, exported: [], skipped: [], secretRefs: [], warnings: [] });
    expect(q.yaml).toContain(`projectId: ${Q}`);
    // Human text stays on stderr.
    expect(run.err).toContain(`Exported project ${P}: 7 alert config(s), 1 skipped`);
  });

  it('with --out: the file written per project instead of the YAML', async () => {
    const out = join(dir, 'json-out');
    const run = await cli(['export', '--json', '--project', P, '--project', Q, '--org', ORG, '--out', out]);
    expect(run.code, run.err).toBe(0);
    const doc = JSON.parse(run.out) as ExportJson;
    expect(doc.projects.map((p) => [p.file, p.yaml])).toEqual([
      [join(out, `project-${P}.yaml`), undefined],
      [join(out, `project-${Q}.yaml`), undefined],
    ]);
    expectNoSecret(await readFile(join(out, `project-${P}.yaml`), 'utf8'));
  });

  it('lists what the key may not read as warnings of its project', async () => {
    const run = await cli(['export', '--json', '--project', P, '--org', ORG], {
      OPSMAN_PUBLIC_KEY: READER.publicKey,
      OPSMAN_PRIVATE_KEY: READER.privateKey,
    });
    expect(run.code, run.err).toBe(0);
    const [p] = (JSON.parse(run.out) as ExportJson).projects;
    expect(p?.warnings).toEqual([
      expect.stringMatching(/^defaultServerType not exported: the API key may not read it \(/),
      expect.stringMatching(/^auditLogRotation not exported: the API key may not read it \(/),
    ]);
  });

  it('a failure prints the failure document of every --json command, with the exit code of the text output', async () => {
    const unknown = await cli(['export', '--json', '--project', '5e2211c17a3e5a48f5497dff']);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.out)).toEqual({
      ok: false,
      error: {
        code: 'EXPORT_FAILED',
        message: expect.stringContaining(
          'project 5e2211c17a3e5a48f5497dff does not exist in this Ops Manager (GROUP_NOT_FOUND)',
        ),
      },
    });
    const refused = await cli(['export', '--json', '--project', P], { OPSMAN_PRIVATE_KEY: 'not-the-key' });
    expect(refused.code).toBe(1);
    expect(refused.out).not.toContain('not-the-key');
    expect((JSON.parse(refused.out) as { error: { message: string } }).error.message).toContain('OPSMAN_AUTH_ERROR');
    const existing = await cli(['export', '--json', '--project', P, '--out', join(dir, 'json-out')]);
    expect(existing.code).toBe(1);
    expect((JSON.parse(existing.out) as { error: { code: string } }).error.code).toBe('CLI_FILE_EXISTS');
    // Usage errors and the parse refusals: exit 2, code CLI_USAGE, as for the other commands.
    for (const argv of [
      ['export', '--json'],
      ['export', '--json=1', '--project', P],
      ['export', '--json', '--project', P, '--markdown'],
      ['export', '--json', '--project', P, '--out', 'a', '--out', 'b'],
      ['export', '--json', '--project', P, '--private-key', 'x'],
    ]) {
      const usage = await cli(argv);
      expect(usage.code, argv.join(' ')).toBe(2);
      expect((JSON.parse(usage.out) as { error: { code: string } }).error.code).toBe('CLI_USAGE');
    }
    const oneDash = await cli(['export', '-json', '--project', P]);
    expect(oneDash.code).toBe(2);
    expect(oneDash.err).toContain('unknown option -json: options take two dashes (--json)');
  });
});
