// The pieces change windows are read from (lambdas/core/change-windows.ts): RFC 3339 instants of absolute windows,
// and which targets a window with a projects list applies to.
import { describe, expect, it } from 'vitest';
import { parseInstant, windowMatches } from '../../../lambdas/core/change-windows.ts';
import type { ChangeWindow } from '../../../lambdas/core/model.ts';

describe('parseInstant', () => {
  it('reads an offset east or west of UTC and the fraction of a second', () => {
    const utc = Date.parse('2026-12-24T18:00:00Z');
    expect(parseInstant('2026-12-24T18:00:00Z')).toBe(utc);
    expect(parseInstant('2026-12-24T13:30:00-04:30')).toBe(utc);
    expect(parseInstant('2026-12-24T19:00:00+01:00')).toBe(utc);
    expect(parseInstant('2026-12-24T18:00:00.5Z')).toBe(utc + 500);
    expect(parseInstant('2026-12-24T18:00:00.123456789Z')).toBe(utc + 123);
  });

  it.each([
    ['2026-12-24T18:00:60Z', 'second 60'],
    ['2026-12-24T18:00:00+24:00', 'offset hour 24'],
    ['2026-12-24T18:00:00+01:60', 'offset minute 60'],
    ['2026-12-24T18:00:00', 'no offset'],
  ])('refuses %s (%s)', (text) => {
    expect(parseInstant(text)).toBeUndefined();
  });
});

describe('windowMatches', () => {
  const freeze: ChangeWindow = {
    name: 'freeze',
    kind: 'deny',
    from: '2026-12-24T00:00:00Z',
    until: '2026-12-27T00:00:00Z',
    projects: ['5e2211c17a3e5a48f5497de1'],
  };

  it('a window naming projects applies to those projects only, never to an organization of the same id', () => {
    expect(windowMatches(freeze, { type: 'project', id: '5e2211c17a3e5a48f5497de1', name: 'p' })).toBe(true);
    expect(windowMatches(freeze, { type: 'project', id: '5e2211c17a3e5a48f5497de2', name: 'q' })).toBe(false);
    expect(windowMatches(freeze, { type: 'organization', id: '5e2211c17a3e5a48f5497de1', name: 'o' })).toBe(false);
    expect(windowMatches({ ...freeze, projects: undefined }, { type: 'global', id: 'global', name: 'g' })).toBe(true);
  });
});
