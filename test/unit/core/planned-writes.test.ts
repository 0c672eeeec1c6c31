// Scenario: before an interactive apply asks, the plan's writes are split by its window holds: writes of free targets
// are made, writes of held targets are listed per target with their hold, and a target whose mode (capped by --mode)
// keeps it unwritten counts in neither; no-ops, blocked changes and drift are no writes.
import { describe, expect, it } from 'vitest';
import {
  type Change,
  type ChangeAction,
  PLAN_FORMAT_VERSION,
  type Plan,
  type TargetRef,
} from '../../../lambdas/core/model.ts';
import { plannedWrites } from '../../../lambdas/core/window-holds-run.ts';

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

const plan: Plan = {
  formatVersion: PLAN_FORMAT_VERSION,
  runId: 'r',
  createdAt: '2026-12-21T10:00:00.000Z',
  mode: 'apply',
  desired: { digest: 'd', files: [] },
  liveDigests: {},
  changes: [
    change('free', 'create', 'a'),
    change('free', 'noop', 'b'),
    change('held', 'create', 'a'),
    change('held', 'update', 'b'),
    change('held', 'blocked', 'c'),
    change('held', 'drift', 'd'),
    change('planmode', 'delete', 'a'),
  ],
  failures: [],
  targetModes: { 'project:free': 'apply', 'project:held': 'apply', 'project:planmode': 'plan' },
  windowHolds: { 'project:held': HOLD, 'project:planmode': HOLD },
};

describe('plannedWrites', () => {
  it('splits the writes into made and held per target; a plan-mode target counts in neither', () => {
    expect(plannedWrites(plan, undefined)).toEqual({ made: 1, held: [{ target: target('held'), ...HOLD, writes: 2 }] });
  });

  it('--mode plan: nothing is made and nothing is held (the cap keeps every write unwritten)', () => {
    expect(plannedWrites(plan, 'plan')).toEqual({ made: 0, held: [] });
  });
});
