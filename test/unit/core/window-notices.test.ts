// Scenario: the plan's notices about absolute windows that are over at its start: an ended allow window that is the
// only allow window of a target holds it for ever (a warning naming the targets and the way out); one whose targets
// have another allow window, or an ended deny window, gets a quiet note; windows not over, weekly windows and windows
// matching no target of the run say nothing.
import { describe, expect, it } from 'vitest';
import type { ChangeWindow } from '../../../lambdas/core/model.ts';
import { endedWindowNotices } from '../../../lambdas/core/window-notices.ts';

const P1 = '5e2211c17a3e5a48f5497de1';
const P2 = '5e2211c17a3e5a48f5497de2';
const KEYS = [`project:${P1}`, `project:${P2}`, 'organization:5e2211c17a3e5a48f5497de0', 'global:global'];
const AT = '2026-03-01T10:00:00.000Z';

const endedAllow: ChangeWindow = {
  name: 'slot',
  kind: 'allow',
  from: '2026-02-01T00:00:00Z',
  until: '2026-02-02T00:00:00+01:00',
};
const weeklyAllow: ChangeWindow = {
  name: 'weekdays',
  kind: 'allow',
  days: ['Mon'],
  start: '09:00',
  end: '17:00',
  timeZone: 'Etc/UTC',
};

interface Case {
  name: string;
  windows: ChangeWindow[];
  warnings: string[];
  notes: string[];
}

const FOR_EVER = (n: number, keys: string) =>
  `change window slot (allow) ended at 2026-02-01T23:00:00.000Z and can never open again: it holds ${n} target${n === 1 ? '' : 's'} for ever (${keys}), nothing there is written; remove it from Settings.changeWindows, or extend its until`;

const CASES: Case[] = [
  {
    name: 'an ended allow window for every target: all four held for ever',
    windows: [endedAllow],
    warnings: [FOR_EVER(4, KEYS.join(', '))],
    notes: [],
  },
  {
    name: 'an ended allow window for one project: that project only',
    windows: [{ ...endedAllow, projects: [P2] }],
    warnings: [FOR_EVER(1, `project:${P2}`)],
    notes: [],
  },
  {
    name: 'a weekly allow window for P1 too: only the others are held for ever',
    windows: [endedAllow, { ...weeklyAllow, projects: [P1] }],
    warnings: [FOR_EVER(3, KEYS.slice(1).join(', '))],
    notes: [],
  },
  {
    name: 'every target has a weekly allow window as well: a note',
    windows: [endedAllow, weeklyAllow],
    warnings: [],
    notes: [
      'change window slot (allow) ended at 2026-02-01T23:00:00.000Z: it can never open again and holds nothing this run (its targets follow their other allow windows); remove it from Settings.changeWindows',
    ],
  },
  {
    name: 'an ended deny window: a note',
    windows: [{ name: 'freeze', kind: 'deny', from: '2025-12-18T00:00:00Z', until: '2026-01-04T08:00:00Z' }],
    warnings: [],
    notes: [
      'change window freeze (deny) ended at 2026-01-04T08:00:00.000Z: it holds nothing any more; remove it from Settings.changeWindows',
    ],
  },
  {
    name: 'an allow window ending exactly at the run: over (until is exclusive)',
    windows: [{ ...endedAllow, until: AT }],
    warnings: [FOR_EVER(4, KEYS.join(', ')).replace('2026-02-01T23:00:00.000Z', AT)],
    notes: [],
  },
  {
    name: 'an allow window not over yet: nothing',
    windows: [{ ...endedAllow, until: '2026-03-01T10:01:00Z' }],
    warnings: [],
    notes: [],
  },
  { name: 'a weekly allow window: nothing', windows: [weeklyAllow], warnings: [], notes: [] },
  {
    name: 'an ended allow window matching no target of this run: nothing',
    windows: [{ ...endedAllow, projects: ['5e2211c17a3e5a48f5497de9'] }],
    warnings: [],
    notes: [],
  },
];

describe('endedWindowNotices', () => {
  it.each(CASES)('$name', ({ windows, warnings, notes }) => {
    expect(endedWindowNotices(windows, KEYS, AT)).toEqual({ warnings, notes });
  });

  it('lists five targets, then how many more', () => {
    const keys = Array.from({ length: 7 }, (_, i) => `project:5e2211c17a3e5a48f5497d${String(i).padStart(2, '0')}`);
    const [warning] = endedWindowNotices([endedAllow], keys, AT).warnings;
    expect(warning).toContain(`holds 7 targets for ever (${keys.slice(0, 5).join(', ')} and 2 more)`);
  });
});
