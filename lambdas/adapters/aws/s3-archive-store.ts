/**
 * Archive objects (manifests, usage snapshots, run reports) under their own prefix. Content-addressed keys
 * (`…/sha256/<hex>.json`) are checked against the body's digest, and `ifAbsent` writes use `IfNoneMatch: '*'` so an
 * existing archive object is never rewritten.
 */
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { contentAddressMismatch } from '../../core/content-address.ts';
import type { ArchiveStore } from '../../core/ports.ts';
import { InvalidKeyError } from './errors.ts';
import {
  accessError,
  type ConflictRetryOptions,
  checkRelativeKey,
  DEFAULT_CONFLICT_RETRY,
  isIfMatchFailed,
  isNotFound,
  isPreconditionFailed,
  normalisePrefix,
  readBody,
  retryOnConflict,
} from './s3-util.ts';

/** Where the archive lives. */
export interface S3ArchiveStoreOptions {
  client: S3Client;
  bucket: string;
  /** Prefix of every archive key (default `archive/`). Never the desired-state prefix. */
  prefix?: string;
  /** Retry of 409 ConditionalRequestConflict (default {@link DEFAULT_CONFLICT_RETRY}). */
  retry?: Partial<ConflictRetryOptions>;
}

/** Default archive prefix. */
export const DEFAULT_ARCHIVE_PREFIX = 'archive/';

/** ArchiveStore on S3. */
export class S3ArchiveStore implements ArchiveStore {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;
  readonly #retry: ConflictRetryOptions;

  constructor(options: S3ArchiveStoreOptions) {
    this.#client = options.client;
    this.#bucket = options.bucket;
    this.#prefix = normalisePrefix(options.prefix ?? DEFAULT_ARCHIVE_PREFIX);
    this.#retry = { ...DEFAULT_CONFLICT_RETRY, ...options.retry };
  }

  describe(): string {
    return `s3://${this.#bucket}/${this.#prefix}`;
  }

  async put(
    key: string,
    body: string | Uint8Array,
    options?: { contentType?: string; ifAbsent?: boolean; ifVersion?: string },
  ): Promise<{ key: string; created: boolean; location: string }> {
    checkRelativeKey(key);
    const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
    const mismatch = contentAddressMismatch(key, bytes);
    if (mismatch !== undefined) throw new InvalidKeyError(key, mismatch);
    const fullKey = `${this.#prefix}${key}`;
    const location = `s3://${this.#bucket}/${fullKey}`;
    try {
      await retryOnConflict(
        () =>
          this.#client.send(
            new PutObjectCommand({
              Bucket: this.#bucket,
              Key: fullKey,
              Body: bytes,
              ContentType: options?.contentType ?? guessContentType(key),
              ...(options?.ifAbsent ? { IfNoneMatch: '*' } : {}),
              ...(options?.ifVersion !== undefined ? { IfMatch: options.ifVersion } : {}),
            }),
          ),
        this.#retry,
      );
      return { key, created: true, location };
    } catch (error) {
      const conditional = options?.ifAbsent === true || options?.ifVersion !== undefined;
      // A key deleted since its version was read answers an `IfMatch` write 404 NoSuchKey: it no longer holds that
      // version, so it is left alone (created false) as the port says, and the caller reads it again.
      const refused = options?.ifVersion !== undefined ? isIfMatchFailed(error) : isPreconditionFailed(error);
      if (conditional && refused) return { key, created: false, location };
      throw accessError('PutObject', location, error);
    }
  }

  async get(key: string): Promise<Uint8Array | null> {
    return (await this.#read(key))?.bytes ?? null;
  }

  /** The bytes under `key` and their ETag (for `ifVersion`), or null. */
  async getVersioned(key: string): Promise<{ bytes: Uint8Array; version: string } | null> {
    const object = await this.#read(key);
    if (object === null) return null;
    if (!object.etag) throw accessError('GetObject', this.#location(key), new Error('S3 returned no ETag'));
    return { bytes: object.bytes, version: object.etag };
  }

  #location(key: string): string {
    return `s3://${this.#bucket}/${this.#prefix}${key}`;
  }

  async #read(key: string): Promise<{ bytes: Uint8Array; etag: string | undefined } | null> {
    checkRelativeKey(key);
    try {
      const object = await this.#client.send(
        new GetObjectCommand({ Bucket: this.#bucket, Key: `${this.#prefix}${key}` }),
      );
      return { bytes: await readBody(object.Body), etag: object.ETag };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw accessError('GetObject', this.#location(key), error);
    }
  }
}

function guessContentType(key: string): string {
  if (key.endsWith('.json')) return 'application/json';
  if (key.endsWith('.md')) return 'text/markdown; charset=utf-8';
  return 'application/octet-stream';
}
