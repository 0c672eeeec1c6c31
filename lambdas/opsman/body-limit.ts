/**
 * Reads a response body as text, never more than a limit: refused at once when `Content-Length` announces more, and
 * cut off while streaming as soon as the bytes read pass it (a chunked body has no length to check first, and a
 * broken proxy may stream one without end). Cutting off destroys undici's body, which aborts the request and closes
 * its connection: the rest is never read, and the socket is not handed back to the pool half-read.
 */
import type { Dispatcher } from 'undici';
import { OpsManagerResponseTooLargeError, type RequestContext } from './errors.ts';

/** The `Content-Length` a response announced, or undefined when absent or not a plain decimal number. */
function announcedLength(header: string | string[] | undefined): number | undefined {
  const text = Array.isArray(header) ? header[0] : header;
  if (text === undefined || !/^\d+$/.test(text.trim())) return undefined;
  return Number(text.trim());
}

/** Stops reading: the connection is closed (undici aborts the request), and the abort's error has a listener. */
function discard(body: Dispatcher.ResponseData['body']): void {
  // Destroying an unread body emits RequestAbortedError on it; nobody waits for it, so it must not go unhandled.
  body.on('error', () => undefined);
  body.destroy();
}

/**
 * The body as UTF-8 text (a leading byte order mark dropped, as undici's `text()` does), or
 * {@link OpsManagerResponseTooLargeError} once it is over `limitBytes`.
 */
export async function readBodyWithin(
  response: Pick<Dispatcher.ResponseData, 'body' | 'headers' | 'statusCode'>,
  limitBytes: number,
  context: RequestContext,
): Promise<string> {
  const { body, statusCode: status } = response;
  const announcedBytes = announcedLength(response.headers['content-length']);
  if (announcedBytes !== undefined && announcedBytes > limitBytes) {
    discard(body);
    throw new OpsManagerResponseTooLargeError(context, { status, limitBytes, receivedBytes: 0, announcedBytes });
  }
  // A length within the limit bounds the body already (HTTP/1.1 framing: undici reads that many bytes and no more),
  // so undici's own text() reads it: the async iteration below costs every one of a plan's thousands of answers
  // more main-thread time than text() does, for no extra safety.
  if (announcedBytes !== undefined) return body.text();
  const chunks: Buffer[] = [];
  let receivedBytes = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    receivedBytes += chunk.length;
    if (receivedBytes > limitBytes) {
      discard(body);
      throw new OpsManagerResponseTooLargeError(context, { status, limitBytes, receivedBytes, announcedBytes });
    }
    chunks.push(chunk);
  }
  const all = Buffer.concat(chunks, receivedBytes);
  const bom = all.length >= 3 && all[0] === 0xef && all[1] === 0xbb && all[2] === 0xbf;
  return all.toString('utf8', bom ? 3 : 0);
}
