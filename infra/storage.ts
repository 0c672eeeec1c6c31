/**
 * The buckets: desired state (what `BucketDeployment` uploads from git), data (state and lease under `state/`,
 * archives under `archive/`, with lifecycle rules), and the access-log bucket both log to. All versioned (except the
 * log bucket), S3-encrypted, public access blocked, SSL enforced. Data never lives under the desired-state prefix:
 * the deployment prunes it and the notification would fire on it.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership, StorageClass } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

/** Prefixes inside the buckets (also passed to the functions as environment variables). */
export const PREFIXES = {
  desired: 'desired-state/',
  state: 'state/',
  archive: 'archive/',
  /** The run reports inside the archive prefix (lambdas/core/report.ts reportKey): all the reconcile writes there. */
  reports: 'archive/reports/',
  /** The desired-state cache (fixed in the handlers: lambdas/handlers/config.ts DESIRED_CACHE_PREFIX). */
  desiredCache: 'cache/desired/',
} as const;

/** The three buckets. */
export class Storage extends Construct {
  readonly desired: Bucket;
  readonly data: Bucket;
  readonly accessLogs: Bucket;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const common = {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      removalPolicy: RemovalPolicy.RETAIN,
    };
    this.accessLogs = new Bucket(this, 'AccessLogs', {
      ...common,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(365) }],
    });
    this.desired = new Bucket(this, 'DesiredState', {
      ...common,
      versioned: true,
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: 'desired-state-bucket/',
      lifecycleRules: [
        {
          id: 'old-desired-versions',
          noncurrentVersionExpiration: Duration.days(365),
          abortIncompleteMultipartUploadAfter: Duration.days(7),
        },
      ],
    });
    this.data = new Bucket(this, 'Data', {
      ...common,
      versioned: true,
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: 'data-bucket/',
      lifecycleRules: [
        // State is rewritten every run: keep a month of old versions to recover from a bad write.
        { id: 'state-versions', prefix: PREFIXES.state, noncurrentVersionExpiration: Duration.days(30) },
        // Run reports are many and small; after 90 days they are audit material only.
        {
          id: 'run-reports',
          prefix: PREFIXES.reports,
          transitions: [{ storageClass: StorageClass.INFREQUENT_ACCESS, transitionAfter: Duration.days(90) }],
          expiration: Duration.days(800),
        },
        // Desired-state cache entries are rebuilt on a miss: a month of unchanged desired state is plenty.
        {
          id: 'desired-cache',
          prefix: PREFIXES.desiredCache,
          expiration: Duration.days(30),
          noncurrentVersionExpiration: Duration.days(1),
        },
        // Manifests and usage snapshots are kept (content-addressed, small); old versions of pointers expire.
        {
          id: 'archive-versions',
          prefix: PREFIXES.archive,
          noncurrentVersionExpiration: Duration.days(90),
          abortIncompleteMultipartUploadAfter: Duration.days(7),
        },
      ],
    });
  }
}
