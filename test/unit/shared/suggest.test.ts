// Scenario: "did you mean" picks the closest command or option within a small edit distance, and nothing when far.
import { describe, expect, it } from 'vitest';
import { closest, editDistance } from '../../../shared/suggest.ts';

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['plan', 'plan', 0],
    ['plna', 'plan', 1],
    ['jsno', 'json', 1],
    ['aply', 'apply', 1],
    ['nope', 'mode', 2],
    ['abc', '', 3],
  ])('%s ~ %s = %i', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
  });
});

describe('closest', () => {
  const NAMES = ['plan', 'apply', 'validate', 'json', 'mode', 'max-deletes', 'auto-approve'];
  it.each([
    ['plna', 'plan'],
    ['aply', 'apply'],
    ['valdiate', 'validate'],
    ['max-delete', 'max-deletes'],
    ['autoapprove', 'auto-approve'],
    ['nope', undefined],
    ['frobnicate', undefined],
  ])('%s -> %s', (input, expected) => {
    expect(closest(input, NAMES)).toBe(expected);
  });
});
