/**
 * What starts the functions: EventBridge Scheduler schedules (retried, then dead-lettered), and the GitOps path
 * (BucketDeployment of the repository's desired-state folder, whose YAML uploads notify the reconcile function).
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

/**
 * Uploads the desired-state folder under the desired prefix (pruning what left git) and notifies the reconcile
 * function of every created `.yaml`/`.yml` object there. The notification exists before the first upload.
 */
export function deployDesiredState(
  scope: Construct,
  props: { bucket: IBucket; reconcile: IFunction; sourceDir: string },
): BucketDeployment {
  for (const suffix of ['.yaml', '.yml']) {
    props.bucket.addEventNotification(EventType.OBJECT_CREATED, new LambdaDestination(props.reconcile), {
      prefix: PREFIXES.desired,
      suffix,
    });
  }
  const deployment = new BucketDeployment(scope, 'DesiredStateDeployment', {
    sources: [Source.asset(props.sourceDir, { exclude: DEPLOY_EXCLUDES })],
    destinationBucket: props.bucket,
    destinationKeyPrefix: PREFIXES.desired,
    // Prune deletes everything under the prefix that is not in git: state and archives live in the data bucket.
    prune: true,
    memoryLimit: 256,
  });
  const notifications = props.bucket.node.tryFindChild('Notifications');
  if (notifications) deployment.node.addDependency(notifications);
  return deployment;
}
