// Scenario: a column YAML reports in a rewritten line (a colon, a space or a "- " written in, then maybe re-indented)
// is taken back to the column of the same character in the file.
import { describe, expect, it } from 'vitest';
import { addShift, type ColumnShift, editShift, fileColumn } from '../../../lambdas/core/desired/column-shifts.ts';

/** Every character of `file` that is still in `text`, found at its column in the file through the shifts. */
function roundTrip(file: string, rewrites: readonly ((line: string) => string)[], marker = '#'): void {
  const shifts = new Map<number, ColumnShift[]>();
  let text = file;
  for (const rewrite of rewrites) {
    const next = rewrite(text);
    addShift(shifts, 1, editShift(text, next));
    text = next;
  }
  // A marker character after the changed part is found where it is in the file.
  const column = text.indexOf(marker) + 1;
  expect(fileColumn(shifts, 1, column)).toBe(file.indexOf(marker) + 1);
}

describe('column shifts', () => {
  it.each([
    ['a colon written in', '  key value #', [(l: string) => l.replace('key', 'key:')]],
    ['a space written after the colon', '  key:{a: #}', [(l: string) => l.replace(':', ': ')]],
    ['a "- " written in', '    key: #', [(l: string) => l.replace('key', '- key')]],
    ['a value removed', '  key: value #', [(l: string) => l.replace('value ', '')]],
    [
      'a colon written in, then the line re-indented',
      '  key value #',
      [(l: string) => l.replace('key', 'key:'), (l: string) => `  ${l}`],
    ],
  ])('%s', (_name, file, rewrites) => roundTrip(file, rewrites));

  it('undoes the latest rewrite first: a value between the two changes of a re-indented line', () => {
    // The re-indentation moved `v` left of where the colon was written: undone in the order made, it would be taken
    // for a character before the colon.
    const rewrites = [(l: string) => l.replace('key', 'key:'), (l: string) => l.trimStart().padStart(l.length - 4)];
    roundTrip('      key value #', rewrites, 'v');
  });

  it('leaves columns before the change where they are, and a rewrite of the same length alone', () => {
    const shift = editShift('  key value', '  key: value');
    expect(fileColumn(new Map([[1, shift ? [shift] : []]]), 1, 3)).toBe(3);
    expect(editShift('  key :x', '  key: x')).toBeUndefined();
  });

  it('leaves lines without shifts alone', () => {
    expect(fileColumn(undefined, 4, 7)).toBe(7);
    expect(fileColumn(new Map([[3, [{ from: 1, by: 2 }]]]), 4, 7)).toBe(7);
  });
});
