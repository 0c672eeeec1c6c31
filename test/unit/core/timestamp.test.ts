// Scenario: Ops Manager's "ISO 8601 UTC" timestamps read as instants, strictly: the forms Java emits are read, a
// missing zone is UTC whatever the local time zone, and text Date.parse would stretch into a date is refused.
import { describe, expect, it } from 'vitest';
import { parseTimestamp } from '../../../lambdas/core/timestamp.ts';

const AT = Date.UTC(2026, 9, 14, 9, 12, 44);

describe('parseTimestamp', () => {
  it.each([
    ['2026-10-14T09:12:44Z', AT],
    ['2026-10-14T09:12:44.5Z', AT + 500],
    ['2026-10-14T09:12:44.123456789Z', AT + 123],
    ['2026-10-14T09:12:44+00:00', AT],
    ['2026-10-14T09:12:44+0000', AT],
    ['2026-10-14T11:12:44+02', AT],
    ['2026-10-14T05:42:44-03:30', AT],
    ['2026-10-14t09:12:44z', AT],
    ['2026-10-14 09:12:44Z', AT],
    ['2026-10-14T09:12Z', AT - 44_000],
    ['2026-10-14T09:12:44', AT],
    ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
    ['0096-02-29T00:00:00Z', Date.parse('0096-02-29T00:00:00Z')],
    ['2000-02-29T00:00:00Z', Date.UTC(2000, 1, 29)],
  ])('%s', (text, expected) => {
    expect(parseTimestamp(text)).toBe(expected);
  });

  it.each([
    '',
    '5',
    'Mon, 1',
    '2026-10-14',
    '2026-02-29T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-10-14T24:00:00Z',
    '2026-10-14T09:60:00Z',
    '2026-10-14T09:12:44+19:00',
    '2026-10-14T09:12:44+05:99',
    '2026-10-14T09:12:44.Z',
    ' 2026-10-14T09:12:44Z',
    'Wed, 14 Oct 2026 09:12:44 GMT',
  ])('%j is not a timestamp', (text) => {
    expect(parseTimestamp(text)).toBeNull();
  });

  it('reads a timestamp without a zone as UTC in any local time zone', () => {
    const saved = process.env.TZ;
    try {
      for (const zone of ['America/St_Johns', 'Pacific/Kiritimati']) {
        process.env.TZ = zone;
        expect(parseTimestamp('2026-10-14T09:12:44')).toBe(AT);
      }
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });
});
