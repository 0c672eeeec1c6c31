/**
 * The opsman-gitops stack: buckets, the credentials secret, the reconcile and archive functions, their schedules, the
 * S3 trigger and the upload of the repository's desired state, alarms, and (optionally) VPC placement. Least
 * privilege: each function gets exactly the actions and prefixes it uses.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Aws, CfnOutput, Duration, SecretValue, Stack, type StackProps, TimeZone } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { EventType } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { LambdaDestination } from 'aws-cdk-lib/aws-s3-notifications';
import { ContextAttribute, Schedule, ScheduleExpression, ScheduleTargetInput } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { Alarms, METRICS } from './alarms.ts';
import { HouseFunction } from './function.ts';
import { acknowledgeFindings } from './nag.ts';
import { Network } from './network.ts';
import { readSettings, SettingsError, type StackSettings } from './settings.ts';
import { PREFIXES, Storage } from './storage.ts';

/** Files of the desired-state folder never uploaded: the demo's fake secrets and any JSON secrets file. */
export const DEPLOY_EXCLUDES = [
  'local-secrets.json',
  '**/local-secrets.json',
  '*secret*.json',
  '**/*secret*.json',
  '.*',
];

/**
 * Sizing. Memory: 256 MB for both; the work is I/O-bound (HTTP to Ops Manager, S3), and the bench measured the handler's
 * cold import well under that; raise it if `npm run bench` says otherwise. Timeouts: reconcile 10 minutes (hundreds of
 * projects at 8 concurrent requests), archive 5 minutes.
 */
export const SIZING = {
  reconcile: { memorySize: 256, timeout: Duration.minutes(10) },
  archive: { memorySize: 256, timeout: Duration.minutes(5) },
} as const;

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
    const storage = new Storage(this, 'Storage');

    // Created with an empty JSON object: the operator fills it once (docs/aws.md). Not a secret value.
    const credentials = new Secret(this, 'Credentials', {
      secretName: `${settings.secretNamePrefix}credentials`,
      description:
        'opsman-gitops Ops Manager API key. Fill once: aws secretsmanager put-secret-value --secret-id <this> --secret-string \'{"publicKey":"...","privateKey":"...","fingerprintKey":"<32+ random characters>"}\'',
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
      STATE_BUCKET: storage.data.bucketName,
      STATE_PREFIX: PREFIXES.state,
      ARCHIVE_PREFIX: PREFIXES.archive,
      POWERTOOLS_SERVICE_NAME: METRICS.service,
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
      ...SIZING.reconcile,
      // One at a time: overlapping runs would only wait for each other. The S3 lease stays the real lock.
      reservedConcurrentExecutions: 1,
    });
    const archive = new HouseFunction(this, 'Archive', {
      ...common,
      entry: resolve(PROJECT_ROOT, 'lambdas/handlers/archive.ts'),
      description: 'opsman-gitops: daily archive of the version manifest and usage snapshots',
      ...SIZING.archive,
    });

    // Least privilege, per prefix.
    const readDesired = (fn: HouseFunction) => {
      fn.role.addToPolicy(
        new PolicyStatement({
          actions: ['s3:ListBucket'],
          resources: [storage.desired.bucketArn],
          conditions: { StringLike: { 's3:prefix': [PREFIXES.desired, `${PREFIXES.desired}*`] } },
        }),
      );
      fn.role.addToPolicy(
        new PolicyStatement({
          actions: ['s3:GetObject'],
          resources: [storage.desired.arnForObjects(`${PREFIXES.desired}*`)],
        }),
      );
    };
    const useArchive = (fn: HouseFunction) => {
      fn.role.addToPolicy(
        new PolicyStatement({
          actions: ['s3:GetObject', 's3:PutObject'],
          resources: [storage.data.arnForObjects(`${PREFIXES.archive}*`)],
        }),
      );
    };
    // Without s3:ListBucket a missing key answers 403 instead of 404, and "no state yet" would look like an error.
    const listData = (fn: HouseFunction) =>
      fn.role.addToPolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [storage.data.bucketArn] }));
    const readSecrets = (fn: HouseFunction) => credentials.grantRead(fn.role);

    readDesired(reconcile);
    useArchive(reconcile);
    listData(reconcile);
    readSecrets(reconcile);
    // State and lease are two fixed keys: no wildcard.
    reconcile.role.addToPolicy(
      new PolicyStatement({
        actions: ['s3:GetObject', 's3:PutObject'],
        resources: [
          storage.data.arnForObjects(`${PREFIXES.state}state.json`),
          storage.data.arnForObjects(`${PREFIXES.state}lease.json`),
        ],
      }),
    );
    reconcile.role.addToPolicy(
      new PolicyStatement({
        actions: ['s3:DeleteObject'],
        resources: [storage.data.arnForObjects(`${PREFIXES.state}lease.json`)],
      }),
    );
    // The desired state's secretRefs name secrets under the prefix.
    reconcile.role.addToPolicy(
      new PolicyStatement({
        actions: ['secretsmanager:GetSecretValue'],
        resources: [
          `arn:${Aws.PARTITION}:secretsmanager:${Aws.REGION}:${Aws.ACCOUNT_ID}:secret:${settings.secretNamePrefix}*`,
        ],
      }),
    );
    readDesired(archive);
    useArchive(archive);
    listData(archive);
    readSecrets(archive);

    // Schedules (EventBridge Scheduler): retried, then dead-lettered.
    const tz = TimeZone.of(settings.timeZone);
    const schedule = (name: string, fn: HouseFunction, expression: string, description: string) =>
      new Schedule(this, name, {
        description,
        schedule: ScheduleExpression.expression(expression, tz),
        target: new LambdaInvoke(fn.fn, {
          input: ScheduleTargetInput.fromObject({
            source: 'aws.scheduler',
            'detail-type': 'Scheduled Event',
            resources: [ContextAttribute.scheduleArn],
            time: ContextAttribute.scheduledTime,
          }),
          retryAttempts: 3,
          maxEventAge: Duration.hours(1),
          deadLetterQueue: scheduleDlq,
        }),
      });
    schedule('ReconcileSchedule', reconcile, settings.reconcileSchedule, 'opsman-gitops: periodic reconcile (drift)');
    schedule('ArchiveSchedule', archive, settings.archiveSchedule, 'opsman-gitops: daily manifest and usage archive');

    // GitOps path: the deployment uploads YAML under the desired prefix; each created YAML object triggers a run.
    for (const suffix of ['.yaml', '.yml']) {
      storage.desired.addEventNotification(EventType.OBJECT_CREATED, new LambdaDestination(reconcile.fn), {
        prefix: PREFIXES.desired,
        suffix,
      });
    }
    const deployment = new BucketDeployment(this, 'DesiredStateDeployment', {
      sources: [Source.asset(resolve(PROJECT_ROOT, settings.desiredStateDir), { exclude: DEPLOY_EXCLUDES })],
      destinationBucket: storage.desired,
      destinationKeyPrefix: PREFIXES.desired,
      // Prune deletes everything under the prefix that is not in git: state and archives live in the data bucket.
      prune: true,
      memoryLimit: 256,
    });
    const notifications = storage.desired.node.tryFindChild('Notifications');
    if (notifications) deployment.node.addDependency(notifications);

    new Alarms(this, 'Alarms', {
      functions: { Reconcile: reconcile.fn, Archive: archive.fn },
      queues: { FailedInvocations: failures, ScheduleDeadLetters: scheduleDlq },
      noSuccessHours: settings.noSuccessHours,
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
