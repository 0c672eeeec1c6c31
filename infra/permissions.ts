/**
 * Least privilege, per function: exactly the actions and prefixes each one uses (docs/aws.md, IAM). State and lease
 * are two fixed keys, so they get no wildcard; archive keys are made at run time, so they get their prefix only. The
 * reconcile writes state and lease only when its deployment may apply: observe and plan read the state and take no
 * lease (lambdas/core/run.ts), so under those modes its role cannot change them either.
 */
import { Aws } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Mode } from '../lambdas/core/model.ts';
import type { HouseFunction } from './function.ts';
import { PREFIXES } from './storage.ts';

/** The resources the grants refer to. */
export interface GrantTargets {
  storage: { desired: IBucket; data: IBucket };
  credentials: ISecret;
}

/** Read the YAML under the desired-state prefix (list that prefix only, get its objects). */
function readDesired(fn: HouseFunction, desired: IBucket): void {
  fn.role.addToPolicy(
    new PolicyStatement({
      actions: ['s3:ListBucket'],
      resources: [desired.bucketArn],
      conditions: { StringLike: { 's3:prefix': [PREFIXES.desired, `${PREFIXES.desired}*`] } },
    }),
  );
  fn.role.addToPolicy(
    new PolicyStatement({ actions: ['s3:GetObject'], resources: [desired.arnForObjects(`${PREFIXES.desired}*`)] }),
  );
}

/** List the data bucket: without it a missing key (a first run's state, an archive not yet written) is a 403, not a 404. */
function listData(fn: HouseFunction, data: IBucket): void {
  fn.role.addToPolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [data.bucketArn] }));
}

/** Read and write archive objects (manifests, usage snapshots, its own run reports). */
function useArchive(fn: HouseFunction, data: IBucket): void {
  fn.role.addToPolicy(
    new PolicyStatement({
      actions: ['s3:GetObject', 's3:PutObject'],
      resources: [data.arnForObjects(`${PREFIXES.archive}*`)],
    }),
  );
}

/**
 * Read the credentials secret: GetSecretValue only (grantRead adds DescribeSecret, which no function calls). The
 * secret uses the AWS-managed key, so no KMS grant is needed.
 */
function readCredentials(fn: HouseFunction, credentials: ISecret): void {
  fn.role.addToPolicy(
    new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [credentials.secretArn] }),
  );
}

/** Read and write desired-state cache entries (content-addressed keys made at run time: the prefix only). */
function useDesiredCache(fn: HouseFunction, data: IBucket): void {
  fn.role.addToPolicy(
    new PolicyStatement({
      actions: ['s3:GetObject', 's3:PutObject'],
      resources: [data.arnForObjects(`${PREFIXES.desiredCache}*`)],
    }),
  );
}

/**
 * The reconcile function: desired state, state (and, in apply mode, its writes and the lease), its run reports,
 * credentials and the secretRef secrets. It never archives (only the archive function runs that command), so under
 * the archive prefix it may only write its reports: it cannot rewrite the archived manifests and usage.
 */
export function grantReconcile(fn: HouseFunction, t: GrantTargets & { secretNamePrefix: string; mode: Mode }): void {
  readDesired(fn, t.storage.desired);
  listData(fn, t.storage.data);
  fn.role.addToPolicy(
    new PolicyStatement({
      actions: ['s3:PutObject'],
      resources: [t.storage.data.arnForObjects(`${PREFIXES.reports}*`)],
    }),
  );
  useDesiredCache(fn, t.storage.data);
  readCredentials(fn, t.credentials);
  const stateKey = t.storage.data.arnForObjects(`${PREFIXES.state}state.json`);
  const leaseKey = t.storage.data.arnForObjects(`${PREFIXES.state}lease.json`);
  if (t.mode === 'apply') {
    fn.role.addToPolicy(
      new PolicyStatement({ actions: ['s3:GetObject', 's3:PutObject'], resources: [stateKey, leaseKey] }),
    );
    fn.role.addToPolicy(new PolicyStatement({ actions: ['s3:DeleteObject'], resources: [leaseKey] }));
  } else {
    fn.role.addToPolicy(new PolicyStatement({ actions: ['s3:GetObject'], resources: [stateKey] }));
  }
  fn.role.addToPolicy(
    new PolicyStatement({
      actions: ['secretsmanager:GetSecretValue'],
      resources: [`arn:${Aws.PARTITION}:secretsmanager:${Aws.REGION}:${Aws.ACCOUNT_ID}:secret:${t.secretNamePrefix}*`],
    }),
  );
}

/** The archive function: desired state (settings, pinned manifest), its cache, archive, credentials. No state, no lease. */
export function grantArchive(fn: HouseFunction, t: GrantTargets): void {
  readDesired(fn, t.storage.desired);
  listData(fn, t.storage.data);
  useArchive(fn, t.storage.data);
  useDesiredCache(fn, t.storage.data);
  readCredentials(fn, t.credentials);
}
