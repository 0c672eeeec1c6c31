// Scenario: CDK context validation, table-driven: defaults, accepted values, and precise messages for bad ones.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { readSettings, SETTINGS_DEFAULTS, SettingsError } from '../../infra/settings.ts';

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
    });
  });

  it('accepts a full context, lists as arrays or comma strings', () => {
    const s = settingsOf({
      opsManagerBaseUrl: 'https://om.corp:8443/api/public/v1.0',
      reconcileSchedule: 'rate(5 minutes)',
      archiveSchedule: 'cron(0 3 * * ? *)',
      timeZone: 'Europe/Paris',
      mode: 'observe',
      alarmEmail: 'dba@corp.example',
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
      { reconcileSchedule: 'every 5 minutes' },
      'reconcileSchedule must be rate(N minutes|hours|days), cron(...) or at(...)',
    ],
    [{ archiveSchedule: 'rate(1 fortnight)' }, 'archiveSchedule must be'],
    [{ timeZone: 'Paris time' }, 'timeZone must be an IANA time zone'],
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
        routeTableIds: 'rtb-1,rtb-2',
      },
      'routeTableIds must have one entry per subnet id',
    ],
    [{ noSuccessHours: 48 }, 'noSuccessHours must be a whole number from 1 to 24'],
    [{ secretNamePrefix: 'opsman' }, 'secretNamePrefix must be a Secrets Manager name prefix ending in /'],
    [{ mode: 3 }, 'mode must be a string'],
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

describe('the stack refuses a missing CA bundle', () => {
  it('names the path', async () => {
    const { buildApp } = await import('../../infra/build-app.ts');
    expect(() =>
      buildApp(new App({ outdir, context: { 'aws:cdk:bundling-stacks': [], caBundle: 'certs/missing-ca.pem' } })),
    ).toThrow('caBundle certs/missing-ca.pem does not exist (path relative to the repository root)');
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
