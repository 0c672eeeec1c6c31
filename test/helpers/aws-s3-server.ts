/**
 * A small loopback S3 server (path-style) for tests: ListObjectsV2, GetObject, HeadObject, PutObject and DeleteObject,
 * with the conditional-write semantics s3rver lacks (`If-None-Match: *` and `If-Match` -> 412 PreconditionFailed) and
 * injectable 409 ConditionalRequestConflict answers. Requests are served one at a time in arrival order, so of two
 * racing conditional writes exactly one wins, as on S3. `injectFault` makes chosen requests fail as S3 does under load
 * or on a broken connection (503 SlowDown, 500 InternalError, 403 AccessDenied, a reset), before or after storing.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One stored object. */
export interface StoredObject {
  body: Buffer;
  etag: string;
  contentType: string;
  /** Answered as `Content-Encoding` (the body is served as stored). */
  contentEncoding?: string;
  lastModified: Date;
}

/** One request as the server saw it. */
export interface LoggedS3Request {
  method: string;
  bucket: string;
  key: string;
  ifMatch?: string;
  ifNoneMatch?: string;
  /** A listing's `prefix` (ListObjectsV2, key ''), which an IAM condition on `s3:prefix` checks. */
  listPrefix?: string;
  status: number;
}

/**
 * A fault for the next `count` requests that match `method` and `key` (`bucket/key`, `bucket/` for the listing; a
 * trailing `*` matches a prefix; omitted: any). `status`/`code` answer
 * an S3 error; `rewrite` answers with a rewritten body; `reset` destroys the connection instead of answering. `after: true` performs the request first (a PUT
 * is stored, a DELETE deletes) and only then fails: the client never learns that it succeeded. `skip` lets that many
 * matching requests through before the fault starts.
 */
export interface S3Fault {
  method?: string;
  key?: string;
  status?: number;
  code?: string;
  reset?: boolean;
  after?: boolean;
  count: number;
  skip?: number;
  /**
   * Answers the request as usual, its body passed through this function instead of failing it: an S3-compatible store
   * that answers wrongly (a truncated listing without its continuation token, say).
   */
  rewrite?: (body: string) => string;
}

/** The running server. */
export interface LoopbackS3 {
  /** `http://127.0.0.1:<port>`: pass as `endpoint` with `forcePathStyle: true`. */
  endpoint: string;
  /** bucket -> key -> object. */
  buckets: Map<string, Map<string, StoredObject>>;
  requests: LoggedS3Request[];
  /** The next `count` conditional PUT/DELETE requests answer 409 ConditionalRequestConflict. */
  injectConflicts(count: number): void;
  /** Adds a fault (see {@link S3Fault}); faults are matched in the order they were added. */
  injectFault(fault: S3Fault): void;
  /** Removes every fault not used up yet. */
  clearFaults(): void;
  /** Stores an object directly (no request), optionally with a `Content-Encoding` to answer. */
  putDirect(bucket: string, key: string, body: string | Buffer, options?: { contentEncoding?: string }): StoredObject;
  getText(bucket: string, key: string): string | undefined;
  close(): Promise<void>;
}

const xmlEscape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Starts the server on 127.0.0.1, port 0, with the given (empty) buckets. */
export async function startLoopbackS3(options: { buckets: string[] }): Promise<LoopbackS3> {
  const buckets = new Map<string, Map<string, StoredObject>>(options.buckets.map((b) => [b, new Map()]));
  const requests: LoggedS3Request[] = [];
  let conflicts = 0;
  let faults: S3Fault[] = [];

  const store = (bucket: string, key: string, body: Buffer, contentType = 'application/octet-stream') => {
    const object: StoredObject = {
      body,
      etag: `"${createHash('md5').update(body).digest('hex')}"`,
      contentType,
      lastModified: new Date(),
    };
    buckets.get(bucket)?.set(key, object);
    return object;
  };

  /** The fault this request meets, if any (and counts it down). */
  const faultFor = (method: string, bucket: string, key: string): S3Fault | undefined => {
    const path = `${bucket}/${key}`;
    const fault = faults.find(
      (f) =>
        f.count > 0 &&
        (f.method === undefined || f.method === method) &&
        (f.key === undefined || (f.key.endsWith('*') ? path.startsWith(f.key.slice(0, -1)) : path === f.key)),
    );
    if (fault === undefined) return undefined;
    if ((fault.skip ?? 0) > 0) {
      fault.skip = (fault.skip ?? 0) - 1;
      return undefined;
    }
    fault.count--;
    return fault;
  };

  const handle = (req: IncomingMessage, body: Buffer, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const [, bucket = '', ...rest] = url.pathname.split('/');
    const key = decodeURIComponent(rest.join('/'));
    const method = req.method ?? 'GET';
    const ifMatch = header(req, 'if-match');
    const ifNoneMatch = header(req, 'if-none-match');
    const log: LoggedS3Request = { method, bucket, key, status: 200 };
    if (ifMatch !== undefined) log.ifMatch = ifMatch;
    if (ifNoneMatch !== undefined) log.ifNoneMatch = ifNoneMatch;
    if (key === '' && url.searchParams.get('list-type') === '2') log.listPrefix = url.searchParams.get('prefix') ?? '';
    requests.push(log);
    const send: Send = (status, headers, payload = '') => {
      log.status = status;
      res.writeHead(status, { 'x-amz-request-id': `req-${requests.length}`, ...headers });
      res.end(method === 'HEAD' ? undefined : payload);
    };
    const contentType = header(req, 'content-type');
    const request: S3Call = { url, bucket, key, method, ifMatch, ifNoneMatch, contentType, body };
    const fault = faultFor(method, bucket, key);
    if (fault === undefined) return serve(request, send);
    const { rewrite } = fault;
    if (rewrite) {
      return serve(request, (status, headers, payload) =>
        send(status, headers, payload === undefined ? payload : rewrite(String(payload))),
      );
    }
    // Performed, then failed: the response is lost on its way back.
    if (fault.after) serve(request, () => undefined);
    if (fault.reset) {
      log.status = 0;
      res.socket?.destroy();
      return;
    }
    errorReply(send, fault.status ?? 503, fault.code ?? 'SlowDown', 'Please reduce your request rate.');
  };

  const serve = (call: S3Call, send: Send) => {
    const { url, bucket, key, method, ifMatch, ifNoneMatch, body } = call;
    const fail = (status: number, code: string, message: string) => errorReply(send, status, code, message);
    const objects = buckets.get(bucket);
    if (!objects) return fail(404, 'NoSuchBucket', 'The specified bucket does not exist');
    if (key === '') {
      if (method !== 'GET' || url.searchParams.get('list-type') !== '2')
        return fail(501, 'NotImplemented', 'only ListObjectsV2');
      return send(200, { 'content-type': 'application/xml' }, listXml(bucket, objects, url.searchParams));
    }
    const existing = objects.get(key);
    const conditional = ifMatch !== undefined || ifNoneMatch !== undefined;
    if ((method === 'PUT' || method === 'DELETE') && conditional && conflicts > 0) {
      conflicts--;
      return fail(409, 'ConditionalRequestConflict', 'A conflicting operation occurred');
    }
    if (ifMatch !== undefined) {
      if (!existing) return fail(404, 'NoSuchKey', 'The specified key does not exist.');
      if (ifMatch !== existing.etag && `"${ifMatch}"` !== existing.etag) {
        return fail(412, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold');
      }
    }
    if (ifNoneMatch === '*' && existing && method === 'PUT') {
      return fail(412, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold');
    }
    switch (method) {
      case 'GET':
      case 'HEAD':
        if (!existing) return fail(404, 'NoSuchKey', 'The specified key does not exist.');
        return send(
          200,
          {
            etag: existing.etag,
            'content-type': existing.contentType,
            'content-length': String(existing.body.length),
            'last-modified': existing.lastModified.toUTCString(),
            ...(existing.contentEncoding === undefined ? {} : { 'content-encoding': existing.contentEncoding }),
          },
          existing.body,
        );
      case 'PUT': {
        const object = store(bucket, key, body, call.contentType);
        return send(200, { etag: object.etag });
      }
      case 'DELETE':
        objects.delete(key);
        return send(204, {});
      default:
        return fail(405, 'MethodNotAllowed', `${method} is not supported here`);
    }
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        handle(req, decodeBody(req, Buffer.concat(chunks)), res);
      } catch (error) {
        res.writeHead(500);
        res.end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    buckets,
    requests,
    injectConflicts: (count) => {
      conflicts = count;
    },
    injectFault: (fault) => {
      faults.push({ ...fault });
    },
    clearFaults: () => {
      faults = [];
    },
    putDirect: (bucket, key, body, options) => {
      const object = store(bucket, key, Buffer.from(body));
      if (options?.contentEncoding !== undefined) object.contentEncoding = options.contentEncoding;
      return object;
    },
    getText: (bucket, key) => buckets.get(bucket)?.get(key)?.body.toString('utf8'),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** Answers a request: status, headers, body. */
type Send = (status: number, headers: Record<string, string>, payload?: Buffer | string) => void;

/** One parsed request. */
interface S3Call {
  url: URL;
  bucket: string;
  key: string;
  method: string;
  ifMatch: string | undefined;
  ifNoneMatch: string | undefined;
  contentType: string | undefined;
  body: Buffer;
}

/** An S3 error document. */
function errorReply(send: Send, status: number, code: string, message: string): void {
  send(
    status,
    { 'content-type': 'application/xml' },
    `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message></Error>`,
  );
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Undoes `aws-chunked` content encoding (the SDK's streaming checksums), leaving plain bodies alone. */
function decodeBody(req: IncomingMessage, raw: Buffer): Buffer {
  const encoding = header(req, 'content-encoding') ?? '';
  const sha = header(req, 'x-amz-content-sha256') ?? '';
  if (!encoding.includes('aws-chunked') && !sha.startsWith('STREAMING-')) return raw;
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset < raw.length) {
    const lineEnd = raw.indexOf('\r\n', offset);
    if (lineEnd < 0) break;
    const size = Number.parseInt(raw.subarray(offset, lineEnd).toString('latin1').split(';')[0] ?? '0', 16);
    if (!size) break;
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

function listXml(bucket: string, objects: Map<string, StoredObject>, params: URLSearchParams): string {
  const prefix = params.get('prefix') ?? '';
  const maxKeys = Number(params.get('max-keys') ?? '1000');
  const after = params.get('continuation-token') ?? params.get('start-after') ?? '';
  const keys = [...objects.keys()].filter((k) => k.startsWith(prefix) && k > after).sort();
  const page = keys.slice(0, maxKeys);
  const truncated = keys.length > page.length;
  const contents = page
    .map((k) => {
      const o = objects.get(k) as StoredObject;
      return `<Contents><Key>${xmlEscape(k)}</Key><LastModified>${o.lastModified.toISOString()}</LastModified><ETag>${xmlEscape(o.etag)}</ETag><Size>${o.body.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
    })
    .join('');
  const next = truncated ? `<NextContinuationToken>${xmlEscape(page.at(-1) ?? '')}</NextContinuationToken>` : '';
  return `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${bucket}</Name><Prefix>${xmlEscape(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${maxKeys}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${next}${contents}</ListBucketResult>`;
}
