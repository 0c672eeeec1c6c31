// Scenario: a pending-create marker is read back from a stored state: its `releasedIds` (the configs its plan released
// in the project, never its late landing) must be a list of ids, its runId and startedAt present, or the document is
// refused by path.
import { describe, expect, it } from 'vitest';
import { stateDocumentProblem } from '../../../lambdas/core/state-check.ts';

const stateWith = (pendingCreate: unknown) => ({
  formatVersion: 1,
  updatedAt: '2026-11-27T07:00:00.000Z',
  projects: { '5e2211c17a3e5a48f5497de3': { alertConfigs: { 'disk-r1': { pendingCreate } } } },
});
const marker = { runId: '20261127T070000Z-0a1b2c3d', startedAt: '2026-11-27T07:00:00.000Z', desiredDigest: 'd' };

describe('a pending-create marker with releasedIds', () => {
  it('is read back when it lists ids', () => {
    expect(stateDocumentProblem(stateWith({ ...marker, releasedIds: ['6c0100000000000000000003'] }))).toBeUndefined();
  });

  it.each([
    ['not a list', 'x', 'releasedIds is a string, expected an array of strings'],
    ['a number among the ids', ['6c0100000000000000000003', 7], 'releasedIds[1] is a number, expected a string'],
    ['a null among the ids', ['6c0100000000000000000003', null], 'releasedIds[1] is null, expected a string'],
  ])('is refused by path when %s', (_what, releasedIds, detail) => {
    expect(stateDocumentProblem(stateWith({ ...marker, releasedIds }))?.detail).toContain(detail);
  });
});

// The marker's runId and startedAt are what the pending-create bookkeeping names and ages the lost create by: a marker
// without them is not one this code can resolve, so the document is refused rather than read with a hole in it.
describe('a pending-create marker missing a required field', () => {
  it.each(['runId', 'startedAt'])('is refused when %s is missing', (field) => {
    const { [field as keyof typeof marker]: _dropped, ...rest } = marker;
    expect(stateDocumentProblem(stateWith(rest))?.detail).toBe(
      `projects.5e2211c17a3e5a48f5497de3.alertConfigs.disk-r1.pendingCreate.${field} is missing`,
    );
  });
});
