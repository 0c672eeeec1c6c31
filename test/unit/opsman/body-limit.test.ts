// Scenario: readBodyWithin on bodies built in memory: a Content-Length that is not a plain number bounds nothing (the
// body is then read within the limit as it streams), and a streamed body loses its UTF-8 byte order mark as undici's
// text() drops it.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBodyWithin } from '../../../lambdas/opsman/body-limit.ts';
import { OpsManagerResponseTooLargeError } from '../../../lambdas/opsman/errors.ts';

const CONTEXT = { method: 'GET', pathTemplate: '/orgs' };

/** A response whose body streams `chunks`, with undici's text() and arrayBuffer() over the same bytes. */
function response(chunks: Buffer[], headers: Record<string, string> = {}) {
  const all = Buffer.concat(chunks);
  const body = Object.assign(Readable.from(chunks), {
    text: async () => all.toString('utf8'),
    arrayBuffer: async () => all.buffer.slice(all.byteOffset, all.byteOffset + all.length),
  });
  return { statusCode: 200, headers, body } as unknown as Parameters<typeof readBodyWithin>[0];
}

describe('readBodyWithin', () => {
  it.each(['abc', '12abc', '-1', '1e3', ''])(
    'a Content-Length of %j bounds nothing: the stream is still cut',
    async (length) => {
      const chunks = [Buffer.from('x'.repeat(8)), Buffer.from('y'.repeat(8))];
      const error = await readBodyWithin(response(chunks, { 'content-length': length }), 10, CONTEXT).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(OpsManagerResponseTooLargeError);
      expect(error).toMatchObject({ receivedBytes: 16, announcedBytes: undefined, limitBytes: 10 });
    },
  );

  it('drops a UTF-8 byte order mark from a streamed body, and only that', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    expect(await readBodyWithin(response([bom, Buffer.from('{"a":1}')]), 100, CONTEXT)).toBe('{"a":1}');
    expect(await readBodyWithin(response([Buffer.from('{"é":1}')]), 100, CONTEXT)).toBe('{"é":1}');
  });
});
