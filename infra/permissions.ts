/**
 * Least privilege, per function: exactly the actions and prefixes each one uses (docs/aws.md, IAM). State and lease
 * are two fixed keys, so they get no wildcard; archive keys are made at run time, so they get their prefix only.
 */
import { Aws } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
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

/** Read and write archive objects; list the data bucket (without it a missing key is a 403, not a 404). */
function useArchive(fn: HouseFunction, data: IBucket): void {
  fn.role.addToPolicy(
    new PolicyStatement({
      actions: ['s3:GetObject', 's3:PutObject'],
      resources: [data.arnForObjects(`${PREFIXES.archive}*`)],
    }),
  );
  fn.role.addToPolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [data.bucketArn] }));
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

/** The reconcile function: desired state, state and lease, archive, credentials and the secretRef secrets. */
export function grantReconcile(fn: HouseFunction, t: GrantTargets & { secretNamePrefix: string }): void {
  readDesired(fn, t.storage.desired);
  useArchive(fn, t.storage.data);
  useDesiredCache(fn, t.storage.data);
  t.credentials.grantRead(fn.role);
  const stateKey = t.storage.data.arnForObjects(`${PREFIXES.state}state.json`);
  const leaseKey = t.storage.data.arnForObjects(`${PREFIXES.state}lease.json`);
  fn.role.addToPolicy(
    new PolicyStatement({ actions: ['s3:GetObject', 's3:PutObject'], resources: [stateKey, leaseKey] }),
  );
  fn.role.addToPolicy(new PolicyStatement({ actions: ['s3:DeleteObject'], resources: [leaseKey] }));
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
  useArchive(fn, t.storage.data);
  useDesiredCache(fn, t.storage.data);
  t.credentials.grantRead(fn.role);
}
