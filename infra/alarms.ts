/**
 * Alarms to one SNS topic (SSL enforced, optional email subscription): function errors, drift detected, targets
 * failed, changes blocked, runs failed, events rejected, messages in the failure queues, and no successful run for N hours (missing data breaches: a silent
 * function is a broken one). Metric names are those of lambdas/handlers/metrics.ts.
 */
import { Aws, Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, type IMetric, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DEFAULT_STACK_NAME } from './settings.ts';

/**
 * Namespace of the handlers' EMF metrics (POWERTOOLS_METRICS_NAMESPACE) and the `service` dimension (and
 * POWERTOOLS_SERVICE_NAME) of the default stack; other stacks get {@link metricsServiceOf}.
 */
export const METRICS = { namespace: 'OpsmanGitops', service: 'opsman-gitops' } as const;

/**
 * The `service` dimension of one stack's metrics. Every stack in an account and region writes to the one namespace
 * (one stack per Ops Manager installation, `-c stackName=...`): with a shared value, one installation's runs would
 * feed another's alarms (its LastSuccess keeping the other's NoSuccessfulRun quiet while that one fails, its drift
 * firing the other's DriftDetected). The default stack keeps `opsman-gitops`; any other adds its name.
 */
export function metricsServiceOf(stackName: string): string {
  return stackName === DEFAULT_STACK_NAME ? METRICS.service : `${METRICS.service}-${stackName}`;
}

/** What to watch. */
export interface AlarmsProps {
  functions: Record<string, IFunction>;
  queues: Record<string, IQueue>;
  alarmEmail?: string;
  noSuccessHours: number;
  /** The `service` dimension the stack's functions emit ({@link metricsServiceOf}). */
  service: string;
}

/** The topic and the alarms. */
export class Alarms extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];
  readonly #service: string;

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id);
    this.#service = props.service;
    this.topic = new Topic(this, 'Topic', { displayName: 'opsman-gitops alarms', enforceSSL: true });
    // The topic policy enforceSSL writes replaces SNS's default one, whose allow for the account is what let alarms
    // publish: without a statement of its own CloudWatch is refused ("no resource-based policy allows the SNS:Publish
    // action", in each alarm's history only) and no email is ever sent. Only this account's alarms, in this region.
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToPublish',
        effect: Effect.ALLOW,
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnLike: { 'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:*` },
        },
      }),
    );
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));

    for (const [name, fn] of Object.entries(props.functions)) {
      this.#add(`${name}Errors`, fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }), {
        // AWS/Lambda Errors counts invocations that threw or timed out, not throttles: an asynchronous event throttled
        // until its maximum age goes to the on-failure queue, which the FailedInvocations alarm watches.
        description: `The ${name} function failed (threw or timed out).`,
      });
    }
    this.#add('DriftDetected', this.#run('DriftDetected'), {
      description: 'Live Ops Manager configuration differs from git (someone changed it by hand, or observe mode).',
    });
    this.#add('TargetsFailed', this.#run('TargetsFailed'), {
      description: 'At least one project or organization could not be read, planned or applied.',
    });
    // A blocked change writes nothing until someone acts (a secretRef whose secret or key is missing or unreadable, a
    // team missing, a safety gate), yet the run ends ok and LastSuccess is emitted: without this nothing pages, and the
    // config stays as it was on every run. Fires on each run while the change stays blocked, as DriftDetected does.
    this.#add('Blocked', this.#run('Blocked'), {
      description:
        'A change was not written until something is fixed (a secret reference that cannot be resolved, a team missing, a safety gate): see its "change blocked" log line.',
    });
    // A run that fails for good (invalid desired state, credentials refused, a state from a newer version) is answered,
    // not thrown, so neither the Errors alarm nor a queue sees it: without these it waits for NoSuccessfulRun. RunFailed
    // counts every run that did not complete, a retried one too (then beside the Errors alarm); a skipped run is none.
    this.#add('RunFailed', this.#run('RunFailed'), {
      description: 'A run did not complete (see its "run failed" log line for the code and message).',
    });
    this.#add('EventRejected', this.#run('EventRejected'), {
      description:
        'An invocation was refused before any run: its event is malformed (a schedule payload edited by hand?).',
    });
    for (const [name, queue] of Object.entries(props.queues)) {
      this.#add(
        `${name}Messages`,
        queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
        {
          description: `Invocations that failed for good are waiting in the ${name} queue.`,
        },
      );
    }
    // Only reconcile runs emit LastSuccess (lambdas/handlers/metrics.ts): the archive's daily success must not count.
    const hourly = this.#run('LastSuccess', Duration.hours(1));
    this.#add('NoSuccessfulRun', hourly, {
      description: `No successful reconcile run for ${props.noSuccessHours} hours.`,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: props.noSuccessHours,
      treatMissingData: TreatMissingData.BREACHING,
    });
  }

  /** A run metric of the handlers, summed per period. */
  #run(name: string, period = Duration.minutes(15)): Metric {
    return new Metric({
      namespace: METRICS.namespace,
      metricName: name,
      dimensionsMap: { service: this.#service },
      statistic: 'Sum',
      period,
    });
  }

  #add(
    id: string,
    metric: IMetric,
    options: {
      description: string;
      comparisonOperator?: ComparisonOperator;
      evaluationPeriods?: number;
      treatMissingData?: TreatMissingData;
    },
  ): void {
    const alarm = new Alarm(this, id, {
      metric,
      alarmDescription: options.description,
      threshold: 1,
      evaluationPeriods: options.evaluationPeriods ?? 1,
      comparisonOperator: options.comparisonOperator ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: options.treatMissingData ?? TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new SnsAction(this.topic));
    alarm.addOkAction(new SnsAction(this.topic));
    this.alarms.push(alarm);
  }
}
