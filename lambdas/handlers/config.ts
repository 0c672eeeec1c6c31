/**
 * The handlers' configuration, from environment variables the stack sets (documented in docs/aws.md). Validated once
 * at module load; every problem is listed in one ConfigError.
 */

import { bucketNameProblem, keyPrefixProblem } from '../adapters/aws/s3-names.ts';
import { normalisePrefix, prefixesOverlap } from '../adapters/aws/s3-util.ts';
import { desiredCacheSwitch } from '../core/desired/cache-switch.ts';
import { DEFAULT_SNAPSHOT_POLICY, type SnapshotPolicy } from '../core/desired/snapshot-check.ts';
import type { Mode } from '../core/model.ts';
import { checkPublicApiBaseUrl, SECRET_KEY_ADVICE } from '../opsman/base-url.ts';
import { quoteValue, readSnapshotPolicy, readWholeNumber, type WholeNumberRange } from './config-values.ts';
import { ConfigError } from './errors.ts';

/** What the handlers need to know about their deployment. */
export interface HandlerConfig {
  /** OPSMAN_BASE_URL: `https://om.example.com:8443/api/public/v1.0`. */
  opsManagerBaseUrl: string;
  /** OPSMAN_CREDENTIALS_SECRET_ID: name or ARN of the `{"publicKey","privateKey"}` secret. */
  credentialsSecretId: string;
  /** DESIRED_STATE_BUCKET / DESIRED_STATE_PREFIX (default `desired-state/`). */
  desiredBucket: string;
  desiredPrefix: string;
  /** STATE_BUCKET, STATE_PREFIX (default `state/`), ARCHIVE_PREFIX (default `archive/`). */
  stateBucket: string;
  statePrefix: string;
  archivePrefix: string;
  /** OPSMAN_MODE: the deployment's mode cap (default `plan`: nothing is written until you opt in). */
  mode: Mode;
  /** OPSMAN_CA_FILE: PEM bundle of a private CA shipped with the function. */
  caFile?: string;
  /** OPSMAN_LEASE_WAIT_MS: how long a run waits for a held lease (default 0: fail fast, retried by Lambda). */
  leaseWaitMs: number;
  /** OPSMAN_MAX_CONCURRENCY: in-flight Ops Manager requests (default: the client's, 8). */
  maxConcurrency?: number;
  /** OPSMAN_DESIRED_CACHE=off: no desired-state cache (default on: memory, then `cache/desired/` in STATE_BUCKET). */
  desiredCache?: 'off';
  /**
   * DESIRED_STATE_SNAPSHOT: `required` (the stack sets it: it writes a snapshot manifest after every upload) or
   * `optional` (the default: a manifest is checked when present). See lambdas/core/desired/snapshot-check.ts.
   */
  desiredSnapshot: SnapshotPolicy;
}

/** Prefix of the desired-state cache entries in STATE_BUCKET. */
export const DESIRED_CACHE_PREFIX = 'cache/desired/';

/** Defaults of the optional variables. */
export const CONFIG_DEFAULTS = {
  desiredPrefix: 'desired-state/',
  statePrefix: 'state/',
  archivePrefix: 'archive/',
  mode: 'plan' as Mode,
  leaseWaitMs: 0,
  desiredSnapshot: DEFAULT_SNAPSHOT_POLICY,
};

/**
 * OPSMAN_LEASE_WAIT_MS: a wait longer than the function may run (Lambda's limit is 15 minutes) only ends in a timeout,
 * and a huge one would overflow setTimeout, which then fires at once.
 */
export const LEASE_WAIT_RANGE: WholeNumberRange = {
  min: 0,
  max: 900_000,
  unit: ' of milliseconds',
  why: '15 minutes: the longest a function runs',
};

/** OPSMAN_MAX_CONCURRENCY: one function's share of Ops Manager; the client itself allows up to 1,024. */
export const MAX_CONCURRENCY_RANGE: WholeNumberRange = { min: 1, max: 99 };

/** Reads and checks the configuration; throws ConfigError naming every problem. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): HandlerConfig {
  const problems: string[] = [];
  const required = (name: string): string => {
    const value = env[name]?.trim();
    if (!value) problems.push(`${name} is not set`);
    return value ?? '';
  };
  const bucket = (name: string): string => {
    const value = required(name);
    const problem = value === '' ? undefined : bucketNameProblem(value);
    if (problem) problems.push(`${name} is not a valid S3 bucket name: ${problem}; got ${quoteValue(value)}`);
    return value;
  };
  const prefix = (name: string, fallback: string): string => {
    const value = env[name] ?? fallback;
    const problem = keyPrefixProblem(value);
    if (problem) problems.push(`${name} ${problem}; got ${quoteValue(value)}`);
    return normalisePrefix(value);
  };
  const config: HandlerConfig = {
    opsManagerBaseUrl: required('OPSMAN_BASE_URL'),
    credentialsSecretId: required('OPSMAN_CREDENTIALS_SECRET_ID'),
    desiredBucket: bucket('DESIRED_STATE_BUCKET'),
    desiredPrefix: prefix('DESIRED_STATE_PREFIX', CONFIG_DEFAULTS.desiredPrefix),
    stateBucket: bucket('STATE_BUCKET'),
    statePrefix: prefix('STATE_PREFIX', CONFIG_DEFAULTS.statePrefix),
    archivePrefix: prefix('ARCHIVE_PREFIX', CONFIG_DEFAULTS.archivePrefix),
    mode: CONFIG_DEFAULTS.mode,
    leaseWaitMs: CONFIG_DEFAULTS.leaseWaitMs,
    desiredSnapshot: CONFIG_DEFAULTS.desiredSnapshot,
  };
  if (config.opsManagerBaseUrl) {
    const checked = checkPublicApiBaseUrl('OPSMAN_BASE_URL', config.opsManagerBaseUrl, SECRET_KEY_ADVICE);
    if (checked.ok) config.opsManagerBaseUrl = checked.url;
    else problems.push(checked.problem);
  }
  const mode = env.OPSMAN_MODE;
  if (mode !== undefined && mode !== '') {
    if (mode === 'observe' || mode === 'plan' || mode === 'apply') config.mode = mode;
    else problems.push(`OPSMAN_MODE must be observe, plan or apply (got "${mode.slice(0, 20)}")`);
  }
  if (env.OPSMAN_CA_FILE) config.caFile = env.OPSMAN_CA_FILE;
  const wait = readWholeNumber(env, 'OPSMAN_LEASE_WAIT_MS', LEASE_WAIT_RANGE);
  if (wait.value !== undefined) config.leaseWaitMs = wait.value;
  if (wait.problem) problems.push(wait.problem);
  const concurrency = readWholeNumber(env, 'OPSMAN_MAX_CONCURRENCY', MAX_CONCURRENCY_RANGE);
  if (concurrency.value !== undefined) config.maxConcurrency = concurrency.value;
  if (concurrency.problem) problems.push(concurrency.problem);
  const snapshot = readSnapshotPolicy(env);
  if (snapshot.value !== undefined) config.desiredSnapshot = snapshot.value;
  if (snapshot.problem) problems.push(snapshot.problem);
  const cache = desiredCacheSwitch(env);
  if (cache.problem !== undefined) problems.push(cache.problem);
  else if (!cache.on) config.desiredCache = 'off';
  if (config.stateBucket === config.desiredBucket) {
    // BucketDeployment prunes everything under the desired prefix, and writes there would retrigger runs.
    for (const [name, prefix] of [
      ['STATE_PREFIX', config.statePrefix],
      ['ARCHIVE_PREFIX', config.archivePrefix],
      ...(config.desiredCache === 'off' ? [] : ([['the desired-state cache', DESIRED_CACHE_PREFIX]] as const)),
    ] as const) {
      if (prefixesOverlap(prefix, config.desiredPrefix)) {
        problems.push(`${name} (${prefix}) overlaps DESIRED_STATE_PREFIX (${config.desiredPrefix}) in the same bucket`);
      }
    }
  }
  if (prefixesOverlap(config.statePrefix, config.archivePrefix)) {
    problems.push(`STATE_PREFIX (${config.statePrefix}) and ARCHIVE_PREFIX (${config.archivePrefix}) overlap`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
