/**
 * The opsman-gitops stack: buckets, the credentials secret, the reconcile and archive functions, their schedules, the
 * S3 trigger and the upload of the repository's desired state, alarms, and (optionally) VPC placement. Least
 * privilege: each function gets exactly the actions and prefixes it uses.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { CfnOutput, Duration, SecretValue, Stack, type StackProps, TimeZone } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { Alarms, METRICS, metricsServiceOf } from './alarms.ts';
import { HouseFunction } from './function.ts';
import { acknowledgeFindings } from './nag.ts';
import { Network } from './network.ts';
import { grantArchive, grantReconcile } from './permissions.ts';
import { readSettings, SettingsError, type StackSettings } from './settings.ts';
import { PREFIXES, Storage } from './storage.ts';
import { deployDesiredState, scheduleFunction } from './triggers.ts';

/** Where the repository is (for bundling and the desired-state folder). */
export const PROJECT_ROOT = resolve(import.meta.dirname, '..');

/** The stack. */
export class OpsmanGitopsStack extends Stack {
  readonly settings: StackSettings;

  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, props);
    const settings = readSettings(this.node);
    this.settings = settings;
    if (settings.caBundle && !existsSync(resolve(PROJECT_ROOT, settings.caBundle))) {
      throw new SettingsError([`caBundle ${settings.caBundle} does not exist (path relative to the repository root)`]);
    }
    // A folder would pass synth and fail the bundling's `cp` with a message that names no context key.
    if (settings.caBundle && !statSync(resolve(PROJECT_ROOT, settings.caBundle)).isFile()) {
      throw new SettingsError([`caBundle ${settings.caBundle} is not a file: give the PEM bundle itself`]);
    }
    // BucketDeployment would otherwise fail with CannotFindAsset, naming a path but not the context key.
    if (!statSync(resolve(PROJECT_ROOT, settings.desiredStateDir), { throwIfNoEntry: false })?.isDirectory()) {
      throw new SettingsError([
        `desiredStateDir ${settings.desiredStateDir} is not a directory (path relative to the repository root)`,
      ]);
    }
    const storage = new Storage(this, 'Storage');

    // Created with an empty JSON object: the operator fills it once (docs/aws.md). Not a secret value.
    const credentials = new Secret(this, 'Credentials', {
      secretName: `${settings.secretNamePrefix}credentials`,
      description:
        'opsman-gitops Ops Manager API key. Fill once: aws secretsmanager put-secret-value --secret-id <this> --secret-string \'{"publicKey":"...","privateKey":"...","fingerprintKey":"<hex or base64, 16+ bytes: openssl rand -hex 32>"}\'',
      secretStringValue: SecretValue.unsafePlainText('{}'),
    });

    const queueProps = {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    };
    const failures = new Queue(this, 'FailedInvocations', queueProps);
    const scheduleDlq = new Queue(this, 'ScheduleDeadLetters', queueProps);
    const network = settings.vpc ? new Network(this, 'Network', settings.vpc) : undefined;

    const environment = {
      OPSMAN_BASE_URL: settings.opsManagerBaseUrl,
      OPSMAN_CREDENTIALS_SECRET_ID: credentials.secretArn,
      OPSMAN_MODE: settings.mode,
      DESIRED_STATE_BUCKET: storage.desired.bucketName,
      DESIRED_STATE_PREFIX: PREFIXES.desired,
      // The stack always writes the upload's snapshot manifest (triggers.ts): a desired state without one, or not
      // matching it, is an upload in progress. Both functions load the desired state, so both insist.
      DESIRED_STATE_SNAPSHOT: 'required',
      STATE_BUCKET: storage.data.bucketName,
      STATE_PREFIX: PREFIXES.state,
      ARCHIVE_PREFIX: PREFIXES.archive,
      // Per stack: the alarms of one installation must not count another's runs.
      POWERTOOLS_SERVICE_NAME: metricsServiceOf(this.stackName),
      POWERTOOLS_METRICS_NAMESPACE: METRICS.namespace,
      POWERTOOLS_LOG_LEVEL: 'INFO',
    };
    const common = {
      environment,
      onFailure: failures,
      logRetention: settings.logRetentionDays,
      projectRoot: PROJECT_ROOT,
      ...(settings.caBundle ? { caBundlePath: resolve(PROJECT_ROOT, settings.caBundle) } : {}),
      ...(network
        ? { vpc: { vpc: network.vpc, subnets: network.subnets, securityGroups: network.securityGroups } }
        : {}),
    };
    const reconcile = new HouseFunction(this, 'Reconcile', {
      ...common,
      entry: resolve(PROJECT_ROOT, 'lambdas/handlers/reconcile.ts'),
      description: 'opsman-gitops: plan/apply the desired state from S3 to Ops Manager, report drift',
      memorySize: settings.sizing.reconcile.memoryMb,
      timeout: Duration.minutes(settings.sizing.reconcile.timeoutMinutes),
      // One at a time: overlapping runs would only wait for each other. The S3 lease stays the real lock.
      reservedConcurrentExecutions: 1,
    });
    const archive = new HouseFunction(this, 'Archive', {
      ...common,
      entry: resolve(PROJECT_ROOT, 'lambdas/handlers/archive.ts'),
      description: 'opsman-gitops: daily archive of the version manifest and usage snapshots',
      memorySize: settings.sizing.archive.memoryMb,
      timeout: Duration.minutes(settings.sizing.archive.timeoutMinutes),
    });

    grantReconcile(reconcile, {
      storage,
      credentials,
      secretNamePrefix: settings.secretNamePrefix,
      mode: settings.mode,
    });
    grantArchive(archive, { storage, credentials });

    const tz = TimeZone.of(settings.timeZone);
    scheduleFunction(this, 'ReconcileSchedule', {
      fn: reconcile.fn,
      expression: settings.reconcileSchedule,
      timeZone: tz,
      deadLetterQueue: scheduleDlq,
      description: 'opsman-gitops: periodic reconcile (drift)',
    });
    scheduleFunction(this, 'ArchiveSchedule', {
      fn: archive.fn,
      expression: settings.archiveSchedule,
      timeZone: tz,
      deadLetterQueue: scheduleDlq,
      description: 'opsman-gitops: daily manifest and usage archive',
    });
    deployDesiredState(this, {
      bucket: storage.desired,
      reconcile: reconcile.fn,
      sourceDir: resolve(PROJECT_ROOT, settings.desiredStateDir),
    });

    new Alarms(this, 'Alarms', {
      functions: { Reconcile: reconcile.fn, Archive: archive.fn },
      queues: { FailedInvocations: failures, ScheduleDeadLetters: scheduleDlq },
      noSuccessHours: settings.noSuccessHours,
      service: metricsServiceOf(this.stackName),
      ...(settings.alarmEmail ? { alarmEmail: settings.alarmEmail } : {}),
    });

    new CfnOutput(this, 'CredentialsSecretArn', { value: credentials.secretArn, description: 'Fill this secret once' });
    new CfnOutput(this, 'DesiredStateBucketName', { value: storage.desired.bucketName });
    new CfnOutput(this, 'DataBucketName', { value: storage.data.bucketName });
    new CfnOutput(this, 'ReconcileFunctionName', { value: reconcile.fn.functionName });

    acknowledgeFindings(this, {
      storage,
      credentials,
      failures,
      scheduleDlq,
      functions: [reconcile, archive],
      settings,
    });
  }
}
