// Scenario: a plan names the projects removed from git by what the state owns there: a config recorded with its id.
// A record holding only a pending-create marker (the create was lost before Ops Manager answered with an id) owns
// nothing yet, so a project holding only such records is not named, and such a key is not listed among the owned.
import { describe, expect, it } from 'vitest';
import type { ReconcileState } from '../../../lambdas/core/ports.ts';
import { projectsLeftOut } from '../../../lambdas/core/state.ts';

const marker = { runId: '20261127T070000Z-0a1b2c3d', startedAt: '2026-11-27T07:00:00.000Z' };
const state: ReconcileState = {
  formatVersion: 1,
  updatedAt: '2026-11-27T07:00:00.000Z',
  projects: {
    p3: { alertConfigs: { b: { id: '6c01' }, lost: { pendingCreate: marker }, a: { id: '6c02' } } },
    p1: { alertConfigs: { only: { pendingCreate: marker } } },
    p2: { alertConfigs: { x: { id: '6c03' } } },
    kept: { alertConfigs: { y: { id: '6c04' } } },
  },
};

describe('projectsLeftOut', () => {
  it('names departed projects by their keys with an id recorded, sorted, and none with only id-less records', () => {
    expect(projectsLeftOut(state, new Set(['kept']))).toEqual([
      { projectId: 'p2', keys: ['x'] },
      { projectId: 'p3', keys: ['a', 'b'] },
    ]);
  });
});
