/**
 * Everything a handler talks to, built once per Lambda container from the configuration: S3 and Secrets Manager
 * clients and the adapters on them. The Ops Manager client is built on first use and rebuilt only when the
 * credentials secret changes: within the secrets cache lifetime, or at once when Ops Manager refuses the cached key
 * (run-once.ts reads the secret again then).
 */
import { createHash, hkdfSync } from 'node:crypto';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { MemoryDesiredStateCache } from '../adapters/aws/desired-cache-memory.ts';
import { S3DesiredStateCache } from '../adapters/aws/desired-cache-s3.ts';
import { S3ArchiveStore } from '../adapters/aws/s3-archive-store.ts';
import { S3DesiredStateSource } from '../adapters/aws/s3-desired-source.ts';
import { S3StateStore } from '../adapters/aws/s3-state-store.ts';
import {
  loadOpsManagerCredentials,
  type OpsManagerCredentials,
  SecretJsonSource,
  SecretsManagerResolver,
} from '../adapters/aws/secrets-manager.ts';
import { parseFingerprintKey } from '../adapters/local/fingerprint-key.ts';
import type { Clock, DesiredStateCache, OpsManagerApi, RequestObserver, SecretResolver } from '../core/ports.ts';
import { WRITE_METHODS } from '../opsman/errors.ts';
import { AwsConnections, type AwsTimeouts } from './aws-connections.ts';
import { DESIRED_CACHE_PREFIX, type HandlerConfig } from './config.ts';

/**
 * The Ops Manager client the runtime needs: the port plus `close()`, and `forgetSilence()` / `renewConnections()` when
 * the client keeps a silence verdict and kept-alive connections (OpsManagerClient does).
 */
/** What the handlers hear from the client besides the calls it made (the stall and retry warnings). */
export type ClientHooks = Pick<RequestObserver, 'onStall' | 'onRetryWait'>;

export type ClosableApi = OpsManagerApi & { close(): Promise<void>; forgetSilence?(): void; renewConnections?(): void };

/** Builds an Ops Manager client (createOpsManagerClient in production, injectable for tests). */
export type ApiFactory = (options: {
  baseUrl: string;
  publicKey: string;
  privateKey: string;
  caFile?: string;
  maxConcurrency?: number;
  observer: RequestObserver;
}) => ClosableApi;

/**
 * Counts API calls by endpoint, and of them the writes sent and the answers that refused the API key; reset at the start
 * of each run.
 */
export class ApiCallCounter implements RequestObserver {
  #byEndpoint: Record<string, number> = {};
  #total = 0;
  #writes = 0;
  #refused = 0;

  onRequest(event: { method: string; pathTemplate: string; status?: number | null }): void {
    const key = `${event.method} ${event.pathTemplate}`;
    this.#byEndpoint[key] = (this.#byEndpoint[key] ?? 0) + 1;
    this.#total++;
    if (WRITE_METHODS.has(event.method)) this.#writes++;
    if (event.status === 401) this.#refused++;
  }

  reset(): void {
    this.#byEndpoint = {};
    this.#total = 0;
    this.#writes = 0;
    this.#refused = 0;
  }

  /** Writes (POST, PUT, PATCH, DELETE) that reached Ops Manager since the reset, whatever their answer. */
  get writesSent(): number {
    return this.#writes;
  }

  /** Requests Ops Manager answered 401 (the API key refused) since the reset. */
  get authRefusals(): number {
    return this.#refused;
  }

  snapshot(): { total: number; byEndpoint: Record<string, number> } {
    return { total: this.#total, byEndpoint: { ...this.#byEndpoint } };
  }
}

/** The real clock. */
export const SYSTEM_CLOCK: Clock = {
  now: () => new Date(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** The per-container runtime. */
export class Runtime {
  readonly config: HandlerConfig;
  readonly source: S3DesiredStateSource;
  readonly state: S3StateStore;
  readonly archive: S3ArchiveStore;
  readonly secrets: SecretResolver;
  /** Validated desired states by content hash: this container's memory, then S3 (undefined when turned off). */
  readonly desiredCache: DesiredStateCache | undefined;
  readonly calls = new ApiCallCounter();
  readonly #aws: AwsConnections;
  readonly #secretJson: SecretJsonSource;
  readonly #createApi: ApiFactory;
  readonly #hooks: ClientHooks;
  #api: { digest: string; api: ClosableApi } | undefined;
  /** Digest of the credentials last read from the secret (cached or not). */
  #credentialsDigest: string | undefined;

  /**
   * `hooks.onStall` hears of a request Ops Manager has not answered for a while, `hooks.onRetryWait` of a wait before
   * a retry (the handlers log both: stall-log.ts, retry-log.ts); `awsTimeouts` bound each S3 and Secrets Manager
   * request (default AWS_TIMEOUTS; tests shorten them).
   */
  constructor(config: HandlerConfig, createApi: ApiFactory, hooks: ClientHooks = {}, awsTimeouts?: AwsTimeouts) {
    this.config = config;
    this.#aws = new AwsConnections(awsTimeouts);
    this.#createApi = createApi;
    this.#hooks = hooks;
    // Endpoints come from AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL_SECRETS_MANAGER when set (the SDK reads them).
    const s3 = new S3Client({
      forcePathStyle: process.env.AWS_S3_FORCE_PATH_STYLE === 'true',
      requestHandler: this.#aws.requestHandler,
    });
    this.source = new S3DesiredStateSource({ client: s3, bucket: config.desiredBucket, prefix: config.desiredPrefix });
    this.state = new S3StateStore({ client: s3, bucket: config.stateBucket, prefix: config.statePrefix });
    this.archive = new S3ArchiveStore({ client: s3, bucket: config.stateBucket, prefix: config.archivePrefix });
    this.desiredCache =
      config.desiredCache === 'off'
        ? undefined
        : new MemoryDesiredStateCache({
            next: new S3DesiredStateCache({ client: s3, bucket: config.stateBucket, prefix: DESIRED_CACHE_PREFIX }),
          });
    this.#secretJson = new SecretJsonSource({
      client: new SecretsManagerClient({ requestHandler: this.#aws.requestHandler }),
    });
    this.secrets = new SecretsManagerResolver(this.#secretJson, { credentialsSecretId: config.credentialsSecretId });
  }

  /**
   * Called when a run starts: closes the idle S3 and Secrets Manager connections kept from earlier runs, which the
   * container may have slept on, frozen, past the idle timeout of a NAT gateway or VPC endpoint (aws-connections.ts).
   * The Ops Manager client renews its own in {@link api}.
   */
  beginRun(): void {
    this.#aws.dropIdle();
  }

  /** The client's observer: the call counter, and the stall and retry hooks there are. */
  #observer(): RequestObserver {
    const { onStall, onRetryWait } = this.#hooks;
    if (onStall === undefined && onRetryWait === undefined) return this.calls;
    return {
      onRequest: (event) => this.calls.onRequest(event),
      ...(onStall === undefined ? {} : { onStall }),
      ...(onRetryWait === undefined ? {} : { onRetryWait }),
    };
  }

  /**
   * The Ops Manager client for the current credentials, and the fingerprint key that goes with them. Called once per
   * run: a client kept from an earlier run forgets that run's silence verdict.
   */
  async api(): Promise<{ api: OpsManagerApi; fingerprintKey: Uint8Array; publicKey: string }> {
    const credentials = await loadOpsManagerCredentials(this.#secretJson, this.config.credentialsSecretId);
    const digest = credentialsDigest(credentials);
    this.#credentialsDigest = digest;
    if (this.#api?.digest !== digest) {
      const previous = this.#api?.api;
      const options: Parameters<ApiFactory>[0] = {
        baseUrl: this.config.opsManagerBaseUrl,
        publicKey: credentials.publicKey,
        privateKey: credentials.privateKey,
        observer: this.#observer(),
      };
      if (this.config.caFile) options.caFile = this.config.caFile;
      if (this.config.maxConcurrency) options.maxConcurrency = this.config.maxConcurrency;
      this.#api = { digest, api: this.#createApi(options) };
      await previous?.close().catch(() => undefined);
    } else {
      // The verdict's time bound is one deadline (120 s), and the next run may start sooner: Lambda retries a failed
      // asynchronous invocation after a minute, on this warm client. That run must ask Ops Manager again.
      this.#api.api.forgetSilence?.();
      // The container may have been frozen since the last run, and the connections it kept lost on the way meanwhile
      // (a NAT gateway's idle timeout): the run's first POST must not go out on one (OpsManagerClient.renewConnections).
      this.#api.api.renewConnections?.();
    }
    return {
      api: (this.#api as { api: ClosableApi }).api,
      fingerprintKey: fingerprintKeyOf(credentials),
      publicKey: credentials.publicKey,
    };
  }

  /**
   * Reads the credentials secret again, past its cache (which it refills): true when the API key differs from the one
   * the last run used, so that the next {@link api} call builds a client with the new key. For a run Ops Manager refused
   * the key of: a rotated secret is then picked up at once instead of when the cache expires.
   */
  async reloadCredentials(): Promise<boolean> {
    const credentials = await loadOpsManagerCredentials(this.#secretJson, this.config.credentialsSecretId, {
      fresh: true,
    });
    return credentialsDigest(credentials) !== this.#credentialsDigest;
  }
}

/** Identifies an API key without keeping it: SHA-256 of the public and private key. */
function credentialsDigest(credentials: OpsManagerCredentials): string {
  return createHash('sha256').update(`${credentials.publicKey}\n${credentials.privateKey}`).digest('hex');
}

/**
 * The HMAC key of the state fingerprints: the secret's `fingerprintKey` when set (hex or base64, at least 16 bytes, as
 * the CLI's OPSMAN_FINGERPRINT_KEY), else derived (HKDF-SHA-256) from the private key, so nothing extra must be stored.
 * Rotating the API key then changes every fingerprint once, which makes the next apply re-send the secrets of owned
 * alert configs: set `fingerprintKey` to avoid that.
 */
export function fingerprintKeyOf(credentials: OpsManagerCredentials): Uint8Array {
  if (credentials.fingerprintKey)
    return parseFingerprintKey(credentials.fingerprintKey, 'the fingerprintKey of the credentials secret');
  return new Uint8Array(hkdfSync('sha256', credentials.privateKey, 'opsman-gitops', 'state-fingerprints', 32));
}
