/**
 * What starts the functions: EventBridge Scheduler schedules (retried, then dead-lettered), and the GitOps path
 * (BucketDeployment of the repository's desired-state folder, then of its snapshot manifest, whose upload notifies the
 * reconcile function).
 */
import { Duration, type TimeZone } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { EventType, type IBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { LambdaDestination } from 'aws-cdk-lib/aws-s3-notifications';
import { ContextAttribute, Schedule, ScheduleExpression, ScheduleTargetInput } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { SNAPSHOT_FILE, snapshotManifestText } from '../lambdas/core/desired/snapshot-manifest.ts';
import { desiredStateSnapshot } from './desired-snapshot.ts';
import { PREFIXES } from './storage.ts';

/** Files of the desired-state folder never uploaded: the demo's fake secrets and any JSON secrets file. */
export const DEPLOY_EXCLUDES = [
  'local-secrets.json',
  '**/local-secrets.json',
  '*secret*.json',
  '**/*secret*.json',
  '.*',
];

/** Retries of a scheduled invocation before it goes to the dead-letter queue. */
export const SCHEDULE_RETRY = { retryAttempts: 3, maxEventAge: Duration.hours(1) };

/**
 * A schedule invoking `fn` with an EventBridge-style payload (`source: aws.scheduler`, the schedule ARN, the scheduled
 * time), which the handlers recognise.
 */
export function scheduleFunction(
  scope: Construct,
  id: string,
  props: { fn: IFunction; expression: string; timeZone: TimeZone; deadLetterQueue: IQueue; description: string },
): Schedule {
  return new Schedule(scope, id, {
    description: props.description,
    schedule: ScheduleExpression.expression(props.expression, props.timeZone),
    target: new LambdaInvoke(props.fn, {
      input: ScheduleTargetInput.fromObject({
        source: 'aws.scheduler',
        'detail-type': 'Scheduled Event',
        resources: [ContextAttribute.scheduleArn],
        time: ContextAttribute.scheduledTime,
      }),
      ...SCHEDULE_RETRY,
      deadLetterQueue: props.deadLetterQueue,
    }),
  });
}

/** The S3 key of the upload's snapshot manifest. */
export const SNAPSHOT_KEY = `${PREFIXES.desired}${SNAPSHOT_FILE}`;

/** The two deployments of the desired state: the files, then their snapshot manifest. */
export interface DesiredStateDeployments {
  files: BucketDeployment;
  manifest: BucketDeployment;
}

/**
 * Uploads the desired-state folder under the desired prefix (pruning what left git), then its snapshot manifest, and
 * notifies the reconcile function of the manifest's creation only. The notification exists before the first upload.
 *
 * S3 has no atomic multi-object write: a run started by the first file's notification can read new files next to old
 * ones. The manifest lists every uploaded file with its SHA-256 and is written by a second deployment that
 * CloudFormation runs only after the first one (sync and prune) has finished, so a run that finds the files matching
 * the manifest read one whole upload; the manifest's notification starts the run that sees the finished upload.
 */
export function deployDesiredState(
  scope: Construct,
  props: { bucket: IBucket; reconcile: IFunction; sourceDir: string },
): DesiredStateDeployments {
  // The manifest alone: it is written after every upload that changes a file (it hashes them all), so its run sees each
  // upload whole. Notifying each YAML key as well would start one more full run per uploaded file (a first deployment
  // of 500 files: 500 runs, one at a time under reserved concurrency 1, each reading all of Ops Manager, the late ones
  // expiring into FailedInvocations), and under DESIRED_STATE_SNAPSHOT=required each either stops in transit or
  // repeats the manifest's run.
  props.bucket.addEventNotification(EventType.OBJECT_CREATED, new LambdaDestination(props.reconcile), {
    prefix: SNAPSHOT_KEY,
    suffix: '.json',
  });
  // Computed from the same folder and excludes as the asset below, before CDK stages it.
  const manifest = desiredStateSnapshot(props.sourceDir, DEPLOY_EXCLUDES);
  const files = new BucketDeployment(scope, 'DesiredStateDeployment', {
    sources: [Source.asset(props.sourceDir, { exclude: DEPLOY_EXCLUDES })],
    destinationBucket: props.bucket,
    destinationKeyPrefix: PREFIXES.desired,
    // Prune deletes everything under the prefix that is not in git: state and archives live in the data bucket.
    prune: true,
    // The manifest is not in this source: without this exclude of the sync, its prune would delete the manifest, and
    // a redeployment of the files alone (same content, so the manifest deployment does not run again) would leave
    // the bucket without one.
    exclude: [SNAPSHOT_FILE],
    memoryLimit: 256,
  });
  // Same memory limit: both deployments share aws-cdk-lib's singleton handler (each still declares an AWS CLI layer
  // version; the handler uses the first one's).
  const manifestDeployment = new BucketDeployment(scope, 'DesiredStateSnapshotDeployment', {
    sources: [Source.data(SNAPSHOT_FILE, snapshotManifestText(manifest))],
    destinationBucket: props.bucket,
    destinationKeyPrefix: PREFIXES.desired,
    // Only adds the manifest: a prune here would delete the files the first deployment uploaded.
    prune: false,
    memoryLimit: 256,
  });
  manifestDeployment.node.addDependency(files);
  const notifications = props.bucket.node.tryFindChild('Notifications');
  if (notifications) {
    files.node.addDependency(notifications);
    manifestDeployment.node.addDependency(notifications);
  }
  return { files, manifest: manifestDeployment };
}
