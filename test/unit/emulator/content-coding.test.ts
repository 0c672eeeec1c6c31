// Scenario: which Content-Encoding header values name a coding the emulator cannot decode (all but identity).
import { describe, expect, it } from 'vitest';
import { unsupportedCoding } from '../../../emulator/http/content-coding.ts';

describe('unsupportedCoding', () => {
  it.each<[string, string | string[] | undefined, string | undefined]>([
    ['no header', undefined, undefined],
    ['an empty header', '', undefined],
    ['identity', 'identity', undefined],
    ['identity in capitals, twice, with blanks', ' Identity , IDENTITY ', undefined],
    ['empty list members', ',, identity ,', undefined],
    ['gzip', 'gzip', 'gzip'],
    ['br in capitals', 'BR', 'br'],
    ['gzip after identity', 'identity, gzip', 'gzip'],
    ['the first of two codings', 'deflate, gzip', 'deflate'],
    ['repeated headers as an array', ['identity', 'x-gzip'], 'x-gzip'],
  ])('%s', (_name, header, expected) => {
    expect(unsupportedCoding(header)).toBe(expected);
  });
});
