// Scenario: byNumberedText orders keys as export numbers them (digit runs as numbers, the rest by code unit, never by
// locale), and is a total order: equal only for equal strings, antisymmetric, so a sort by it is deterministic.
import { describe, expect, it } from 'vitest';
import { byNumberedText } from '../../../lambdas/core/order.ts';

const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);

describe('byNumberedText', () => {
  it.each([
    ['host-down', 'host-down-2', -1],
    ['host-down-2', 'host-down-10', -1],
    ['host-down-9', 'host-down-10', -1],
    ['host-down-10', 'host-down-11', -1],
    ['host-down-10', 'host-down-a', -1],
    ['a2b', 'a10a', -1],
    ['a10b', 'a10c', -1],
    ['x-02', 'x-2', -1],
    ['x-2', 'x-02', 1],
    ['x-007', 'x-10', -1],
    ['B', 'a', -1],
    ['host-down', 'host-down', 0],
    ['', 'a', -1],
    ['10', '9', 1],
  ] as const)('%s vs %s: %i', (a, b, want) => {
    expect(sign(byNumberedText(a, b))).toBe(want);
    expect(sign(byNumberedText(b, a))).toBe(want === 0 ? 0 : -want);
  });

  it('sorts what export writes in creation order', () => {
    const keys = ['host-down-10', 'host-down-2', 'host-down', 'host-down-11', 'host-down-3', 'host-down-1x'];
    expect([...keys].sort(byNumberedText)).toEqual([
      'host-down',
      'host-down-1x',
      'host-down-2',
      'host-down-3',
      'host-down-10',
      'host-down-11',
    ]);
  });
});
