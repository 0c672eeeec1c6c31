/**
 * Reading request bodies (identity coding only, with a size limit), and parsing JSON with the reference's INVALID_JSON
 * error.
 */
import type { IncomingMessage } from 'node:http';
import { apiErrors } from '../errors.ts';
import { unsupportedCoding } from './content-coding.ts';
import { jsonDeeperThan, MAX_JSON_DEPTH } from './json-depth.ts';

/**
 * Reads the whole body as UTF-8 (RFC 8259 section 8.1); throws a 415 ApiError (body discarded) when it declares a
 * content coding other than `identity`, a 413 ApiError past `limit` bytes (answered with `Connection: close`: the rest
 * is not read), 400 INVALID_JSON when the bytes are not UTF-8 or the body is cut short (the client went away).
 * `onAccept` runs once the body is going to be read (after the coding and the declared length are checked).
 */
export function readBody(req: IncomingMessage, limit: number, onAccept?: () => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const coding = unsupportedCoding(req.headers['content-encoding']);
    if (coding !== undefined) {
      discardBody(req, limit);
      reject(apiErrors.unsupportedContentEncoding(coding));
      return;
    }
    const declared = Number(req.headers['content-length'] ?? '0');
    if (Number.isFinite(declared) && declared > limit) {
      discardBody(req, limit);
      reject(apiErrors.payloadTooLarge(limit));
      return;
    }
    onAccept?.();
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        chunks.length = 0;
        reject(apiErrors.payloadTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (failed) return;
      // Fatal decoding: a body in another charset (ISO-8859-1 says `café` as 63 61 66 E9) would otherwise be read with
      // U+FFFD in place of each bad byte and stored altered. A byte order mark is kept, so JSON.parse refuses it as before.
      try {
        resolve(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(Buffer.concat(chunks)));
      } catch {
        reject(apiErrors.notUtf8());
      }
    });
    // A client that goes away mid-body (or sends a chunk Node cannot parse) ends the request with Node's `aborted`
    // error: the client's doing, answered (to nobody) as a cut-short body rather than reported as an unexpected error.
    const cutShort = () => {
      if (!failed) reject(apiErrors.incompleteBody());
    };
    req.on('error', cutShort);
    req.on('close', () => {
      if (!req.complete) cutShort();
    });
  });
}

/**
 * Reads and drops a body the answer did not need. Up to `limit` bytes are drained so the connection can serve the
 * next request; past that the connection is closed once the answer is written, so a client streaming an endless
 * (or huge) body cannot hold it until requestTimeout.
 */
export function discardBody(req: IncomingMessage, limit: number): void {
  if (req.complete) return;
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) req.socket?.destroySoon();
  });
  req.resume();
}

/**
 * Parses a JSON body; `undefined` for an empty body. Throws 400 INVALID_JSON when malformed or nested deeper than
 * MAX_JSON_DEPTH (json-depth.ts says why).
 */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  if (jsonDeeperThan(text, MAX_JSON_DEPTH)) throw apiErrors.jsonTooDeep(MAX_JSON_DEPTH);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw apiErrors.invalidJson();
  }
  // The text itself is well-formed (decoded fatally from UTF-8): only a `\uD800`-style escape can make a lone
  // surrogate, so the values are walked only when the text has one.
  if (SURROGATE_ESCAPE.test(text) && hasLoneSurrogate(value)) throw apiErrors.loneSurrogate();
  return value;
}

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * True when a string (value or key) holds half a surrogate pair: not Unicode text, so it has no UTF-8 form. The real
 * product would store `?` in its place (its database holds UTF-8); refused here, as bytes that are not UTF-8 are.
 */
function hasLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.some(hasLoneSurrogate);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).some(([k, v]) => LONE_SURROGATE.test(k) || hasLoneSurrogate(v));
  }
  return false;
}
