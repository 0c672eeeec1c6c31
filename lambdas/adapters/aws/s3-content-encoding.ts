/**
 * The bytes an S3 object stands for, given its `Content-Encoding`. The SDK hands back the stored bytes as they are: an
 * object uploaded gzip-compressed (`aws s3 cp --content-encoding gzip`) is the compressed stream, which the loader
 * would refuse as a binary file. Gzip is decoded, within a bound; an encoding this cannot decode is refused by name.
 */
import { gunzipSync } from 'node:zlib';
import { S3ContentEncodingError } from './errors.ts';

/** Most bytes a compressed object may decode to: a gzip bomb stops here (the loader's own limits are smaller). */
export const MAX_DECODED_BYTES = 32 * 1024 * 1024;

/**
 * `bytes` decoded as `contentEncoding` says (a comma-separated list, applied in order). `identity` and `aws-chunked`
 * (a transfer framing some S3-compatible stores leave in the metadata; the body is plain) change nothing.
 */
export function decodeContent(
  bytes: Uint8Array,
  contentEncoding: string | undefined,
  location: string,
  maxBytes: number = MAX_DECODED_BYTES,
): Uint8Array {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity' && coding !== 'aws-chunked');
  let decoded = bytes;
  // Applied last is undone first.
  for (const coding of codings.reverse()) {
    if (coding !== 'gzip' && coding !== 'x-gzip') {
      throw new S3ContentEncodingError(
        location,
        `is stored with Content-Encoding ${JSON.stringify(coding.slice(0, 40))}, which cannot be decoded: upload it uncompressed or gzip-compressed`,
      );
    }
    try {
      decoded = gunzipSync(decoded, { maxOutputLength: maxBytes });
    } catch (error) {
      const tooBig = (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
      throw new S3ContentEncodingError(
        location,
        tooBig
          ? `is stored with Content-Encoding gzip and decodes to more than ${maxBytes} bytes`
          : `is stored with Content-Encoding gzip but is not a valid gzip stream (${(error as NodeJS.ErrnoException).code ?? 'error'}): upload it again`,
        { cause: error },
      );
    }
  }
  return decoded;
}
