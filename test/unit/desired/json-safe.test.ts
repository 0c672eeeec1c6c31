// Scenario: isJsonSafe accepts exactly the values that come back from JSON.parse(JSON.stringify(v)) unchanged.
import { describe, expect, it } from 'vitest';
import { isJsonSafe } from '../../../lambdas/core/desired/json-safe.ts';

const shared = { a: 1 };
const cyclic: Record<string, unknown> = { a: 1 };
cyclic.self = cyclic;

describe('isJsonSafe', () => {
  it.each<[string, unknown, boolean]>([
    ['plain data', { a: [1, 'x', true, null, { b: -1.5 }], c: '' }, true],
    ['a shared sub-object', { x: shared, y: [shared] }, true],
    ['an empty object and array', { a: {}, b: [] }, true],
    ['undefined property', { a: undefined }, false],
    ['undefined in an array', [1, undefined], false],
    ['a hole in an array', new Array(2), false],
    ['NaN', { n: Number.NaN }, false],
    ['Infinity', { n: Number.POSITIVE_INFINITY }, false],
    ['-0', { n: -0 }, false],
    ['a Date', { d: new Date(0) }, false],
    ['a Map', { m: new Map() }, false],
    ['a null-prototype object', { o: Object.create(null) }, false],
    ['a class instance', { o: new (class X {})() }, false],
    ['a symbol key', { [Symbol('s')]: 1 }, false],
    ['a bigint', { n: 1n }, false],
    ['a function', { f: () => 1 }, false],
    ['top-level undefined', undefined, false],
  ])('%s -> %s', (_name, value, safe) => {
    expect(isJsonSafe(value)).toBe(safe);
    if (safe) expect(JSON.parse(JSON.stringify(value))).toStrictEqual(value);
  });

  it('refuses a cycle, and anything nested deeper than any desired state', () => {
    expect(isJsonSafe(cyclic)).toBe(false);
    let deep: unknown = 1;
    for (let i = 0; i < 70; i++) deep = [deep];
    expect(isJsonSafe(deep)).toBe(false);
  });

  it('accepts 64 levels of nesting and refuses 65', () => {
    const nested = (levels: number) => {
      let value: unknown = 1;
      for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { v: value };
      return value;
    };
    expect(isJsonSafe(nested(64))).toBe(true);
    expect(isJsonSafe(nested(65))).toBe(false);
  });
});
