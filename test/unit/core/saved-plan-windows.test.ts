// Scenario: the change windows a saved plan is applied under are read again from the desired state: the added,
// removed and changed ones are named, the plan's recorded windows are replaced (or dropped when git has none), and a
// desired state that cannot be loaded leaves the recorded ones in force, with a warning naming why.
import { describe, expect, it } from 'vitest';
import { DesiredStateInvalidError } from '../../../lambdas/core/errors.ts';
import {
  type ChangeWindow,
  DEFAULT_SETTINGS,
  type DesiredState,
  PLAN_FORMAT_VERSION,
  type Plan,
} from '../../../lambdas/core/model.ts';
import { windowChanges, withCurrentWindows } from '../../../lambdas/core/saved-plan-windows.ts';

const FREEZE: ChangeWindow = {
  name: 'freeze',
  kind: 'deny',
  from: '2026-12-18T00:00:00Z',
  until: '2027-01-04T08:00:00Z',
};
const HOURS: ChangeWindow = {
  name: 'hours',
  kind: 'allow',
  days: ['Mon', 'Tue'],
  start: '09:00',
  end: '17:00',
  timeZone: 'Etc/UTC',
};

function plan(changeWindows?: ChangeWindow[]): Plan {
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    runId: 'r',
    createdAt: '2026-12-01T00:00:00Z',
    mode: 'plan',
    desired: { digest: 'd', files: [] },
    liveDigests: {},
    changes: [],
    failures: [],
    ...(changeWindows === undefined ? {} : { changeWindows }),
  };
}

function desired(changeWindows?: ChangeWindow[]): () => Promise<DesiredState> {
  const settings = { ...DEFAULT_SETTINGS, ...(changeWindows === undefined ? {} : { changeWindows }) };
  return async () => ({ settings }) as DesiredState;
}

describe('windowChanges', () => {
  it('names the windows added, removed and changed (by name; key order does not count)', () => {
    const reordered = { until: FREEZE.until, from: FREEZE.from, kind: FREEZE.kind, name: FREEZE.name } as ChangeWindow;
    expect(windowChanges([FREEZE], [reordered])).toEqual({ added: [], removed: [], changed: [] });
    expect(
      windowChanges(
        [FREEZE, HOURS],
        [
          { ...HOURS, end: '18:00' },
          { ...FREEZE, name: 'freeze-2' },
        ],
      ),
    ).toEqual({
      added: ['freeze-2'],
      removed: ['freeze'],
      changed: ['hours'],
    });
  });
});

describe('withCurrentWindows', () => {
  it('takes the current windows and says how they differ from the recorded ones', async () => {
    const warnings: string[] = [];
    const out = await withCurrentWindows(plan([HOURS]), desired([FREEZE, { ...HOURS, start: '08:00' }]), warnings);
    expect(out.changeWindows).toEqual([FREEZE, { ...HOURS, start: '08:00' }]);
    expect(warnings).toEqual([
      "change windows read from the current desired state: 2 differ from the saved plan's (added: freeze; changed: hours); the current ones decide what is held",
    ]);
  });

  it('says nothing when they are the same, and drops the member when git has none any more', async () => {
    const warnings: string[] = [];
    expect((await withCurrentWindows(plan([FREEZE]), desired([FREEZE]), warnings)).changeWindows).toEqual([FREEZE]);
    expect(warnings).toEqual([]);
    expect(await withCurrentWindows(plan(), desired(), warnings)).toEqual(plan());
    expect(warnings).toEqual([]);
    const lifted = await withCurrentWindows(plan([FREEZE]), desired(), warnings);
    expect('changeWindows' in lifted).toBe(false);
    expect(warnings).toEqual([
      "change windows read from the current desired state: 1 differ from the saved plan's (removed: freeze); the current ones decide what is held",
    ]);
  });

  it('keeps the recorded windows when the desired state cannot be loaded, and warns naming why', async () => {
    const warnings: string[] = [];
    const saved = plan([FREEZE]);
    const failing = async (): Promise<DesiredState> => {
      throw new DesiredStateInvalidError([], 'the desired state in dir /x has 1 problem(s); run validate');
    };
    expect(await withCurrentWindows(saved, failing, warnings)).toBe(saved);
    expect(warnings).toEqual([
      "CHANGE WINDOWS NOT RE-READ: the desired state could not be loaded (the desired state in dir /x has 1 problem(s); run validate): the saved plan's recorded windows were used",
    ]);
  });
});
