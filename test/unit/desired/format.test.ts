// Scenario: issues render like compiler output in a stable order, and did-you-mean only suggests plausible typos.
import { describe, expect, it } from 'vitest';
import { didYouMean, levenshtein } from '../../../lambdas/core/desired/did-you-mean.ts';
import { formatIssues, sortIssues, type ValidationIssue } from '../../../lambdas/core/desired/index.ts';

const issue = (file: string, line: number, column: number, message: string): ValidationIssue => ({
  file,
  line,
  column,
  path: '',
  message,
});

describe('formatIssues', () => {
  it('renders file:line:col: message lines and a count', () => {
    expect(formatIssues([issue('a.yaml', 3, 5, 'first'), issue('b.yaml', 1, 1, 'second')])).toBe(
      'a.yaml:3:5: first\nb.yaml:1:1: second\n2 errors in 2 files\n',
    );
    expect(formatIssues([issue('a.yaml', 1, 1, 'only')])).toBe('a.yaml:1:1: only\n1 error in 1 file\n');
  });

  it('sorts by file, line, column, then message', () => {
    const sorted = sortIssues([
      issue('b.yaml', 1, 1, 'x'),
      issue('a.yaml', 10, 1, 'y'),
      issue('a.yaml', 2, 9, 'z'),
      issue('a.yaml', 2, 3, 'w'),
    ]);
    expect(sorted.map((i) => `${i.file}:${i.line}:${i.column}`)).toEqual([
      'a.yaml:2:3',
      'a.yaml:2:9',
      'a.yaml:10:1',
      'b.yaml:1:1',
    ]);
  });
});

describe('did you mean', () => {
  it.each([
    ['kitten', 'sitting', 3],
    ['', 'abc', 3],
    ['intervalMn', 'intervalMin', 1],
    ['same', 'same', 0],
  ])('levenshtein(%s, %s) = %i', (a, b, d) => {
    expect(levenshtein(a, b)).toBe(d);
  });

  it.each([
    ['intervalMn', ['intervalMin', 'delayMin', 'typeName'], 'intervalMin'],
    ['NO_PRIMRY', ['NO_PRIMARY', 'HOST_DOWN'], 'NO_PRIMARY'],
    ['group', ['GROUP', 'ORG'], 'GROUP'],
    ['completelyDifferent', ['typeName', 'delayMin'], undefined],
    ['GROUP', ['GROUP'], undefined],
  ])('%s -> %s', (input, candidates, expected) => {
    expect(didYouMean(input, candidates)).toBe(expected);
  });
});
