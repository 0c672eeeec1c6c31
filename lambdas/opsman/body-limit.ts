/**
 * Reads a response body as text, never more than a limit: refused at once when `Content-Length` announces more, and
 * cut off while streaming as soon as the bytes read pass it (a chunked body has no length to check first, and a
 * broken proxy may stream one without end). Cutting off destroys undici's body, which aborts the request and closes
 * its connection: the rest is never read, and the socket is not handed back to the pool half-read.
 *
 * Bodies are UTF-8 (RFC 8259 section 8.1), with one exception: the spec has Ops Manager answer its 401 with
 * `Content-Type: application/json;charset=ISO-8859-1` (the Java servlet default), and a body so labelled is written in
 * ISO-8859-1, where `é` is the single byte E9. Read as UTF-8 every such byte became U+FFFD. A body labelled with a
 * single-byte Latin charset is therefore read as UTF-8 when it is valid UTF-8 (a server that labels its UTF-8 bytes
 * wrongly, as many do), and as the charset it names otherwise.
 */
import type { Dispatcher } from 'undici';
import { OpsManagerResponseTooLargeError, type RequestContext } from './errors.ts';

/** The `Content-Length` a response announced, or undefined when absent or not a plain decimal number. */
function announcedLength(header: string | string[] | undefined): number | undefined {
  const text = Array.isArray(header) ? header[0] : header;
  if (text === undefined || !/^\d+$/.test(text.trim())) return undefined;
  return Number(text.trim());
}

/** Charset labels (lower-cased) of the single-byte Latin encodings, read as windows-1252 (the WHATWG mapping of all). */
const LATIN_LABELS = new Set([
  'iso-8859-1',
  'iso8859-1',
  'latin1',
  'l1',
  'iso_8859-1',
  'us-ascii',
  'windows-1252',
  'cp1252',
]);

/** Whether the Content-Type names a single-byte Latin charset: `application/json;charset=ISO-8859-1`. */
function declaresLatinCharset(header: string | string[] | undefined): boolean {
  const text = Array.isArray(header) ? header[0] : header;
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(text ?? '')?.[1];
  return charset !== undefined && LATIN_LABELS.has(charset.toLowerCase());
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
const LATIN = new TextDecoder('windows-1252');

/**
 * The text of a body labelled with a Latin charset: UTF-8 when the bytes are valid UTF-8 (a leading byte order mark
 * dropped), else the bytes as the label says.
 */
function decodeLatinLabelled(bytes: Uint8Array): string {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return LATIN.decode(bytes);
  }
}

/** Stops reading: the connection is closed (undici aborts the request), and the abort's error has a listener. */
function discard(body: Dispatcher.ResponseData['body']): void {
  // Destroying an unread body emits RequestAbortedError on it; nobody waits for it, so it must not go unhandled.
  body.on('error', () => undefined);
  body.destroy();
}

/**
 * The body as UTF-8 text (a leading byte order mark dropped, as undici's `text()` does; a Latin-labelled body as said
 * above), or
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
  const latin = declaresLatinCharset(response.headers['content-type']);
  if (announcedBytes !== undefined) {
    return latin ? decodeLatinLabelled(new Uint8Array(await body.arrayBuffer())) : body.text();
  }
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
  if (latin) return decodeLatinLabelled(all);
  const bom = all.length >= 3 && all[0] === 0xef && all[1] === 0xbb && all[2] === 0xbf;
  return all.toString('utf8', bom ? 3 : 0);
}
