// Scenario: the emulator's event index lists a project's or an organization's events without scanning the others, follows appends, and rebuilds for a replaced event list.
import { describe, expect, it } from 'vitest';
import { EventIndex } from '../../../emulator/store/event-index.ts';
import type { EventRec } from '../../../emulator/store/state.ts';

const event = (id: string, owner: { groupId?: string; orgId?: string }): EventRec => ({
  id,
  created: '2026-11-01T00:00:00Z',
  eventTypeName: 'ALERT_CONFIG_ADDED_AUDIT',
  ...owner,
});

describe('EventIndex', () => {
  it('gives the positions of a project, and of an organization without its projects, in order', () => {
    const events = [
      event('1', { groupId: 'g1', orgId: 'o1' }),
      event('2', { orgId: 'o1' }),
      event('3', { groupId: 'g2', orgId: 'o1' }),
      event('4', { groupId: 'g1', orgId: 'o1' }),
    ];
    const index = new EventIndex();
    expect(index.ofGroup(events, 'g1')).toEqual([0, 3]);
    expect(index.ofGroup(events, 'g2')).toEqual([2]);
    expect(index.ofOrg(events, 'o1')).toEqual([1]);
    expect(index.ofGroup(events, 'none')).toEqual([]);
  });

  it('follows events appended to the same list, and rebuilds for another list', () => {
    const events = [event('1', { groupId: 'g1' })];
    const index = new EventIndex();
    expect(index.ofGroup(events, 'g1')).toEqual([0]);
    events.push(event('2', { groupId: 'g2' }), event('3', { groupId: 'g1' }));
    expect(index.ofGroup(events, 'g1')).toEqual([0, 2]);
    const replaced = [event('9', { groupId: 'g2' })];
    expect(index.ofGroup(replaced, 'g1')).toEqual([]);
    expect(index.ofGroup(replaced, 'g2')).toEqual([0]);
  });

  it('rebuilds when the same list got shorter (never trusts positions past its end)', () => {
    const events = [event('1', { groupId: 'g1' }), event('2', { groupId: 'g1' })];
    const index = new EventIndex();
    expect(index.ofGroup(events, 'g1')).toEqual([0, 1]);
    events.length = 1;
    expect(index.ofGroup(events, 'g1')).toEqual([0]);
  });
});
