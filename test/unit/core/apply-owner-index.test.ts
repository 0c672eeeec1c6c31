// Scenario: apply checks each adoption against the keys that own its id without listing every record of the project per adoption, and the answer stays that of a full scan: an id adopted earlier in the same apply is owned, and of two keys owning one id (a hand-edited state) the first listed decides.
import { describe, expect, it } from 'vitest';
import { type AlertApplyContext, applyAlertChange } from '../../../lambdas/core/apply-alerts.ts';
import type { Change } from '../../../lambdas/core/model.ts';
import type { OwnedAlertConfig, ReconcileState } from '../../../lambdas/core/ports.ts';

const AFTER = { eventTypeName: 'HOST_DOWN', enabled: true, matchers: [], notifications: [] };

function adopt(key: string, id: string, movedFrom?: string): Change {
  const change: Change = {
    target: { type: 'project', id: 'g', name: 'p' },
    kind: 'alertConfig',
    key,
    action: 'adopt',
    id,
    after: AFTER,
    fields: [],
    reason: '',
  } as unknown as Change;
  if (movedFrom !== undefined) change.movedFrom = movedFrom;
  return change;
}

function context(records: Record<string, OwnedAlertConfig>): AlertApplyContext {
  const state = { formatVersion: 1, projects: { g: { alertConfigs: records } } } as unknown as ReconcileState;
  return {
    // Adoptions without secrets send nothing: an API that is called fails the test.
    api: {} as AlertApplyContext['api'],
    secrets: { resolve: async () => 'unused' } as unknown as AlertApplyContext['secrets'],
    fingerprintKey: new Uint8Array(32),
    state,
    now: () => '2026-11-26T00:00:00.000Z',
  };
}

describe('adoption ownership check', () => {
  it("lists the project's records once for many adoptions, not once per adoption", async () => {
    const plain: Record<string, OwnedAlertConfig> = {};
    for (let i = 0; i < 50; i++) plain[`owned${i}`] = { id: `o${i}` };
    let listings = 0;
    const records = new Proxy(plain, {
      ownKeys(target) {
        listings++;
        return Reflect.ownKeys(target);
      },
    });
    const ctx = context(records);
    for (let i = 0; i < 50; i++) await applyAlertChange(adopt(`new${i}`, `n${i}`), ctx);
    expect(Object.keys(plain).filter((k) => k.startsWith('new'))).toHaveLength(50);
    expect(plain.new7?.id).toBe('n7');
    expect(listings).toBeLessThanOrEqual(2);
  });

  it('refuses to adopt an id that a key adopted earlier in the same apply owns', async () => {
    const ctx = context({ a: { id: 'x1' } });
    await applyAlertChange(adopt('b', 'y1'), ctx);
    await expect(applyAlertChange(adopt('c', 'y1'), ctx)).rejects.toThrow(/already owned by key "b"/);
    // The record of the key it moved from is dropped with the move: the id is then the new key's alone.
    await applyAlertChange(adopt('d', 'x1', 'a'), ctx);
    await expect(applyAlertChange(adopt('e', 'x1'), ctx)).rejects.toThrow(/already owned by key "d"/);
    await applyAlertChange(adopt('d', 'x1'), ctx);
  });

  it('of two keys owning one id, the first listed decides, as a scan of the records would', async () => {
    const ctx = context({ first: { id: 'dup' }, second: { id: 'dup' } });
    await expect(applyAlertChange(adopt('second', 'dup'), ctx)).rejects.toThrow(/already owned by key "first"/);
    await applyAlertChange(adopt('first', 'dup'), ctx);
  });
});
