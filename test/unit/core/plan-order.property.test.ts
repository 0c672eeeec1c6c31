// Scenario: property: sortChanges orders any list of changes as the plain definition does (target type, name, id; kind; action order; key), stably, also when equal targets are distinct objects.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ACTION_ORDER, type Change, type ChangeKind, type TargetRef } from '../../../lambdas/core/model.ts';
import { sortChanges } from '../../../lambdas/core/plan-order.ts';

const TYPE_RANK: Record<TargetRef['type'], number> = { project: 0, organization: 1, global: 2 };
const KINDS: ChangeKind[] = ['alertConfig', 'defaultServerType', 'auditLogRotation', 'versionManifest'];
const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);

/** The order written out plainly: the reference the ranked sort must match. */
function reference(a: Change, b: Change): number {
  return (
    cmp(TYPE_RANK[a.target.type], TYPE_RANK[b.target.type]) ||
    cmp(a.target.name, b.target.name) ||
    cmp(a.target.id, b.target.id) ||
    cmp(KINDS.indexOf(a.kind), KINDS.indexOf(b.kind)) ||
    cmp(ACTION_ORDER.indexOf(a.action), ACTION_ORDER.indexOf(b.action)) ||
    cmp(a.key, b.key)
  );
}

const target = fc.record({
  type: fc.constantFrom<TargetRef['type']>('project', 'organization', 'global'),
  id: fc.constantFrom('1', '2', '10'),
  name: fc.constantFrom('alpha', 'beta', 'Beta', ''),
});

const change = fc
  .record({
    target,
    // Equal targets arrive as one shared object or as copies: both must rank the same.
    copy: fc.boolean(),
    kind: fc.constantFrom(...KINDS),
    action: fc.constantFrom(...ACTION_ORDER),
    key: fc.constantFrom('a', 'b', 'B', 'a2', ''),
    tag: fc.nat(),
  })
  .map(({ target: t, copy, kind, action, key, tag }) => ({ t, copy, kind, action, key, tag }));

describe('sortChanges', () => {
  it('equals a stable sort by the plain definition (property)', () => {
    fc.assert(
      fc.property(fc.array(change, { maxLength: 40 }), (specs) => {
        const shared = new Map<string, TargetRef>();
        const changes: Change[] = specs.map((s) => {
          const k = `${s.t.type}/${s.t.id}/${s.t.name}`;
          const existing = shared.get(k) ?? s.t;
          shared.set(k, existing);
          const t = s.copy ? { ...s.t } : existing;
          return { target: t, kind: s.kind, action: s.action, key: s.key, fields: [], reason: String(s.tag) };
        });
        const sorted = sortChanges(changes);
        expect(sorted).toEqual([...changes].sort(reference));
        // Identity too: the same objects, ties in input order.
        expect(sorted.every((c, i) => c === [...changes].sort(reference)[i])).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('returns a copy and leaves the input alone', () => {
    const t: TargetRef = { type: 'project', id: '1', name: 'p' };
    const input: Change[] = [
      { target: t, kind: 'alertConfig', action: 'noop', key: 'b', fields: [], reason: '' },
      { target: t, kind: 'alertConfig', action: 'create', key: 'a', fields: [], reason: '' },
    ];
    const before = [...input];
    expect(sortChanges(input).map((c) => c.key)).toEqual(['a', 'b']);
    expect(input).toEqual(before);
  });
});
