/**
 * Request content codings. The emulator, like the real product, reads request bodies as sent: a body compressed with
 * `Content-Encoding: gzip` (or any coding but `identity`) is refused with 415 (RFC 9110 section 15.5.16) rather than
 * parsed as JSON and answered INVALID_JSON, which would blame the JSON for what the encoding did.
 */

/** The only content coding a request body may declare (RFC 9110 section 8.4.1: "no encoding"). */
export const ACCEPTED_CONTENT_CODING = 'identity';

/**
 * The first content coding of a `Content-Encoding` header value that the emulator cannot decode, lower-cased; undefined
 * when there is none (no header, or only `identity`). Several headers arrive joined by commas (Node does that).
 */
export function unsupportedCoding(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  for (const part of value.split(',')) {
    const coding = part.trim().toLowerCase();
    if (coding !== '' && coding !== ACCEPTED_CONTENT_CODING) return coding;
  }
  return undefined;
}
