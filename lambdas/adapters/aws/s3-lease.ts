/**
 * The run lease as one S3 object: created with `IfNoneMatch: '*'`, taken over when expired with `IfMatch` on the ETag
 * read, renewed with `IfMatch` on our own ETag, released with a conditional `DeleteObject`. S3's conditional writes make
 * the object a lock: of two concurrent writers exactly one gets 200, the other 412 (or 409, retried).
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { LeaseHeldError, type LeaseHolder, LeaseLostError } from '../../core/errors.ts';
import {
  LEASE_FORMAT_VERSION,
  type LeaseReading,
  leaseDocumentText,
  readLeaseDocument,
  unreadableLeaseExpiry,
  unreadableLeaseNotice,
} from '../../core/lease-document.ts';
import type { Lease } from '../../core/ports.ts';
import {
  accessError,
  type ConflictRetryOptions,
  isIfMatchFailed,
  isNotFound,
  isPreconditionFailed,
  readBody,
  retryOnConflict,
} from './s3-util.ts';

/** What the lease object holds (JSON; written with `formatVersion` 1 first, read without one as 1). */
export interface LeaseDocument {
  formatVersion?: typeof LEASE_FORMAT_VERSION;
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
    let lastHolder: LeaseHolder | null = null;
    for (let round = 0; round < rounds; round++) {
      const created = await this.#put(request, { IfNoneMatch: '*' });
      if (created) return created;
      const current = await this.#readCurrent();
      if (current === null) continue; // released between our write and our read: try to create again
      const { reading } = current;
      // Our own earlier attempt won but its response was lost (the SDK retried the PUT): the lease is already ours.
      if (reading.readable && isSameRun(reading.lease, request)) {
        return {
          owner: reading.lease.owner,
          runId: reading.lease.runId,
          expiresAt: reading.lease.expiresAt,
          token: current.etag,
        };
      }
      lastHolder = this.#holder(reading, current.modifiedMs, request.ttlMs);
      const expired = Date.parse(lastHolder.expiresAt) <= this.#o.now().getTime();
      if (!expired) break;
      const taken = await this.#put(request, { IfMatch: current.etag });
      if (taken) return taken;
    }
    throw new LeaseHeldError(
      lastHolder ?? { owner: 'another run', runId: 'unknown', expiresAt: 'unknown' },
      0,
      this.#o.now().getTime(),
    );
  }

  /**
   * Who holds the lease read. One that cannot be read (torn, empty, another version's format) counts as held until
   * its LastModified plus `ttlMs` (lease-document.ts); there is no unlock command for S3, so the way out is deleting it.
   */
  #holder(reading: LeaseReading, modifiedMs: number, ttlMs: number): LeaseHolder {
    if (reading.readable) {
      const { owner, runId, expiresAt } = reading.lease;
      return { owner, runId, expiresAt };
    }
    const expiresAt = unreadableLeaseExpiry(modifiedMs, ttlMs);
    const wayOut = `delete the object (aws s3 rm ${this.#location})`;
    return {
      owner: 'unreadable lease',
      runId: reading.runId ?? 'unknown',
      expiresAt,
      unreadable: unreadableLeaseNotice(this.#location, reading, expiresAt, wayOut),
    };
  }

  /** Extends our lease; LeaseLostError when someone else took it over meanwhile. */
  async renew(lease: Lease, ttlMs: number): Promise<Lease> {
    const renewed = await this.#put({ owner: lease.owner, runId: lease.runId, ttlMs }, { IfMatch: lease.token });
    if (renewed) return renewed;
    // 412 also answers the SDK's retry of a renewal that landed but whose answer was lost (a reset): the object then
    // holds our own owner and run id under a new ETag, and the lease is still ours. Only a run id of our own counts:
    // a run that took the lease over after it expired writes its own.
    const current = await this.#readCurrent();
    const reading = current?.reading;
    if (!current || !reading?.readable || !isSameRun(reading.lease, lease)) {
      throw new LeaseLostError(`lease ${this.#location} was taken over or deleted after it expired`);
    }
    const { owner, runId, expiresAt } = reading.lease;
    return { owner, runId, expiresAt, token: current.etag };
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
      formatVersion: LEASE_FORMAT_VERSION,
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
              Body: leaseDocumentText(doc),
              ContentType: 'application/json',
              ...condition,
            }),
          ),
        this.#o.retry,
      );
      etag = result.ETag;
    } catch (error) {
      // An `IfMatch` write to a lease deleted since (released, or removed by hand) is a failed condition too: a renewal
      // then finds the lease lost, a takeover tries to create it again.
      if (isPreconditionFailed(error) || ('IfMatch' in condition && isIfMatchFailed(error))) return null;
      throw accessError('PutObject', this.#location, error);
    }
    if (!etag) throw accessError('PutObject', this.#location, new Error('S3 returned no ETag'));
    return { owner: doc.owner, runId: doc.runId, expiresAt: doc.expiresAt, token: etag };
  }

  /**
   * The current lease as read, its ETag and LastModified (ms); null when absent. A store that sends no LastModified
   * (S3 always does) makes an unreadable lease count as modified now: held, never taken as expired at once.
   */
  async #readCurrent(): Promise<{ reading: LeaseReading; etag: string; modifiedMs: number } | null> {
    let object: GetObjectCommandOutput;
    let text: string;
    try {
      object = await this.#o.client.send(new GetObjectCommand({ Bucket: this.#o.bucket, Key: this.#o.key }));
      text = new TextDecoder().decode(await readBody(object.Body));
    } catch (error) {
      if (isNotFound(error)) return null;
      throw accessError('GetObject', this.#location, error);
    }
    // Without an ETag there is nothing to condition a takeover or a renewal on: `IfMatch: ''` matches no object, so an
    // expired lease would be reported as held (LeaseHeldError naming a past expiry) on every run. Said as what it is, as
    // the state store says a state read without one.
    const etag = object.ETag;
    if (!etag) throw accessError('GetObject', this.#location, new Error('S3 returned no ETag'));
    const modifiedMs = object.LastModified?.getTime() ?? this.#o.now().getTime();
    return { reading: readLeaseDocument(text, false), etag, modifiedMs };
  }
}

/** True when a lease read names the same owner and run as ours: a write of our own, whatever its ETag. */
function isSameRun(read: { owner: string; runId: string }, ours: { owner: string; runId: string }): boolean {
  return read.owner === ours.owner && read.runId === ours.runId;
}

/**
 * Parses a lease document; null when this version cannot read it (torn, not a lease, or another `formatVersion`).
 * The lease itself does not take such an object as expired (S3Lease.acquire).
 */
export function parseLease(text: string): LeaseDocument | null {
  const reading = readLeaseDocument(text, false);
  if (!reading.readable) return null;
  const { owner, runId, acquiredAt, expiresAt } = reading.lease;
  return { owner, runId, acquiredAt: acquiredAt ?? '', expiresAt };
}
