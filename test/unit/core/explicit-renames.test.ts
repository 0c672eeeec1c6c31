// Scenario: renames declared with renamedFrom (lambdas/core/explicit-renames.ts), on a hand-built desired state (the
// loader's refusals do not run): an old key still declared, released, already moved to another key, or owning no live
// config moves nothing; a key with a record of its own takes nothing; the first listed old key wins; a change that
// cannot carry the rename says it waits for it.
import { describe, expect, it } from 'vitest';
import type { DesiredAlertBody } from '../../../lambdas/core/alert-body.ts';
import { asExplicitRename, explicitRenames } from '../../../lambdas/core/explicit-renames.ts';
import type { Change, DesiredAlertConfig } from '../../../lambdas/core/model.ts';
import type { LiveView } from '../../../lambdas/core/normalise.ts';

/** A desired config `key` renamed from `renamedFrom` (only the members explicitRenames reads matter). */
function config(key: string, renamedFrom?: string[]): DesiredAlertConfig {
  const c = { key, eventTypeName: 'HOST_DOWN', notifications: [], source: { file: 'p.yaml', line: 1, column: 1 } };
  return (renamedFrom === undefined ? c : { ...c, renamedFrom }) as unknown as DesiredAlertConfig;
}

const OWNED = { old: { id: 'c1' }, older: { id: 'c2' }, gone: { id: 'c3' }, marker: {} };
const live = (id: string) => id !== 'c3';
const none: ReadonlySet<string> = new Set();

describe('explicitRenames', () => {
  it('moves an old key that left git and owns a live config to the key that names it', () => {
    expect([...explicitRenames([config('new', ['old'])], OWNED, new Set(['new']), none, live)]).toEqual([
      ['new', 'old'],
    ]);
  });

  it('moves nothing from a key still declared or released, even when a hand-built desired state names it', () => {
    expect(explicitRenames([config('new', ['old'])], OWNED, new Set(['new', 'old']), none, live).size).toBe(0);
    expect(explicitRenames([config('new', ['old'])], OWNED, new Set(['new']), new Set(['old']), live).size).toBe(0);
  });

  it('moves an old key to one new key only: the first in order takes it', () => {
    const renames = explicitRenames(
      [config('a', ['old']), config('b', ['old'])],
      OWNED,
      new Set(['a', 'b']),
      none,
      live,
    );
    expect([...renames]).toEqual([['a', 'old']]);
  });

  it('skips an old key whose config is gone or that owns no id, and takes the first listed one that qualifies', () => {
    const renames = explicitRenames(
      [config('new', ['gone', 'marker', 'old', 'older'])],
      OWNED,
      new Set(['new']),
      none,
      live,
    );
    expect([...renames]).toEqual([['new', 'old']]);
  });

  it('takes nothing for a key that has a record of its own', () => {
    const owned = { ...OWNED, new: { id: 'c9' } };
    expect(explicitRenames([config('new', ['old'])], owned, new Set(['new']), none, live).size).toBe(0);
  });
});

describe('asExplicitRename', () => {
  const view = { normal: { eventTypeName: 'HOST_DOWN' } } as unknown as LiveView;
  const after = { eventTypeName: 'HOST_DOWN', enabled: true, notifications: [] } as unknown as DesiredAlertBody;
  const target = { type: 'project' as const, id: 'g1', name: 'p' };
  const base = { target, kind: 'alertConfig' as const, key: 'new', id: 'c1', fields: [] };

  it('a blocked change stays blocked, without movedFrom, and says the rename waits for it', () => {
    const blocked: Change = { ...base, action: 'blocked', after, reason: 'not converging' };
    const out = asExplicitRename(blocked, 'old', view, after);
    expect(out).toEqual({
      ...blocked,
      reason: 'not converging (key renamed from "old" (renamedFrom); the rename waits for this)',
    });
  });

  it('an equal config becomes an adoption showing the live config as before', () => {
    const out = asExplicitRename({ ...base, action: 'noop', reason: '' }, 'old', view, after);
    expect(out).toMatchObject({ action: 'adopt', movedFrom: 'old', before: view.normal, after });
  });
});
