// Scenario: the apply's window bookkeeping (window-holds-run.ts) on its own. Before an interactive apply asks, the
// plan's writes are split by its window holds: writes of free targets are made, writes of held targets are listed per
// target with their hold, and a target whose mode (capped by --mode) keeps it unwritten counts in neither; no-ops,
// blocked changes and drift are no writes. After the apply, heldByWindows counts, per held target that its mode would
// have written, the writes skipped (not a change that writes nothing, not a result that was made, not a target its
// mode holds); withApplyHolds with --ignore-windows warns "written anyway" only for a held target with a write to make.
import { describe, expect, it } from 'vitest';
import {
  type Change,
  type ChangeAction,
  type ChangeResult,
  PLAN_FORMAT_VERSION,
  type Plan,
  type TargetRef,
} from '../../../lambdas/core/model.ts';
import { heldByWindows, plannedWrites, withApplyHolds } from '../../../lambdas/core/window-holds-run.ts';

const target = (id: string): TargetRef => ({ type: 'project', id, name: `name-${id}` });
const change = (id: string, action: ChangeAction, key: string): Change => ({
  target: target(id),
  kind: 'alertConfig',
  key,
  action,
  fields: [],
  reason: '',
});
const HOLD = { kind: 'deny' as const, windows: ['freeze'], until: '2027-01-04T08:00:00.000Z' };

function planOf(changes: Change[], targetModes: Plan['targetModes'], extra: Partial<Plan> = {}): Plan {
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    runId: 'r',
    createdAt: '2026-12-21T10:00:00.000Z',
    mode: 'apply',
    desired: { digest: 'd', files: [] },
    liveDigests: {},
    changes,
    failures: [],
    targetModes,
    ...extra,
  };
}

const plan = planOf(
  [
    change('free', 'create', 'a'),
    change('free', 'noop', 'b'),
    change('held', 'create', 'a'),
    change('held', 'update', 'b'),
    change('held', 'blocked', 'c'),
    change('held', 'drift', 'd'),
    change('planmode', 'delete', 'a'),
  ],
  { 'project:free': 'apply', 'project:held': 'apply', 'project:planmode': 'plan' },
  { windowHolds: { 'project:held': HOLD, 'project:planmode': HOLD } },
);

describe('plannedWrites', () => {
  it('splits the writes into made and held per target; a plan-mode target counts in neither', () => {
    expect(plannedWrites(plan, undefined)).toEqual({ made: 1, held: [{ target: target('held'), ...HOLD, writes: 2 }] });
  });

  it('--mode plan: nothing is made and nothing is held (the cap keeps every write unwritten)', () => {
    expect(plannedWrites(plan, 'plan')).toEqual({ made: 0, held: [] });
  });
});

const result = (c: Change, status: ChangeResult['status']): ChangeResult => ({ change: c, status, durationMs: 0 });

describe('heldByWindows', () => {
  it('counts the skipped writes of a held target only: not its drift or blocked changes, not a write made', () => {
    const writes = [change('held', 'create', 'a'), change('held', 'update', 'b')];
    const others = [change('held', 'drift', 'c'), change('held', 'blocked', 'd')];
    const made = change('held', 'delete', 'e');
    const plan = planOf(
      [...writes, ...others, made],
      { 'project:held': 'apply' },
      { windowHolds: { 'project:held': HOLD } },
    );
    const results = [...writes, ...others].map((c) => result(c, 'skipped'));
    results.push(result(made, 'applied'));
    expect(heldByWindows(plan, undefined, results)).toEqual([{ target: target('held'), ...HOLD, writes: 2 }]);
  });

  it('leaves out a held target its mode keeps unwritten: its writes were skipped by the mode, not the window', () => {
    const write = change('planmode', 'create', 'a');
    const plan = planOf([write], { 'project:planmode': 'plan' }, { windowHolds: { 'project:planmode': HOLD } });
    expect(heldByWindows(plan, undefined, [result(write, 'skipped')])).toEqual([]);
  });
});

describe('withApplyHolds with the windows lifted', () => {
  it('warns "written anyway" for a held target with writes only, never for one with nothing to write', () => {
    const plan = planOf(
      [change('writes', 'update', 'a'), change('quiet', 'drift', 'a'), change('quiet', 'blocked', 'b')],
      { 'project:writes': 'apply', 'project:quiet': 'apply' },
      {
        changeWindows: [{ name: 'freeze', kind: 'deny', from: '2026-12-20T00:00:00Z', until: '2027-01-04T08:00:00Z' }],
      },
    );
    const warnings: string[] = [];
    const out = withApplyHolds(plan, '2026-12-21T10:00:00.000Z', '--ignore-windows', warnings, undefined);
    expect(out.windowHolds).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^CHANGE WINDOW IGNORED \(--ignore-windows\): project:writes held by change window freeze/,
    );
  });
});
