/**
 * Answers to requests Node cannot parse or that arrive too slowly (the server's `clientError`). Node's own answer is a
 * bare status line; here it carries the real product's five-field body too, naming what was wrong (Node's parser
 * reason: `Duplicate Content-Length`, `Invalid header value char`), so a broken client learns why.
 */
import { maxHeaderSize } from 'node:http';
import { ApiError } from '../errors.ts';
import type { ServiceVersion } from '../store/state.ts';
import { standardHeaders } from './respond.ts';

/**
 * The error for one client error: 408 past the request timeout, 431 for headers too large, 505 for the HTTP/2
 * preface, else 400.
 */
export function clientErrorFor(err: NodeJS.ErrnoException & { reason?: unknown }, requestTimeoutMs: number): ApiError {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new ApiError(408, 'REQUEST_TIMEOUT', `The request did not arrive whole within ${requestTimeoutMs} ms.`, [
      requestTimeoutMs,
    ]);
  }
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return new ApiError(
      431,
      'REQUEST_HEADER_FIELDS_TOO_LARGE',
      `The request line and headers exceed ${maxHeaderSize} bytes.`,
      [maxHeaderSize],
    );
  }
  if (err.code === 'HPE_PAUSED_H2_UPGRADE') {
    // The HTTP/2 connection preface (`PRI * HTTP/2.0`): Node's reason, `Pause on PRI/Upgrade`, would tell the client
    // nothing. RFC 9110 section 15.6.6: the major version is not supported.
    return new ApiError(505, 'HTTP_VERSION_NOT_SUPPORTED', 'HTTP/2 is not supported; send HTTP/1.1.', ['HTTP/2.0']);
  }
  // Node's parser reason is fixed English text; anything else is not echoed (no control characters, no stack).
  const reason = typeof err.reason === 'string' && /^[\x20-\x7e]{1,200}$/.test(err.reason) ? err.reason : 'parse error';
  const code = typeof err.code === 'string' && /^[A-Z0-9_]{1,64}$/.test(err.code) ? err.code : 'UNKNOWN';
  return new ApiError(400, 'INVALID_HTTP_REQUEST', `The request is not valid HTTP/1.1: ${reason}.`, [code]);
}

/** The raw HTTP/1.1 answer (the connection closes after it) for `err`, its own headers included. */
export function clientErrorResponse(err: ApiError, version: ServiceVersion): string {
  const body = JSON.stringify(err.toBody());
  const headers = {
    ...standardHeaders(version),
    ...err.headers,
    Connection: 'close',
    'Content-Length': String(Buffer.byteLength(body)),
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${err.status} ${err.toBody().reason}\r\n${lines.join('')}\r\n${body}`;
}
