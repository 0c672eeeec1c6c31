/**
 * The reconcile state as one JSON object in S3, written with optimistic concurrency (`IfMatch` on the ETag read, or
 * `IfNoneMatch: '*'` when there was none), plus the run lease beside it (s3-lease.ts). Keep this prefix out of the
 * desired-state prefix: `BucketDeployment` prunes everything there that is not in git.
 */
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { StateConflictError, StateCorruptError, StateTooNewError } from '../../core/errors.ts';
import type { Lease, ReconcileState, StateStore } from '../../core/ports.ts';
import { STATE_FORMAT_VERSION, stateDocumentProblem } from '../../core/state-check.ts';
import { S3Lease } from './s3-lease.ts';
import {
  accessError,
  type ConflictRetryOptions,
  DEFAULT_CONFLICT_RETRY,
  isConditionalConflict,
  isIfMatchFailed,
  isNotFound,
  isPreconditionFailed,
  normalisePrefix,
  readBody,
  retryOnConflict,
} from './s3-util.ts';

/** Where state and lease live. */
export interface S3StateStoreOptions {
  client: S3Client;
  bucket: string;
  /** Prefix of the state objects (default `state/`). Never the desired-state prefix. */
  prefix?: string;
  /** Object name of the state under the prefix (default `state.json`). */
  stateName?: string;
  /** Object name of the lease under the prefix (default `lease.json`). */
  leaseName?: string;
  /** Clock for lease expiry (default: system time). */
  now?: () => Date;
  /** Retry of 409 ConditionalRequestConflict (default {@link DEFAULT_CONFLICT_RETRY}). */
  retry?: Partial<ConflictRetryOptions>;
}

/** Defaults of {@link S3StateStoreOptions}. */
export const DEFAULT_STATE_STORE_OPTIONS = {
  prefix: 'state/',
  stateName: 'state.json',
  leaseName: 'lease.json',
} as const;

/** StateStore on S3 conditional writes. */
export class S3StateStore implements StateStore {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #key: string;
  readonly #retry: ConflictRetryOptions;
  readonly #lease: S3Lease;

  constructor(options: S3StateStoreOptions) {
    const prefix = normalisePrefix(options.prefix ?? DEFAULT_STATE_STORE_OPTIONS.prefix);
    this.#client = options.client;
    this.#bucket = options.bucket;
    this.#key = `${prefix}${options.stateName ?? DEFAULT_STATE_STORE_OPTIONS.stateName}`;
    this.#retry = { ...DEFAULT_CONFLICT_RETRY, ...options.retry };
    this.#lease = new S3Lease({
      client: options.client,
      bucket: options.bucket,
      key: `${prefix}${options.leaseName ?? DEFAULT_STATE_STORE_OPTIONS.leaseName}`,
      now: options.now ?? (() => new Date()),
      retry: this.#retry,
    });
  }

  /** `s3://bucket/key` of the state object. */
  describe(): string {
    return `s3://${this.#bucket}/${this.#key}`;
  }

  async read(): Promise<{ state: ReconcileState | null; version: string | null }> {
    let text: string;
    let etag: string | undefined;
    try {
      const object = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: this.#key }));
      text = new TextDecoder().decode(await readBody(object.Body));
      etag = object.ETag;
    } catch (error) {
      if (isNotFound(error)) return { state: null, version: null };
      throw accessError('GetObject', this.describe(), error);
    }
    if (!etag) throw accessError('GetObject', this.describe(), new Error('S3 returned no ETag'));
    return { state: parseState(text, this.describe(), etag), version: etag };
  }

  async write(state: ReconcileState, expectedVersion: string | null): Promise<string> {
    const condition = expectedVersion === null ? { IfNoneMatch: '*' } : { IfMatch: expectedVersion };
    const body = `${JSON.stringify(state, null, 2)}\n`;
    let etag: string | undefined;
    try {
      const result = await retryOnConflict(
        () =>
          this.#client.send(
            new PutObjectCommand({
              Bucket: this.#bucket,
              Key: this.#key,
              Body: body,
              ContentType: 'application/json',
              ...condition,
            }),
          ),
        this.#retry,
      );
      etag = result.ETag;
    } catch (error) {
      // With IfMatch, a 404 NoSuchKey is the condition failing as well: the state was deleted since it was read.
      if (
        isPreconditionFailed(error) ||
        isConditionalConflict(error) ||
        (expectedVersion !== null && isIfMatchFailed(error))
      ) {
        const current = await this.#current();
        // Our own write won but its response was lost (the SDK retried it): the stored state is exactly ours.
        if (current && current.text === body) return current.etag;
        throw new StateConflictError(expectedVersion, current?.etag ?? null);
      }
      throw accessError('PutObject', this.describe(), error);
    }
    if (!etag) throw accessError('PutObject', this.describe(), new Error('S3 returned no ETag'));
    return etag;
  }

  /** The stored text and ETag, or null when absent (used to explain a failed conditional write). */
  async #current(): Promise<{ text: string; etag: string } | null> {
    try {
      const object = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: this.#key }));
      // Its ETag becomes the version the next write is conditioned on (when the stored state is our own): without one
      // that write would go out with an empty IfMatch, and a conflict would name no version.
      if (!object.ETag) throw new Error('S3 returned no ETag');
      return { text: new TextDecoder().decode(await readBody(object.Body)), etag: object.ETag };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw accessError('GetObject', this.describe(), error);
    }
  }

  acquireLease(request: { owner: string; runId: string; ttlMs: number }): Promise<Lease> {
    return this.#lease.acquire(request);
  }

  renewLease(lease: Lease, ttlMs: number): Promise<Lease> {
    return this.#lease.renew(lease, ttlMs);
  }

  releaseLease(lease: Lease): Promise<void> {
    return this.#lease.release(lease);
  }
}

/**
 * Parses and shape-checks a state document (core/state-check.ts): StateCorruptError (without content) when it is not
 * one, StateTooNewError when a newer version of this tool wrote it.
 */
export function parseState(text: string, location: string, version: string | null): ReconcileState {
  const corrupt = (detail: string) => new StateCorruptError(`state ${location} cannot be used: ${detail}`, version);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw corrupt(`not JSON (${text.length} bytes)`);
  }
  const problem = stateDocumentProblem(value);
  if (problem?.kind === 'newer') {
    throw new StateTooNewError(location, (value as { formatVersion: number }).formatVersion, STATE_FORMAT_VERSION);
  }
  if (problem) throw corrupt(problem.detail);
  return value as ReconcileState;
}
