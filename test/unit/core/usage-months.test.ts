// Scenario: the archive's months are UTC months whatever the machine's time zone: the month of a run near midnight,
// the previous month across a year end and in a leap year, and the instant the previous month closed.
import { afterEach, describe, expect, it } from 'vitest';
import { monthRange, previousMonthRange } from '../../../lambdas/core/usage-months.ts';

const savedTz = process.env.TZ;
afterEach(() => {
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
});

// Far from UTC both ways (UTC-3:30 and UTC+14), so a local-time slip changes the day and the month.
describe.each(['America/St_Johns', 'Pacific/Kiritimati'])('in TZ=%s', (zone) => {
  it('the current month is the UTC month, up to the UTC day', () => {
    process.env.TZ = zone;
    expect(monthRange(new Date('2026-12-31T23:30:00Z'))).toEqual({
      month: '2026-12',
      startDate: '2026-12-01',
      endDate: '2026-12-31',
    });
    expect(monthRange(new Date('2027-01-01T00:10:00Z'))).toEqual({
      month: '2027-01',
      startDate: '2027-01-01',
      endDate: '2027-01-01',
    });
  });

  it('the previous month crosses the year end and knows leap years', () => {
    process.env.TZ = zone;
    expect(previousMonthRange(new Date('2027-01-01T00:05:00Z'))).toEqual({
      month: '2026-12',
      startDate: '2026-12-01',
      endDate: '2026-12-31',
      closedAt: new Date('2027-01-01T00:00:00Z'),
    });
    expect(previousMonthRange(new Date('2028-03-01T00:05:00Z')).endDate).toBe('2028-02-29');
    expect(previousMonthRange(new Date('2026-03-31T23:55:00Z')).endDate).toBe('2026-02-28');
    expect(previousMonthRange(new Date('2100-03-01T00:00:00Z')).endDate).toBe('2100-02-28');
  });
});
