/**
 * The run lease as one S3 object: created with `IfNoneMatch: '*'`, taken over when expired with `IfMatch` on the ETag
 * read, renewed with `IfMatch` on our own ETag, released with a conditional `DeleteObject`. S3's conditional writes make
 * the object a lock: of two concurrent writers exactly one gets 200, the other 412 (or 409, retried).
 */
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { LeaseHeldError, LeaseLostError } from '../../core/errors.ts';
import type { Lease } from '../../core/ports.ts';
import {
  accessError,
  type ConflictRetryOptions,
  isNotFound,
  isPreconditionFailed,
  readBody,
  retryOnConflict,
} from './s3-util.ts';

/** What the lease object holds (JSON). */
export interface LeaseDocument {
  owner: string;
  runId: string;
  acquiredAt: string;
  expiresAt: string;
}

/** Where the lease lives and how it behaves. */
export interface S3LeaseOptions {
  client: S3Client;
  bucket: string;
  key: string;
  now: () => Date;
  retry: ConflictRetryOptions;
  /** Rounds of "read the holder, try to take over" before giving up with LeaseHeldError (default 3). */
  maxTakeoverRounds?: number;
}

/** Default rounds of takeover attempts. */
export const DEFAULT_TAKEOVER_ROUNDS = 3;

/** Acquire, renew and release the lease object. */
export class S3Lease {
  readonly #o: S3LeaseOptions;
  readonly #location: string;

  constructor(options: S3LeaseOptions) {
    this.#o = options;
    this.#location = `s3://${options.bucket}/${options.key}`;
  }

  /** Takes the lease, or throws LeaseHeldError naming the holder. */
  async acquire(request: { owner: string; runId: string; ttlMs: number }): Promise<Lease> {
    const rounds = this.#o.maxTakeoverRounds ?? DEFAULT_TAKEOVER_ROUNDS;
    let lastHolder: LeaseDocument | null = null;
    for (let round = 0; round < rounds; round++) {
      const created = await this.#put(request, { IfNoneMatch: '*' });
      if (created) return created;
      const current = await this.#readCurrent();
      if (current === null) continue; // released between our write and our read: try to create again
      lastHolder = current.doc;
      // Our own earlier attempt won but its response was lost (the SDK retried the PUT): the lease is already ours.
      if (current.doc && current.doc.owner === request.owner && current.doc.runId === request.runId) {
        return {
          owner: current.doc.owner,
          runId: current.doc.runId,
          expiresAt: current.doc.expiresAt,
          token: current.etag,
        };
      }
      const expired = current.doc === null || Date.parse(current.doc.expiresAt) <= this.#o.now().getTime();
      if (!expired) break;
      const taken = await this.#put(request, { IfMatch: current.etag });
      if (taken) return taken;
    }
    throw new LeaseHeldError(
      {
        owner: lastHolder?.owner ?? 'another run',
        runId: lastHolder?.runId ?? 'unknown',
        expiresAt: lastHolder?.expiresAt ?? 'unknown',
      },
      0,
      this.#o.now().getTime(),
    );
  }

  /** Extends our lease; LeaseLostError when someone else took it over meanwhile. */
  async renew(lease: Lease, ttlMs: number): Promise<Lease> {
    const renewed = await this.#put({ owner: lease.owner, runId: lease.runId, ttlMs }, { IfMatch: lease.token });
    if (!renewed) throw new LeaseLostError(`lease ${this.#location} was taken over or deleted after it expired`);
    return renewed;
  }

  /** Deletes the lease only if it is still ours (same ETag); a lease already taken over is left to its new holder. */
  async release(lease: Lease): Promise<void> {
    try {
      await retryOnConflict(
        () =>
          this.#o.client.send(
            new DeleteObjectCommand({ Bucket: this.#o.bucket, Key: this.#o.key, IfMatch: lease.token }),
          ),
        this.#o.retry,
      );
    } catch (error) {
      if (isPreconditionFailed(error) || isNotFound(error)) return;
      throw accessError('DeleteObject', this.#location, error);
    }
  }

  /** Conditional put of a fresh lease document; null on 412 (the condition did not hold). */
  async #put(
    request: { owner: string; runId: string; ttlMs: number },
    condition: { IfNoneMatch: '*' } | { IfMatch: string },
  ): Promise<Lease | null> {
    const now = this.#o.now();
    const doc: LeaseDocument = {
      owner: request.owner,
      runId: request.runId,
      acquiredAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + request.ttlMs).toISOString(),
    };
    let etag: string | undefined;
    try {
      const result = await retryOnConflict(
        () =>
          this.#o.client.send(
            new PutObjectCommand({
              Bucket: this.#o.bucket,
              Key: this.#o.key,
              Body: JSON.stringify(doc),
              ContentType: 'application/json',
              ...condition,
            }),
          ),
        this.#o.retry,
      );
      etag = result.ETag;
    } catch (error) {
      if (isPreconditionFailed(error)) return null;
      throw accessError('PutObject', this.#location, error);
    }
    if (!etag) throw accessError('PutObject', this.#location, new Error('S3 returned no ETag'));
    return { owner: doc.owner, runId: doc.runId, expiresAt: doc.expiresAt, token: etag };
  }

  /** The current lease and its ETag; doc null when unreadable (treated as expired); null when absent. */
  async #readCurrent(): Promise<{ doc: LeaseDocument | null; etag: string } | null> {
    try {
      const object = await this.#o.client.send(new GetObjectCommand({ Bucket: this.#o.bucket, Key: this.#o.key }));
      const etag = object.ETag ?? '';
      const text = new TextDecoder().decode(await readBody(object.Body));
      return { doc: parseLease(text), etag };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw accessError('GetObject', this.#location, error);
    }
  }
}

/** Parses a lease document; null when it is not one (a torn or foreign object is treated as expired). */
export function parseLease(text: string): LeaseDocument | null {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return null;
    const { owner, runId, acquiredAt, expiresAt } = value as Record<string, unknown>;
    if (typeof owner !== 'string' || typeof runId !== 'string' || typeof expiresAt !== 'string') return null;
    if (Number.isNaN(Date.parse(expiresAt))) return null;
    return { owner, runId, acquiredAt: typeof acquiredAt === 'string' ? acquiredAt : '', expiresAt };
  } catch {
    return null;
  }
}
