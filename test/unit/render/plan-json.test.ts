// Scenario: `--json` prints the Plan value itself, with a stable key order whatever order the keys were built in.
import { describe, expect, it } from 'vitest';
import type { Plan } from '../../../lambdas/core/model.ts';
import { canonicalize, renderPlanJson } from '../../../lambdas/core/render/json.ts';
import { change, plan } from '../../helpers/cli-plans.ts';

const P = plan([
  change({ key: 'a', action: 'update', id: 'i1', fields: [{ path: 'enabled', before: false, after: true }] }),
  change({ key: 'b', action: 'create', after: { notifications: [], eventTypeName: 'HOST_DOWN', enabled: true } }),
]);

function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reversedKeys(v)]),
  );
}

describe('renderPlanJson', () => {
  it('round-trips to the same plan value', () => {
    expect(JSON.parse(renderPlanJson(P))).toEqual(P);
  });

  it('prints the same bytes whatever the insertion order of keys', () => {
    expect(renderPlanJson(reversedKeys(P) as Plan)).toBe(renderPlanJson(P));
  });

  it('puts the plan header first and the changes in the documented field order', () => {
    const text = renderPlanJson(P);
    expect(Object.keys(JSON.parse(text))).toEqual([
      'formatVersion',
      'runId',
      'createdAt',
      'mode',
      'desired',
      'liveDigests',
      'changes',
      'failures',
    ]);
    expect(Object.keys(JSON.parse(text).changes[0])).toEqual([
      'target',
      'kind',
      'key',
      'action',
      'id',
      'fields',
      'reason',
    ]);
    expect(text.endsWith('}\n')).toBe(true);
  });

  it('sorts unknown keys and drops undefined values', () => {
    const table = [
      { input: { b: 1, a: 2 }, keys: ['a', 'b'] },
      { input: { zeta: 1, id: 2, key: 3 }, keys: ['key', 'id', 'zeta'] },
      { input: { a: undefined, b: null }, keys: ['b'] },
    ];
    for (const { input, keys } of table) expect(Object.keys(canonicalize(input) as object)).toEqual(keys);
  });
});
