// Scenario: CDK context validation, table-driven: defaults, accepted values, and precise messages for bad ones.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { CONTEXT_KEYS, readSettings, SETTINGS_DEFAULTS, SettingsError, SIZING_RANGE } from '../../infra/settings.ts';
import { STOP_BEFORE_TIMEOUT_MS } from '../../lambdas/handlers/run-once.ts';
import { REPO_ROOT } from '../helpers/cli-run.ts';

// An App without outdir makes its own temp directory: give them all one, removed at the end.
const outdir = mkdtempSync(join(tmpdir(), 'opsman-settings-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));
const settingsOf = (context: Record<string, unknown>) => readSettings(new App({ context, outdir }).node);

describe('readSettings', () => {
  it('defaults', () => {
    expect(settingsOf({})).toEqual({
      opsManagerBaseUrl: SETTINGS_DEFAULTS.opsManagerBaseUrl,
      reconcileSchedule: 'rate(15 minutes)',
      archiveSchedule: 'cron(30 2 * * ? *)',
      timeZone: 'Etc/UTC',
      mode: 'plan',
      noSuccessHours: 6,
      secretNamePrefix: 'opsman/',
      desiredStateDir: 'desired-state',
      logRetentionDays: 90,
      sizing: {
        reconcile: { memoryMb: 1024, timeoutMinutes: 10 },
        archive: { memoryMb: 512, timeoutMinutes: 5 },
      },
    });
  });

  it('accepts a full context, lists as arrays or comma strings', () => {
    const s = settingsOf({
      opsManagerBaseUrl: 'https://om.corp:8443/api/public/v1.0',
      reconcileSchedule: 'rate(5 minutes)',
      archiveSchedule: 'cron(0 3 * * ? *)',
      timeZone: 'Europe/Paris',
      mode: ' observe ',
      alarmEmail: 'dba@corp.example\n',
      vpcId: 'vpc-0a1b2c3d',
      subnetIds: 'subnet-0a1b2c3d, subnet-1a1b2c3d',
      securityGroupIds: ['sg-0a1b2c3d'],
      caBundle: 'certs/ca.pem',
      noSuccessHours: '12',
    });
    expect(s).toMatchObject({
      mode: 'observe',
      alarmEmail: 'dba@corp.example',
      caBundle: 'certs/ca.pem',
      noSuccessHours: 12,
      vpc: {
        vpcId: 'vpc-0a1b2c3d',
        subnetIds: ['subnet-0a1b2c3d', 'subnet-1a1b2c3d'],
        securityGroupIds: ['sg-0a1b2c3d'],
        routeTableIds: [],
        createEndpoints: true,
      },
    });
  });

  it.each([
    [{ opsManagerBaseUrl: 'om.corp' }, 'opsManagerBaseUrl must be an http(s) URL ending in /api/public/v1.0'],
    [
      { opsManagerBaseUrl: 'https://ops:s3cr3t@om.corp:8443/api/public/v1.0' },
      "must not carry credentials: the API key belongs in the stack's credentials secret",
    ],
    [
      { reconcileSchedule: 'every 5 minutes' },
      'reconcileSchedule must be rate(N minutes|hours|days), cron(...) or at(...)',
    ],
    [{ archiveSchedule: 'rate(1 fortnight)' }, 'archiveSchedule must be'],
    [{ timeZone: 'Paris time' }, 'timeZone must be an IANA time zone'],
    [{ timeZone: '+05:30' }, 'timeZone must be an IANA time zone'],
    [{ mode: 'destroy' }, 'mode must be observe, plan or apply'],
    [{ alarmEmail: 'oncall' }, 'alarmEmail must be an email address'],
    [{ vpcId: 'vpc-0a1b2c3d' }, 'subnetIds must list subnet ids'],
    [{ vpcId: 'vpc-0a1b2c3d', subnetIds: 'subnet-0a1b2c3d' }, 'securityGroupIds must list security group ids'],
    [{ subnetIds: 'subnet-0a1b2c3d', securityGroupIds: 'sg-0a1b2c3d' }, 'vpcId must be a VPC id'],
    [
      {
        vpcId: 'vpc-0a1b2c3d',
        subnetIds: 'subnet-0a1b2c3d',
        securityGroupIds: 'sg-0a1b2c3d',
        routeTableIds: 'rtb-0a1b2c3d,rtb-1a1b2c3d',
      },
      'routeTableIds must have one entry per subnet id',
    ],
    [
      { vpcId: 'vpc-0a1b2c3d', subnetIds: 'subnet-0a1b2c3d', securityGroupIds: 'sg-0a1b2c3d', routeTableIds: 'rtb-1' },
      'routeTableIds must list route table ids (rtb-...)',
    ],
    // Route tables alone would place nothing in a VPC (and create no endpoint): the missing keys are named.
    [{ routeTableIds: 'rtb-0a1b2c3d' }, 'vpcId must be a VPC id'],
    [{ vpcId: 'vpc-xyz', subnetIds: 'subnet-0a1b2c3d', securityGroupIds: 'sg-0a1b2c3d' }, 'vpcId must be a VPC id'],
    [
      { vpcId: 'vpc-0a1b2c3d', subnetIds: 'subnet-0a1b2c3d,sn-1', securityGroupIds: 'sg-0a1b2c3d' },
      'subnetIds must list subnet ids',
    ],
    [
      { vpcId: 'vpc-0a1b2c3d', subnetIds: 'subnet-0a1b2c3d', securityGroupIds: 'sg-0a1b2c3d, default' },
      'securityGroupIds must list security group ids',
    ],
    [
      { vpcId: 'vpc-0a1b2c3d', subnetIds: 42, securityGroupIds: 'sg-0a1b2c3d' },
      'subnetIds must be a list of ids or a comma-separated string',
    ],
    [{ alarmEmail: 'dba @corp.example' }, 'alarmEmail must be an email address'],
    [{ noSuccessHours: 48 }, 'noSuccessHours must be a whole number from 1 to 24'],
    [{ secretNamePrefix: 'opsman' }, 'secretNamePrefix must be a Secrets Manager name prefix ending in /'],
    [{ mode: 3 }, 'mode must be a string'],
    // Shapes the old check let through to a failed deployment.
    [
      { archiveSchedule: 'cron(30 2 * * *)' },
      'archiveSchedule must be rate(N minutes|hours|days), cron(...) or at(...); a cron expression has six fields (minutes hours day-of-month month day-of-week year), found 5, got "cron(30 2 * * *)"',
    ],
    // AWS wants '?' in exactly one of day-of-month and day-of-week: both set, or both '?', fails the deployment.
    [
      { archiveSchedule: 'cron(30 2 * * * *)' },
      `archiveSchedule must be rate(N minutes|hours|days), cron(...) or at(...); a cron expression sets day-of-month or day-of-week and puts '?' in the other (cron(30 2 * * ? *): every day), got "cron(30 2 * * * *)"`,
    ],
    [{ reconcileSchedule: 'cron(0/15 * 1 * MON *)' }, "puts '?' in the other"],
    [{ archiveSchedule: 'cron(0 3 ? * ? *)' }, "puts '?' in the other"],
    [
      { reconcileSchedule: 'rate(0 minutes)' },
      'reconcileSchedule must be rate(N minutes|hours|days), cron(...) or at(...); a rate must be at least 1',
    ],
    [
      { reconcileSchedule: 'rate(1 minutes)' },
      'reconcileSchedule must be rate(N minutes|hours|days), cron(...) or at(...); with a value of 1 the unit is singular: rate(1 minute), got "rate(1 minutes)"',
    ],
    [{ archiveSchedule: 'rate(5 hour)' }, 'with a value above 1 the unit is plural: rate(5 hours), got "rate(5 hour)"'],
    [{ reconcileSchedule: 'at(2027-01-01)' }, 'an at expression is at(yyyy-mm-ddThh:mm:ss)'],
    [{ reconcileSchedule: 'at(2027-02-29T10:00:00)' }, 'an at expression names a day and time that exist'],
    [{ reconcileSchedule: 'at(2027-01-01T24:00:00)' }, 'an at expression names a day and time that exist'],
    [{ archiveSchedule: 'at(2027-13-01T00:00:00)' }, 'an at expression names a day and time that exist'],
    [
      { timeZone: 'Europe/Pariss' },
      'timeZone must be an IANA time zone such as Europe/Paris or Etc/UTC; got "Europe/Pariss"',
    ],
    [{ logRetentionDays: '10' }, "logRetentionDays must be one of CloudWatch Logs' retention periods: 1, 3, 5, 7, 14"],
    [{ createVpcEndpoints: 'flase' }, 'createVpcEndpoints must be true or false; got "flase"'],
    [{ reconcileMemoryMb: 128 }, 'reconcileMemoryMb must be a whole number from 256 to 10240'],
    [{ archiveMemoryMb: '12GB' }, 'archiveMemoryMb must be a whole number from 256 to 10240'],
    [{ reconcileTimeoutMinutes: 20 }, 'reconcileTimeoutMinutes must be a whole number from 4 to 15'],
    [{ archiveTimeoutMinutes: 0.5 }, 'archiveTimeoutMinutes must be a whole number from 4 to 15'],
    // Below 4 minutes, the quarter of the time a run keeps for its state save would not cover a hung S3 request.
    [
      { reconcileTimeoutMinutes: 1 },
      'reconcileTimeoutMinutes must be a whole number from 4 to 15: a run keeps its last 60 s (a quarter of the timeout at most) to end its Ops Manager requests, save its state and release its lease, 40 s of it for S3',
    ],
    [{ archiveTimeoutMinutes: '3' }, 'archiveTimeoutMinutes must be a whole number from 4 to 15: a run keeps'],
    // A staleness window shorter than the gap between two runs: the alarm would fire after every run.
    [
      { reconcileSchedule: 'rate(1 day)' },
      "noSuccessHours must be at least the reconcile schedule's period: rate(1 day) runs every 24 hours, so with noSuccessHours 6 the NoSuccessfulRun alarm would fire between every two runs",
    ],
    [{ reconcileSchedule: 'rate(13 hours)', noSuccessHours: 12 }, 'rate(13 hours) runs every 13 hours'],
  ])('rejects %j', (context, message) => {
    let caught: unknown;
    try {
      settingsOf(context);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SettingsError);
    expect((caught as SettingsError).message).toContain(message);
  });
});

// A misspelled key was read by nothing: `-c alarmEmal=...` deployed with no alarm email and no word about it.
describe('readSettings refuses a context key that looks like a misspelling of one it reads', () => {
  it.each([
    [{ alarmEmal: 'oncall@acme.example' }, 'unknown context key "alarmEmal"; did you mean "alarmEmail"?'],
    [{ reconcilememorymb: 2048 }, 'unknown context key "reconcilememorymb"; did you mean "reconcileMemoryMb"?'],
    [
      { reconcileShedule: 'rate(5 minutes)' },
      'unknown context key "reconcileShedule"; did you mean "reconcileSchedule"?',
    ],
    // Too far from "mode" for an edit distance on four letters: found by its case alone (-c MODE=apply).
    [{ MODE: 'apply' }, 'unknown context key "MODE"; did you mean "mode"?'],
  ])('%j', (context, message) => {
    expect(() => settingsOf(context)).toThrow(SettingsError);
    expect(() => settingsOf(context)).toThrow(message);
  });

  it("leaves CDK's own keys and keys close to none of its own alone", () => {
    const context = {
      '@aws-cdk/core:checkSecretUsage': true,
      'aws:cdk:enable-path-metadata': true,
      // A namespaced key is someone else's, however close to one of ours.
      'stack:Name': 'x',
      teamOwner: 'dba',
    };
    expect(settingsOf(context).mode).toBe('plan');
  });

  it("the README's context-keys table lists exactly the keys it reads", () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('### Context keys'), readme.indexOf('### Warm containers'));
    const listed = [...table.matchAll(/^\| `([A-Za-z]+)`(?:, `([A-Za-z]+)`)?/gm)].flatMap((m) =>
      m.slice(1).filter(Boolean),
    );
    expect(listed.sort()).toEqual([...CONTEXT_KEYS].sort());
  });
});

describe('readSettings accepts every documented form', () => {
  it.each([
    [{ reconcileSchedule: 'rate(1 minute)' }, { reconcileSchedule: 'rate(1 minute)' }],
    [{ reconcileSchedule: 'rate(1 day)', noSuccessHours: 24 }, { reconcileSchedule: 'rate(1 day)' }],
    [{ reconcileSchedule: 'rate(6 hours)' }, { reconcileSchedule: 'rate(6 hours)', noSuccessHours: 6 }],
    [{ reconcileSchedule: 'rate(360 minutes)' }, { reconcileSchedule: 'rate(360 minutes)' }],
    [{ archiveSchedule: 'rate(30 minutes)' }, { archiveSchedule: 'rate(30 minutes)' }],
    [{ archiveSchedule: 'cron(0 3 ? * MON-FRI *)' }, { archiveSchedule: 'cron(0 3 ? * MON-FRI *)' }],
    [{ archiveSchedule: 'cron(0 3 1 * ? *)' }, { archiveSchedule: 'cron(0 3 1 * ? *)' }],
    [{ reconcileSchedule: 'at(2027-01-01T00:00:00)' }, { reconcileSchedule: 'at(2027-01-01T00:00:00)' }],
    [{ reconcileSchedule: 'at(2028-02-29T23:59:59)' }, { reconcileSchedule: 'at(2028-02-29T23:59:59)' }],
    [{ timeZone: 'America/Argentina/Buenos_Aires' }, { timeZone: 'America/Argentina/Buenos_Aires' }],
    [{ timeZone: 'EST5EDT' }, { timeZone: 'EST5EDT' }],
    [{ timeZone: 'GMT0' }, { timeZone: 'GMT0' }],
    [{ logRetentionDays: '365' }, { logRetentionDays: 365 }],
    [
      { reconcileMemoryMb: '2048', reconcileTimeoutMinutes: 15 },
      { sizing: { reconcile: { memoryMb: 2048, timeoutMinutes: 15 }, archive: { memoryMb: 512, timeoutMinutes: 5 } } },
    ],
  ])('%j', (context, expected) => {
    expect(settingsOf(context)).toMatchObject(expected);
  });

  it.each([
    ['false', false],
    [false, false],
    ['true', true],
  ])('createVpcEndpoints %j', (createVpcEndpoints, expected) => {
    const vpc = { vpcId: 'vpc-0a1b2c3d', subnetIds: 'subnet-0a1b2c3d', securityGroupIds: 'sg-0a1b2c3d' };
    expect(settingsOf({ ...vpc, createVpcEndpoints }).vpc?.createEndpoints).toBe(expected);
  });
});

describe('the stack refuses a missing desired-state folder', () => {
  it('names the context key', async () => {
    const { buildApp } = await import('../../infra/build-app.ts');
    expect(() =>
      buildApp(new App({ outdir, context: { 'aws:cdk:bundling-stacks': [], desiredStateDir: 'desired-stat' } })),
    ).toThrow('desiredStateDir desired-stat is not a directory (path relative to the repository root)');
  });
});

describe('the stack refuses a missing CA bundle', () => {
  it('names the path', async () => {
    const { buildApp } = await import('../../infra/build-app.ts');
    expect(() =>
      buildApp(new App({ outdir, context: { 'aws:cdk:bundling-stacks': [], caBundle: 'certs/missing-ca.pem' } })),
    ).toThrow('caBundle certs/missing-ca.pem does not exist (path relative to the repository root)');
  });
  it('refuses a folder: the bundling would copy it and fail naming no context key', async () => {
    const { buildApp } = await import('../../infra/build-app.ts');
    expect(() =>
      buildApp(new App({ outdir, context: { 'aws:cdk:bundling-stacks': [], caBundle: 'test/infra/fixtures' } })),
    ).toThrow('caBundle test/infra/fixtures is not a file: give the PEM bundle itself');
  });
});

describe('the stack name comes from context', () => {
  it.each([
    [undefined, 'OpsmanGitops'],
    ['OpsmanGitopsEu', 'OpsmanGitopsEu'],
  ])('stackName %s -> %s', async (stackName, expected) => {
    const { stackNameOf } = await import('../../infra/build-app.ts');
    const context: Record<string, unknown> = stackName === undefined ? {} : { stackName };
    expect(stackNameOf(new App({ outdir, context }))).toBe(expected);
  });

  it.each([['1stack'], ['has space'], [42]])('refuses %s', async (stackName) => {
    const { stackNameOf } = await import('../../infra/build-app.ts');
    expect(() => stackNameOf(new App({ outdir, context: { stackName } }))).toThrow(
      /invalid CDK context: stackName must start with a letter/,
    );
  });
});

describe('docs/aws.md says what the sizing code does', () => {
  const doc = readFileSync(join(REPO_ROOT, 'docs/aws.md'), 'utf8');
  const sizing = doc.slice(doc.indexOf('\n## Sizing'), doc.indexOf('\n## ', doc.indexOf('\n## Sizing') + 1));
  const { reconcile, archive } = SETTINGS_DEFAULTS.sizing;
  const grouped = (n: number) => n.toLocaleString('en-US');

  it('the context-keys table: the sizing keys with their defaults and ranges', () => {
    const { memoryMb, timeoutMinutes } = SIZING_RANGE;
    expect(doc).toContain(
      `| \`reconcileMemoryMb\`, \`archiveMemoryMb\` | \`${reconcile.memoryMb}\`, \`${archive.memoryMb}\` | memory of each function in MB, ${memoryMb.min}-${grouped(memoryMb.max)} `,
    );
    expect(doc).toContain(
      `| \`reconcileTimeoutMinutes\`, \`archiveTimeoutMinutes\` | \`${reconcile.timeoutMinutes}\`, \`${archive.timeoutMinutes}\` | timeout of each function in minutes, ${timeoutMinutes.min}-${timeoutMinutes.max} |`,
    );
  });

  // README's own context-keys table says it lists every key infra/settings.ts reads; it once lacked these four.
  it("README's context-keys table: the sizing keys with their defaults and ranges", () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8').replace(/ {2,}/g, ' ');
    const { memoryMb, timeoutMinutes } = SIZING_RANGE;
    expect(readme).toContain(
      `| \`reconcileMemoryMb\`, \`archiveMemoryMb\` | \`${reconcile.memoryMb}\`, \`${archive.memoryMb}\` | memory of each function in MB, ${memoryMb.min}-${grouped(memoryMb.max)} `,
    );
    expect(readme).toContain(
      `| \`reconcileTimeoutMinutes\`, \`archiveTimeoutMinutes\` | \`${reconcile.timeoutMinutes}\`, \`${archive.timeoutMinutes}\` | timeout of each function in minutes, ${timeoutMinutes.min}-${timeoutMinutes.max} |`,
    );
  });

  it('the Sizing section: the defaults, the lowest memory, and how long before its timeout a run stops writing', () => {
    expect(sizing).toContain(
      `Reconcile ${grouped(reconcile.memoryMb)} MB and ${reconcile.timeoutMinutes} minutes; archive ${archive.memoryMb} MB and ${archive.timeoutMinutes} minutes, by default.`,
    );
    expect(sizing).toContain(`not below ${SIZING_RANGE.memoryMb.min} MB`);
    expect(sizing.replace(/\s+/g, ' ')).toContain(
      `stops starting writes ${STOP_BEFORE_TIMEOUT_MS / 1000} s before it (\`STOP_BEFORE_TIMEOUT_MS\`; at most a quarter of the time left)`,
    );
  });
});
