/**
 * The desired state under an S3 prefix: what `BucketDeployment` uploads from the repository's `desired-state/` folder.
 * Each listed file carries its ETag, so a plan records exactly which revision of every file it came from.
 */
import {
  GetObjectCommand,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { DesiredFileRef, DesiredStateSource } from '../../core/ports.ts';
import { S3AccessError, S3ContentEncodingError } from './errors.ts';
import { decodeContent } from './s3-content-encoding.ts';
import {
  accessError,
  awsErrorName,
  checkRelativeKey,
  isNotFound,
  normalisePrefix,
  readBody,
  relativeKeyProblem,
  unquoteEtag,
} from './s3-util.ts';

/** Where the desired state lives. */
export interface S3DesiredStateSourceOptions {
  client: S3Client;
  bucket: string;
  /** Key prefix of the desired-state root (`desired-state/`); `''` is the whole bucket. */
  prefix: string;
  /** Keys per ListObjectsV2 page (default 1000, S3's maximum). */
  pageSize?: number;
}

/** Default page size of the listing. */
export const DEFAULT_LIST_PAGE_SIZE = 1000;

const YAML_FILE = /\.ya?ml$/i;

/** The detail of a GetObject answered 404 NoSuchKey. */
export const GONE_SINCE_LISTED =
  'no such object: deleted since the desired state was listed (by a deployment in progress?), or never uploaded';

/** Lists and reads YAML documents under an S3 prefix (ListObjectsV2 with pagination, GetObject). */
export class S3DesiredStateSource implements DesiredStateSource {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;
  readonly #pageSize: number;

  constructor(options: S3DesiredStateSourceOptions) {
    this.#client = options.client;
    this.#bucket = options.bucket;
    this.#prefix = normalisePrefix(options.prefix);
    this.#pageSize = options.pageSize ?? DEFAULT_LIST_PAGE_SIZE;
  }

  describe(): string {
    return `s3://${this.#bucket}/${this.#prefix}`;
  }

  async list(): Promise<DesiredFileRef[]> {
    const files: DesiredFileRef[] = [];
    let token: string | undefined;
    const tokens = new Set<string>();
    do {
      let page: ListObjectsV2CommandOutput;
      try {
        page = await this.#client.send(
          new ListObjectsV2Command({
            Bucket: this.#bucket,
            Prefix: this.#prefix,
            MaxKeys: this.#pageSize,
            ContinuationToken: token,
          }),
        );
      } catch (error) {
        throw accessError('ListObjectsV2', this.describe(), error);
      }
      for (const object of page.Contents ?? []) {
        const key = object.Key;
        if (!key?.startsWith(this.#prefix) || !YAML_FILE.test(key)) continue;
        const path = key.slice(this.#prefix.length);
        // Dot files and folders (`.git/`, an editor's `.#x.yaml`) are never uploaded and never read from a directory:
        // not from the bucket either, so a prefix and the folder it came from load the same.
        if (path.split('/').some((part) => part.startsWith('.') && part !== '.' && part !== '..')) continue;
        const bad = relativeKeyProblem(path);
        if (bad !== undefined) {
          // Listed with its problem (the loader reports it): skipped, its documents would silently be left out.
          const problem = `the object key is not a plain relative path (${bad.detail}): it is not read; rename the object`;
          files.push({ path: bad.shown, size: object.Size ?? 0, problem });
          continue;
        }
        const file: DesiredFileRef = { path, size: object.Size ?? 0 };
        const etag = unquoteEtag(object.ETag);
        if (etag) file.version = etag;
        // S3 changes the ETag and the last-modified time on every write of an object: together with the size they
        // vouch for the bytes (an object without them is read and hashed).
        if (etag && object.LastModified instanceof Date && object.Size !== undefined)
          file.contentTag = `etag:${etag}:${object.Size}:${object.LastModified.toISOString()}`;
        files.push(file);
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
      // A truncated page without a token to continue from, or a token given before, would end the listing early or
      // never: either way part of the desired state would be missing, and a smaller desired state is never assumed.
      if (page.IsTruncated && (token === undefined || tokens.has(token))) {
        const why = token === undefined ? 'without a continuation token' : 'with a continuation token given before';
        throw new S3AccessError(
          'ListObjectsV2',
          this.describe(),
          undefined,
          `the listing was truncated ${why} after ${files.length} files: the desired state cannot be listed whole`,
        );
      }
      if (token !== undefined) tokens.add(token);
    } while (token);
    return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /**
   * The object's bytes, or undefined when there is no such key; any other failure rejects with an S3AccessError (a
   * missing bucket, also a 404, included: that is a deployment error, not an absent file).
   */
  async readIfPresent(
    path: string,
    options: { maxBytes?: number } = {},
  ): Promise<{ bytes: Uint8Array; version?: string; size?: number } | undefined> {
    try {
      return await this.read(path, options);
    } catch (error) {
      if (error instanceof S3AccessError && error.status === 404 && awsErrorName(error.cause) !== 'NoSuchBucket') {
        return undefined;
      }
      throw error;
    }
  }

  async read(
    path: string,
    options: { maxBytes?: number } = {},
  ): Promise<{ bytes: Uint8Array; version?: string; size?: number }> {
    checkRelativeKey(path);
    const key = `${this.#prefix}${path}`;
    try {
      const object = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: key }));
      const etag = unquoteEtag(object.ETag);
      const size = object.ContentLength;
      if (options.maxBytes !== undefined && size !== undefined && size > options.maxBytes) {
        // Replaced by a bigger object since the listing: its length is enough to refuse it, its body is not fetched.
        discardBody(object.Body);
        return { bytes: new Uint8Array(), size, ...(etag ? { version: etag } : {}) };
      }
      const bytes = decodeContent(await readBody(object.Body), object.ContentEncoding, `s3://${this.#bucket}/${key}`);
      return etag ? { bytes, version: etag } : { bytes };
    } catch (error) {
      if (error instanceof S3ContentEncodingError) throw error;
      if (isNotFound(error)) {
        // Most often a file listed a moment ago and deleted since (a deployment pruning it): said so, as the retryable
        // S3_ACCESS it is reported as would otherwise read as S3 throttled or unreachable.
        throw new S3AccessError('GetObject', `s3://${this.#bucket}/${key}`, 404, GONE_SINCE_LISTED, { cause: error });
      }
      throw accessError('GetObject', `s3://${this.#bucket}/${key}`, error);
    }
  }
}

/** Stops a GetObject body that will not be read: the connection is closed rather than drained. */
function discardBody(body: unknown): void {
  const stream = body as { destroy?: () => void } | undefined;
  stream?.destroy?.();
}
