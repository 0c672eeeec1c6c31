/**
 * Request transfer codings (RFC 9112 section 6.1). Node frames a request whose Transfer-Encoding does not end with
 * `chunked` by reading to the end of the connection, and passes any other coding's bytes on undecoded: a client
 * sending `Transfer-Encoding: gzip` waited forever, and whatever followed on the connection was swallowed as its body.
 * The real product (behind Tomcat) answers such requests 400, and a coding it does not know 501.
 */
import { type ApiError, apiErrors } from '../errors.ts';

/** The coding every Transfer-Encoding must end with, and the only one the emulator decodes. */
export const CHUNKED = 'chunked';

/**
 * The error to answer a request with for its Transfer-Encoding header, or undefined when the header is absent or
 * `chunked` alone (in any case, with any whitespace). Several headers arrive joined by commas (Node does that).
 */
export function transferCodingError(header: string | undefined): ApiError | undefined {
  if (header === undefined) return undefined;
  const codings = header
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '');
  if (codings[codings.length - 1] !== CHUNKED) return apiErrors.transferEncodingNotChunked(header.trim());
  const other = codings.find((c) => c !== CHUNKED);
  return other === undefined ? undefined : apiErrors.unsupportedTransferEncoding(other);
}
