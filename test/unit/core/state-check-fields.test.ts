// Scenario: a stored state is refused field by field (state-check.ts): each case below is a document one field away
// from a usable one, and each must be refused as corrupt with its path, never read with a hole the core later trips on.
import { describe, expect, it } from 'vitest';
import { stateDocumentProblem } from '../../../lambdas/core/state-check.ts';

const pid = '5e2211c17a3e5a48f5497de3';
const doc = (patch: Record<string, unknown> = {}, record: Record<string, unknown> = {}, key = 'cpu') => ({
  formatVersion: 1,
  updatedAt: '2026-11-27T07:00:00.000Z',
  projects: { [pid]: { alertConfigs: { [key]: { id: '6c0100000000000000000001', ...record } } } },
  ...patch,
});
const streak = { runs: 2, since: '2026-11-27T07:00:00.000Z', actors: ['a'], fields: ['enabled'] };

describe('stateDocumentProblem, one field away from a usable state', () => {
  it('accepts the usable one', () => {
    expect(stateDocumentProblem(doc())).toBeUndefined();
  });

  it.each([
    [
      'a non-convergence guard without its fields',
      doc({}, { notConverging: { desiredDigest: 'd', since: 's' } }),
      `projects.${pid}.alertConfigs.cpu.notConverging.fields is missing`,
    ],
    [
      'an appliedDigest a number',
      doc({}, { appliedDigest: 7 }),
      `projects.${pid}.alertConfigs.cpu.appliedDigest is a number, expected a string`,
    ],
    [
      'ignoredFields a string',
      doc({}, { ignoredFields: 'enabled' }),
      `projects.${pid}.alertConfigs.cpu.ignoredFields is a string, expected an array of strings`,
    ],
    [
      'a drift streak of 1.5 runs',
      doc({ organizations: { o1: { driftStreaks: { x: { ...streak, runs: 1.5 } } } } }),
      'organizations.o1.driftStreaks.x.runs is a number, expected a whole number of 1 or more',
    ],
    ['lastRun a string', doc({ lastRun: 'yesterday' }), 'lastRun is a string, expected an object'],
    ['lastRun without its runId', doc({ lastRun: { finishedAt: 't', mode: 'apply' } }), 'lastRun.runId is missing'],
    [
      'a fingerprintKeyCheck a number',
      doc({ fingerprintKeyCheck: 7 }),
      'fingerprintKeyCheck is a number, expected a string',
    ],
    ['formatVersion 1.5 (not a later release’s)', doc({ formatVersion: 1.5 }), 'formatVersion is 1.5, expected 1'],
  ])('refuses %s as corrupt, by path', (_what, value, detail) => {
    expect(stateDocumentProblem(value)).toEqual({ kind: 'corrupt', detail });
  });

  it('cuts a long key in the path (a message is not a dump of the document)', () => {
    const key = 'k'.repeat(300);
    const detail = stateDocumentProblem(doc({}, { id: 1 }, key))?.detail ?? '';
    expect(detail).toBe(`projects.${pid}.alertConfigs.${'k'.repeat(80)}….id is a number, expected a string`);
  });
});
