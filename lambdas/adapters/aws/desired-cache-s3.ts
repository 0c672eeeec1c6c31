/**
 * DesiredStateCache on S3: one object per entry, `<prefix><key>.json` in the data bucket (default prefix
 * `cache/desired/`, beside the state and the archive, never under the desired-state prefix). Entries are content
 * addressed by their key, so a plain PutObject is enough: two runs writing one key write the same bytes. Old entries
 * are removed by the bucket's lifecycle rule (infra/storage.ts), not here.
 */
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { isCacheKey } from '../../core/desired/cache.ts';
import type { DesiredStateCache } from '../../core/ports.ts';
import { InvalidKeyError } from './errors.ts';
import { accessError, isNotFound, normalisePrefix, readBody } from './s3-util.ts';

/** Where the cache lives. */
export interface S3DesiredCacheOptions {
  client: S3Client;
  bucket: string;
  /** Prefix of the entries (default {@link DEFAULT_DESIRED_CACHE_PREFIX}). Never the desired-state prefix. */
  prefix?: string;
}

/** Default prefix of the cache entries in the data bucket. */
export const DEFAULT_DESIRED_CACHE_PREFIX = 'cache/desired/';

/** DesiredStateCache on S3. Errors other than a missing entry are S3AccessError (the loader treats them as a miss). */
export class S3DesiredStateCache implements DesiredStateCache {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;

  constructor(options: S3DesiredCacheOptions) {
    this.#client = options.client;
    this.#bucket = options.bucket;
    this.#prefix = normalisePrefix(options.prefix ?? DEFAULT_DESIRED_CACHE_PREFIX);
  }

  /** `s3://bucket/prefix/`. */
  describe(): string {
    return `s3://${this.#bucket}/${this.#prefix}`;
  }

  async get(key: string): Promise<string | undefined> {
    if (!isCacheKey(key)) return undefined;
    const objectKey = `${this.#prefix}${key}.json`;
    try {
      const object = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: objectKey }));
      return new TextDecoder().decode(await readBody(object.Body));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw accessError('GetObject', `s3://${this.#bucket}/${objectKey}`, error);
    }
  }

  async put(key: string, text: string): Promise<void> {
    if (!isCacheKey(key)) throw new InvalidKeyError(key.slice(0, 80), 'a desired-state cache key is 64 lowercase hex');
    const objectKey = `${this.#prefix}${key}.json`;
    try {
      await this.#client.send(
        new PutObjectCommand({
          Bucket: this.#bucket,
          Key: objectKey,
          Body: new TextEncoder().encode(text),
          ContentType: 'application/json',
        }),
      );
    } catch (error) {
      throw accessError('PutObject', `s3://${this.#bucket}/${objectKey}`, error);
    }
  }
}
