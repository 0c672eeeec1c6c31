// Scenario: change windows decide, at an instant, whether a target is held and until when, on the wall clock of their
// time zone (DST in Europe/Paris included), with overnight windows, allow and deny mixed, and project filters.
import { describe, expect, it } from 'vitest';
import { windowHold, windowHolds } from '../../../lambdas/core/change-windows.ts';
import type { ChangeWindow, TargetRef } from '../../../lambdas/core/model.ts';

const P1 = '5e2211c17a3e5a48f5497de1';
const P2 = '5e2211c17a3e5a48f5497de2';
const project = (id: string): TargetRef => ({ type: 'project', id, name: id });
const org: TargetRef = { type: 'organization', id: '5e2211c17a3e5a48f5497de0', name: 'acme' };

const businessHours: ChangeWindow = {
  name: 'business-hours',
  kind: 'allow',
  days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'],
  start: '09:00',
  end: '17:00',
  timeZone: 'Europe/Paris',
};
const yearEnd: ChangeWindow = {
  name: 'year-end-freeze',
  kind: 'deny',
  from: '2026-12-18T00:00:00Z',
  until: '2027-01-02T08:00:00Z',
};
const fridayNight: ChangeWindow = {
  name: 'friday-night',
  kind: 'deny',
  days: ['Fri'],
  start: '22:00',
  end: '06:00',
  timeZone: 'Etc/UTC',
};
// 29 March 2026: Paris skips 02:00-02:59 (01:00Z); this window starts inside the gap.
const inGap: ChangeWindow = {
  name: 'gap',
  kind: 'deny',
  days: ['Sun'],
  start: '02:30',
  end: '03:30',
  timeZone: 'Europe/Paris',
};
// 25 October 2026: Paris repeats 02:00-02:59 (00:00Z-00:59Z in summer time, 01:00Z-01:59Z in winter time).
const endsInFold: ChangeWindow = {
  name: 'ends-in-fold',
  kind: 'deny',
  days: ['Sun'],
  start: '01:00',
  end: '02:30',
  timeZone: 'Europe/Paris',
};
const startsInFold: ChangeWindow = {
  name: 'starts-in-fold',
  kind: 'allow',
  days: ['Sun'],
  start: '02:30',
  end: '04:00',
  timeZone: 'Europe/Paris',
};
const foldHour: ChangeWindow = { ...endsInFold, name: 'fold-hour', start: '02:00', end: '03:00' };
const wholeDay: ChangeWindow = {
  name: 'whole-day',
  kind: 'deny',
  days: ['Wed'],
  start: '12:00',
  end: '12:00',
  timeZone: 'Etc/UTC',
};
const londonHour: ChangeWindow = {
  name: 'london-hour',
  kind: 'allow',
  days: ['Mon'],
  start: '14:00',
  end: '15:00',
  timeZone: 'Europe/London',
};
const newYorkDeny: ChangeWindow = {
  name: 'new-york-morning',
  kind: 'deny',
  days: ['Mon'],
  start: '09:00',
  end: '10:00',
  timeZone: 'America/New_York',
};
const onlyP1: ChangeWindow = { ...yearEnd, name: 'p1-freeze', projects: [P1] };

interface Case {
  name: string;
  windows: ChangeWindow[];
  target?: TargetRef;
  at: string;
  held?: { kind: 'allow' | 'deny'; windows: string[]; until?: string };
}

const CASES: Case[] = [
  { name: 'no windows: never held', windows: [], at: '2026-12-20T10:00:00Z' },
  {
    name: 'allow, before opening (08:59 CET)',
    windows: [businessHours],
    at: '2026-03-27T07:59:00Z',
    held: { kind: 'allow', windows: ['business-hours'], until: '2026-03-27T08:00:00.000Z' },
  },
  { name: 'allow, at opening (09:00 CET)', windows: [businessHours], at: '2026-03-27T08:00:00Z' },
  {
    name: 'allow, Friday evening before the spring DST change: reopens Monday 09:00 CEST (07:00Z)',
    windows: [businessHours],
    at: '2026-03-27T16:30:00Z',
    held: { kind: 'allow', windows: ['business-hours'], until: '2026-03-30T07:00:00.000Z' },
  },
  { name: 'allow, Monday 09:30 CEST after the change', windows: [businessHours], at: '2026-03-30T07:30:00Z' },
  {
    name: 'allow, Monday 08:59 CEST (06:59Z) is still closed',
    windows: [businessHours],
    at: '2026-03-30T06:59:00Z',
    held: { kind: 'allow', windows: ['business-hours'], until: '2026-03-30T07:00:00.000Z' },
  },
  {
    name: 'allow, Friday evening before the autumn DST change: reopens Monday 09:00 CET (08:00Z)',
    windows: [businessHours],
    at: '2026-10-23T16:00:00Z',
    held: { kind: 'allow', windows: ['business-hours'], until: '2026-10-26T08:00:00.000Z' },
  },
  { name: 'deny inside the DST gap: closed at 01:59 CET', windows: [inGap], at: '2026-03-29T00:59:00Z' },
  {
    name: 'deny inside the DST gap: open from 03:00 CEST, until 03:30 CEST',
    windows: [inGap],
    at: '2026-03-29T01:00:00Z',
    held: { kind: 'deny', windows: ['gap'], until: '2026-03-29T01:30:00.000Z' },
  },
  {
    // 02:00-03:00 lies wholly in the skipped hour: that Sunday it never opens; the next Sunday's 02:00 CEST is 00:00Z.
    name: 'allow wholly inside the DST gap: held through that night until the next Sunday',
    windows: [{ ...inGap, name: 'gap-hour', kind: 'allow', start: '02:00', end: '03:00', timeZone: 'Europe/Berlin' }],
    at: '2026-03-29T00:30:00Z',
    held: { kind: 'allow', windows: ['gap-hour'], until: '2026-04-05T00:00:00.000Z' },
  },
  {
    name: 'deny wholly inside the DST gap: holds nothing at 03:00 CEST',
    windows: [{ ...inGap, name: 'gap-hour', start: '02:00', end: '03:00', timeZone: 'Europe/Berlin' }],
    at: '2026-03-29T01:00:00Z',
  },
  {
    // One interval per occurrence: from the first 01:00 (23:00Z) to the last 02:30 (02:30 CET, 01:30Z), not closed
    // between the first 02:30 and the second 02:00.
    name: 'deny ending in the repeated hour: open from 02:30 CEST on, until the second 02:30 (CET)',
    windows: [endsInFold],
    at: '2026-10-25T00:45:00Z',
    held: { kind: 'deny', windows: ['ends-in-fold'], until: '2026-10-25T01:30:00.000Z' },
  },
  {
    name: 'deny ending in the repeated hour: closed after the second 02:30',
    windows: [endsInFold],
    at: '2026-10-25T01:30:00Z',
  },
  {
    name: 'deny 02:00-03:00 on the autumn night: two hours, from the first 02:00 to 03:00 CET',
    windows: [foldHour],
    at: '2026-10-25T00:00:00Z',
    held: { kind: 'deny', windows: ['fold-hour'], until: '2026-10-25T02:00:00.000Z' },
  },
  {
    name: 'allow starting in the repeated hour: opens at the first 02:30 (CEST), still open at the second 02:10',
    windows: [startsInFold],
    at: '2026-10-25T01:10:00Z',
  },
  {
    name: 'allow starting in the repeated hour: closed at the first 02:29, opens a minute later',
    windows: [startsInFold],
    at: '2026-10-25T00:29:00Z',
    held: { kind: 'allow', windows: ['starts-in-fold'], until: '2026-10-25T00:30:00.000Z' },
  },
  {
    name: 'overnight deny, Friday 23:00',
    windows: [fridayNight],
    at: '2026-11-27T23:00:00Z',
    held: { kind: 'deny', windows: ['friday-night'], until: '2026-11-28T06:00:00.000Z' },
  },
  {
    name: 'overnight deny, Saturday 05:59 (past midnight)',
    windows: [fridayNight],
    at: '2026-11-28T05:59:00Z',
    held: { kind: 'deny', windows: ['friday-night'], until: '2026-11-28T06:00:00.000Z' },
  },
  { name: 'overnight deny, Saturday 06:00: closed', windows: [fridayNight], at: '2026-11-28T06:00:00Z' },
  { name: 'overnight deny, Thursday 23:00: not a listed day', windows: [fridayNight], at: '2026-11-26T23:00:00Z' },
  {
    name: 'end equal to start: a whole day from start',
    windows: [wholeDay],
    at: '2026-11-26T11:59:00Z',
    held: { kind: 'deny', windows: ['whole-day'], until: '2026-11-26T12:00:00.000Z' },
  },
  {
    name: 'absolute deny at from (inclusive)',
    windows: [yearEnd],
    at: '2026-12-18T00:00:00Z',
    held: { kind: 'deny', windows: ['year-end-freeze'], until: '2027-01-02T08:00:00.000Z' },
  },
  { name: 'absolute deny at until (exclusive)', windows: [yearEnd], at: '2027-01-02T08:00:00Z' },
  {
    name: 'deny and allow mixed: the freeze ends on a Saturday, writes resume Monday 09:00 CET',
    windows: [businessHours, yearEnd],
    at: '2026-12-21T10:00:00Z',
    held: { kind: 'deny', windows: ['year-end-freeze'], until: '2027-01-04T08:00:00.000Z' },
  },
  {
    name: 'deny wins over an open allow',
    windows: [businessHours, fridayNight, { ...yearEnd, from: '2026-11-27T00:00:00Z', until: '2026-11-28T00:00:00Z' }],
    at: '2026-11-27T10:00:00Z',
    held: { kind: 'deny', windows: ['year-end-freeze'], until: '2026-11-30T08:00:00.000Z' },
  },
  {
    name: 'project filter: the named project is held',
    windows: [onlyP1],
    target: project(P1),
    at: '2026-12-20T10:00:00Z',
    held: { kind: 'deny', windows: ['p1-freeze'], until: '2027-01-02T08:00:00.000Z' },
  },
  {
    name: 'project filter: another project is not',
    windows: [onlyP1],
    target: project(P2),
    at: '2026-12-20T10:00:00Z',
  },
  { name: 'project filter: an organization is not', windows: [onlyP1], target: org, at: '2026-12-20T10:00:00Z' },
  {
    name: 'an allow window limited to another project does not hold this one',
    windows: [{ ...businessHours, projects: [P2] }],
    target: project(P1),
    at: '2026-11-28T10:00:00Z',
  },
  {
    name: 'an allow window that never opens again: held with no end',
    windows: [{ ...yearEnd, kind: 'allow', name: 'past' }],
    at: '2027-02-01T00:00:00Z',
    held: { kind: 'allow', windows: ['past'] },
  },
  {
    // New York 09:00 is London 14:00 except from 8 to 29 March 2026 (the US changes three weeks before the UK): the
    // allow hour comes free only then, more than a week ahead; the weekly pattern of the first week does not repeat.
    name: 'an allow window covered by a deny window in another zone until their DST changes part them',
    windows: [londonHour, newYorkDeny],
    at: '2026-02-27T10:00:00Z',
    held: { kind: 'allow', windows: ['london-hour'], until: '2026-03-09T14:00:00.000Z' },
  },
  {
    name: 'covered again once both zones changed: free next when autumn parts them (the UK a week first)',
    windows: [londonHour, newYorkDeny],
    at: '2026-04-03T10:00:00Z',
    held: { kind: 'allow', windows: ['london-hour'], until: '2026-10-26T14:00:00.000Z' },
  },
];

describe('windowHold', () => {
  it.each(CASES)('$name', ({ windows, target, at, held }) => {
    expect(windowHold(windows, target ?? project(P1), Date.parse(at))).toEqual(held);
  });
});

describe('windowHolds', () => {
  it('lists only the held targets, by key', () => {
    const keys = [`project:${P1}`, `project:${P2}`, `organization:${org.id}`];
    expect(windowHolds([onlyP1], keys, '2026-12-20T10:00:00.000Z')).toEqual({
      [`project:${P1}`]: { kind: 'deny', windows: ['p1-freeze'], until: '2027-01-02T08:00:00.000Z' },
    });
    expect(windowHolds(undefined, keys, '2026-12-20T10:00:00.000Z')).toEqual({});
  });
});
