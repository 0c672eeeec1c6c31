/**
 * cdk-nag (v3, AwsSolutions) acknowledgements, each with its reason, in one place so they can be reviewed together.
 * They are narrow: on the construct that raises the finding, and for IAM4/IAM5 on the exact policy or wildcard.
 */
import { type Stack, Validations } from 'aws-cdk-lib';
import { Policy } from 'aws-cdk-lib/aws-iam';
import type { CfnBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';
import type { HouseFunction } from './function.ts';
import type { StackSettings } from './settings.ts';
import { PREFIXES, type Storage } from './storage.ts';

/** What the acknowledgements attach to. */
export interface NagTargets {
  storage: Storage;
  credentials: ISecret;
  failures: IQueue;
  scheduleDlq: IQueue;
  /** The reconcile function, then the archive function. */
  functions: [HouseFunction, HouseFunction];
  settings: StackSettings;
}

const ack = (scope: IConstruct, id: string, reason: string) => Validations.of(scope).acknowledge({ id, reason });

const BASIC_EXECUTION =
  'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]';

/** Acknowledges the findings this design accepts. */
export function acknowledgeFindings(stack: Stack, t: NagTargets): void {
  const arnOf = (bucket: IConstruct) => `<${stack.getLogicalId(bucket.node.defaultChild as CfnBucket)}.Arn>`;
  const desiredArn = arnOf(t.storage.desired);
  const dataArn = arnOf(t.storage.data);

  ack(
    t.storage.accessLogs,
    'AwsSolutions-S1',
    'This is the access-log bucket of the other two; logging it into itself would loop and another log bucket only moves the finding.',
  );
  ack(
    t.credentials,
    'AwsSolutions-SMG4',
    'An Ops Manager API key cannot be rotated by Secrets Manager without a custom rotation function that calls Ops Manager; operators rotate it in Ops Manager and update the secret (docs/aws.md), and the 5-minute cache picks it up.',
  );
  for (const queue of [t.failures, t.scheduleDlq]) {
    ack(
      queue,
      'AwsSolutions-SQS3',
      'This queue is itself the dead-letter / on-failure destination; a dead-letter queue of a dead-letter queue adds nothing. An alarm fires on any message in it.',
    );
  }

  for (const fn of t.functions) {
    ack(
      fn.role,
      `AwsSolutions-IAM5[Resource::${desiredArn}/${PREFIXES.desired}*]`,
      'Reads the YAML files under the desired-state prefix; their names are the repository files, unknown at synth. Read-only, one prefix.',
    );
    ack(
      fn.role,
      `AwsSolutions-IAM5[Resource::${dataArn}/${PREFIXES.desiredCache}*]`,
      'Reads and writes desired-state cache entries, named by a content hash made at run time, only under the cache prefix.',
    );
    if (fn.vpcPolicy) {
      // On the network-interface policy alone: a `*` resource granted on the role itself is still a finding.
      ack(
        fn.vpcPolicy,
        'AwsSolutions-IAM5[Resource::*]',
        "Lambda manages a VPC function's network interfaces with its role (ec2:CreateNetworkInterface, Describe*, Delete..., Assign/UnassignPrivateIpAddresses), which take no narrower resource; the six actions of AWSLambdaVPCAccessExecutionRole, without its logs:* on every log group.",
      );
    }
  }
  const [reconcile, archive] = t.functions;
  ack(
    archive.role,
    `AwsSolutions-IAM5[Resource::${dataArn}/${PREFIXES.archive}*]`,
    'Reads and writes archive objects whose keys are made at run time (sha256 content addresses, dated usage snapshots and its run reports), only under the archive prefix.',
  );
  ack(
    reconcile.role,
    `AwsSolutions-IAM5[Resource::${dataArn}/${PREFIXES.reports}*]`,
    'Writes (PutObject only) its run reports, keyed by date and run id at run time, only under the reports prefix of the archive.',
  );
  ack(
    reconcile.role,
    `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${t.settings.secretNamePrefix}*]`,
    "GetSecretValue only, on the secret-name prefix the desired state's secretRefs must use; the operator creates those secrets, so their names are unknown at synth.",
  );

  // Roles and handlers that aws-cdk-lib creates itself.
  for (const child of stack.node.children) {
    const id = child.node.id;
    if (id.startsWith('SchedulerRoleForTarget')) {
      // Only for the function this role's policy invokes: an acknowledgement for the other one would let a grant to
      // invoke it pass unseen.
      const defaultPolicy = child.node.tryFindChild('DefaultPolicy');
      const policy =
        defaultPolicy instanceof Policy ? JSON.stringify(stack.resolve(defaultPolicy.document.toJSON())) : '';
      for (const fn of t.functions) {
        const logicalId = stack.getLogicalId(fn.fn.node.defaultChild as never);
        if (!policy.includes(`"${logicalId}"`)) continue;
        ack(
          child,
          `AwsSolutions-IAM5[Resource::<${logicalId}.Arn>:*]`,
          "aws-cdk-lib's LambdaInvoke target grants lambda:InvokeFunction on the function and its versions (ARN:*); it can invoke nothing else.",
        );
      }
    } else if (id.startsWith('BucketNotificationsHandler')) {
      ack(
        child,
        BASIC_EXECUTION,
        "aws-cdk-lib's handler that writes the desired-state bucket's notification configuration during deployment; it only writes its own logs with this policy.",
      );
    } else if (id.startsWith('Custom::CDKBucketDeployment')) {
      ack(
        child,
        BASIC_EXECUTION,
        "aws-cdk-lib's BucketDeployment handler (deploy time only); the policy only lets it write its logs.",
      );
      ack(
        child,
        'AwsSolutions-L1',
        "The BucketDeployment handler's runtime is chosen by aws-cdk-lib (Python with the AWS CLI layer) and moves with aws-cdk-lib upgrades.",
      );
      for (const action of ['s3:GetObject*', 's3:GetBucket*', 's3:List*', 's3:DeleteObject*', 's3:Abort*']) {
        ack(
          child,
          `AwsSolutions-IAM5[Action::${action}]`,
          "aws-cdk-lib's BucketDeployment grants read on the asset bucket and read/write on the destination bucket so it can copy and prune; scoped to those two buckets.",
        );
      }
      ack(
        child,
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
        'The CDK bootstrap asset bucket, whose object keys are asset hashes: BucketDeployment reads the zipped desired-state folder from it.',
      );
      ack(
        child,
        `AwsSolutions-IAM5[Resource::${desiredArn}/*]`,
        'BucketDeployment writes and prunes under the desired-state prefix of this bucket; aws-cdk-lib grants it on the bucket. Nothing else lives in this bucket.',
      );
    }
  }
}
