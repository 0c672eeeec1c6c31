// Scenario: after a POST whose new config cannot be identified, apply tells a config that appeared since the plan from
// one the plan saw by the ids the plan lists: its unmanaged alert configs and the id of every alert change (an owned
// config updated or deleted is as much "seen" as an unmanaged one); a plan without the unmanaged list says nothing.
import { describe, expect, it } from 'vitest';
import { plannedAlertIds } from '../../../lambdas/core/apply-alerts.ts';
import type { Change, Plan } from '../../../lambdas/core/model.ts';

const p1 = { type: 'project' as const, id: 'p1', name: 'one' };
const p2 = { type: 'project' as const, id: 'p2', name: 'two' };

const change = (target: typeof p1, key: string, action: Change['action'], id?: string): Change =>
  ({ target, kind: 'alertConfig', key, action, fields: [], reason: '', ...(id === undefined ? {} : { id }) }) as Change;

describe('plannedAlertIds', () => {
  it("lists, per project, the plan's unmanaged alert configs and the ids its alert changes address", () => {
    const plan = {
      changes: [change(p1, 'a', 'update', 'c1'), change(p1, 'b', 'create'), change(p2, 'c', 'delete', 'c9')],
      unmanaged: [
        { target: p1, kind: 'alertConfig', id: 'u1', summary: 'HOST_DOWN (enabled)' },
        { target: p2, kind: 'alertConfig', id: 'u2', summary: 'HOST_DOWN (enabled)' },
      ],
    } as unknown as Plan;
    expect(plannedAlertIds(plan)).toEqual(
      new Map([
        ['p1', new Set(['u1', 'c1'])],
        ['p2', new Set(['u2', 'c9'])],
      ]),
    );
  });

  it('is undefined for a plan without the unmanaged list (an older or hand-made one)', () => {
    expect(plannedAlertIds({ changes: [change(p1, 'a', 'update', 'c1')] } as unknown as Plan)).toBeUndefined();
  });
});
