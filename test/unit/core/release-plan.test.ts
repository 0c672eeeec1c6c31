// Scenario: planReleases on its own: released keys in key order whatever the order of spec.release, a key named like
// an Object.prototype member that this state does not own is a note (never a release of a record it does not have).
import { describe, expect, it } from 'vitest';
import type { TargetRef } from '../../../lambdas/core/model.ts';
import type { OwnedAlertConfig } from '../../../lambdas/core/ports.ts';
import { planReleases } from '../../../lambdas/core/release.ts';

const TARGET: TargetRef = { type: 'project', id: 'p1', name: 'payments-prod' };

/** The records a state file parsed from JSON holds: an ordinary object, Object.prototype behind it. */
function owned(records: Record<string, OwnedAlertConfig>): Record<string, OwnedAlertConfig> {
  return JSON.parse(JSON.stringify(records)) as Record<string, OwnedAlertConfig>;
}

describe('planReleases', () => {
  it('plans releases and notes in key order, not in the order spec.release lists them', () => {
    const records = owned({ b: { id: 'id-b' }, d: { id: 'id-d' } });
    const out = planReleases(TARGET, ['d', 'c', 'b', 'a'], records, new Map(), new Map(), new Set());
    expect(out.changes.map((c) => c.key)).toEqual(['b', 'd']);
    expect(out.notes.map((n) => /"(\w+)"/.exec(n)?.[1])).toEqual(['a', 'c']);
  });

  it('claims the live config a release owns, with its view as `before`, so no other change of the plan takes it', () => {
    const live = { id: 'id-disk', eventTypeName: 'HOST_DOWN', enabled: true } as never;
    const normal = { eventTypeName: 'HOST_DOWN' } as never;
    const claimed = new Set<string>();
    const out = planReleases(
      TARGET,
      ['disk'],
      owned({ disk: { id: 'id-disk' } }),
      new Map([['id-disk', live]]),
      new Map([['id-disk', { normal, text: '', digest: '' }]]),
      claimed,
    );
    expect(out.changes).toMatchObject([{ key: 'disk', action: 'release', id: 'id-disk', before: normal }]);
    expect([...claimed]).toEqual(['id-disk']);
  });

  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])(
    'a released key "%s" the state does not own is a note, not a release',
    (key) => {
      const claimed = new Set<string>();
      const out = planReleases(TARGET, [key], owned({ disk: { id: 'id-disk' } }), new Map(), new Map(), claimed);
      expect(out.changes).toEqual([]);
      expect(out.notes).toEqual([
        `project payments-prod: released key "${key}" is not owned by this state (already released, or never managed): nothing to release; the entry can be removed from spec.release`,
      ]);
      expect(claimed.size).toBe(0);
    },
  );
});
