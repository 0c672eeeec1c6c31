// Scenario: where a JSON text broke is told by line and column as an editor counts them (a CR LF or a lone CR ends a
// line, an emoji is one column), and a byte order mark is named instead of being left as an unexplained column 1.
import { describe, expect, it } from 'vitest';
import { jsonErrorPosition, whereJsonBroke } from '../../../shared/json-position.ts';

function failure(text: string): unknown {
  try {
    JSON.parse(text);
  } catch (error) {
    return error;
  }
  throw new Error('expected the text to be invalid JSON');
}

describe('jsonErrorPosition', () => {
  it.each([
    ['LF', '{\n"a": 1,\n}', 3, 1],
    ['CR LF', '{\r\n"a": 1,\r\n}', 3, 1],
    ['lone CR', '{\r"a": 1,\r}', 3, 1],
    ['a tab counts one column', '{\n\t"a": x}', 2, 7],
    ['astral characters count one column each', '{"😀😀": 1, x}', 1, 11],
    ['empty text', '', 1, 1],
    ['whitespace only', '  \n\t ', 2, 3],
  ])('%s', (_name, text, line, column) => {
    expect(jsonErrorPosition(text, failure(text))).toEqual({ line, column });
  });

  it('is undefined for an error that is not a SyntaxError', () => {
    expect(jsonErrorPosition('{}', new Error('x'))).toBeUndefined();
  });
});

describe('whereJsonBroke', () => {
  it('names a byte order mark, without quoting the text', () => {
    const text = '\uFEFF{"password": "hunter2"}';
    const where = whereJsonBroke(text, failure(text));
    expect(where).toBe(' (at line 1, column 1: a byte order mark; save the file as UTF-8 without one)');
    expect(where).not.toContain('hunter2');
  });

  it.each([
    ['an empty file', '', ' (the file is empty)'],
    ['white space only', ' \n\t\n', ' (the file holds only white space)'],
  ])('says %s is empty instead of pointing at line 1, column 1', (_case, text, where) => {
    expect(whereJsonBroke(text, failure(text))).toBe(where);
  });

  it('says a file too large to bisect is too large, not nothing', () => {
    // A value V8 reports without a position (an unquoted word), far past the bisection budget.
    const text = `{"a": "${'x'.repeat(8_000_000)}", "b": secret}`;
    const where = whereJsonBroke(text, failure(text));
    expect(where).toBe(' (too large to say where: 8 MB)');
  });
});

describe('jsonErrorPosition on a large text', () => {
  // V8 gives no position for an unexpected token; finding it re-parses prefixes (about length × log2(length)
  // characters), which took 25 s on a 62 MB saved plan. Past the budget no position is given rather than a slow one.
  const text = `[${'1,'.repeat(5000)}x]`;

  it('finds the position within the budget', () => {
    expect(jsonErrorPosition(text, failure(text))).toEqual({ line: 1, column: 10_002 });
  });

  it('gives no position when bisecting would re-parse more than the budget', () => {
    expect(jsonErrorPosition(text, failure(text), 100_000)).toBeUndefined();
  });

  it('still gives a position V8 states, whatever the budget', () => {
    const trailing = `{${'"a":1,'.repeat(5000)}}`;
    // V8 names the offset of the closing brace after the trailing comma: 1 + 5000 * 6 characters in.
    expect(jsonErrorPosition(trailing, failure(trailing), 0)).toEqual({ line: 1, column: 30_002 });
  });
});
