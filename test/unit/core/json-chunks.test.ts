// Scenario: JSON written piece by piece (run reports, state) is byte-identical to JSON.stringify at every indent and split depth.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeChunks, jsonChunks, utf8Length } from '../../../lambdas/core/json-chunks.ts';

const odd = {
  a: [1, undefined, () => 1, Symbol('s')],
  b: undefined,
  c: { d: null, e: new Date(0), f: [[], {}, { z: undefined }] },
  '\u2028k"': 'line\nbreak',
};

describe('jsonChunks', () => {
  it('concatenates to JSON.stringify for any JSON value, indent and split depth', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 0, max: 5 }),
        (v, indent, split) => {
          for (const value of [v, { wrapped: [v, v], odd }]) {
            const want = JSON.stringify(value, null, indent);
            expect([...jsonChunks(value, { indent, splitDepth: split })].join('')).toBe(want);
            expect(Buffer.from(encodeChunks(jsonChunks(value, { indent, splitDepth: split }), '\n'))).toEqual(
              Buffer.from(`${want}\n`),
            );
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it.each([
    ['ascii', 'abc'],
    ['two-byte', 'é'],
    ['three-byte', '\u2028'],
    ['pair', '😀'],
    ['lone high surrogate', 'a\ud800b'],
    ['lone low surrogate', '\udc00'],
  ])('counts UTF-8 bytes like TextEncoder: %s', (_name, text) => {
    expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length);
  });
});
