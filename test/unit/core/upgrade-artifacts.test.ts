// Scenario: documents written by earlier releases (test/fixtures/upgrade: a state with a killed create's bare marker from the first day, the next, and the day before; a host assignments document from before it carried formatVersion) are read by this one as they are.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ArchiveStore, ReconcileState } from '../../../lambdas/core/ports.ts';
import { ownedIds, projectsLeftOut } from '../../../lambdas/core/state.ts';
import { stateDocumentProblem } from '../../../lambdas/core/state-check.ts';
import { carriedEntries } from '../../../lambdas/core/usage-document.ts';

const fixture = (name: string): string =>
  readFileSync(new URL(`../../fixtures/upgrade/${name}`, import.meta.url), 'utf8');

const PAYMENTS = '5e2211c17a3e5a48f5497de3';
const PROJECTS = [
  '5e2211c17a3e5a48f5497de3',
  '5e2211c17a3e5a48f5497de4',
  '5e2211c17a3e5a48f5497de5',
  '5e2211c17a3e5a48f5497de6',
];

describe('a state document of an earlier release', () => {
  it.each(['d2e5f95', 'e91c2bc', '71df4a1'])('written by %s is accepted, its records and marker intact', (rev) => {
    const value: unknown = JSON.parse(fixture(`state-${rev}.json`));
    expect(stateDocumentProblem(value)).toBeUndefined();
    const state = value as ReconcileState;
    expect(Object.keys(state.projects).sort()).toEqual(PROJECTS);
    // Every record but the killed create's owns an id; the marker is the bare one those releases saved.
    const records = state.projects[PAYMENTS]?.alertConfigs ?? {};
    const marker = records['killed-create'];
    expect(marker).toEqual({ pendingCreate: { runId: expect.any(String), startedAt: expect.any(String) } });
    expect(ownedIds(state, PAYMENTS).size).toBe(Object.keys(records).length - 1);
    expect(projectsLeftOut(state, new Set(PROJECTS))).toEqual([]);
  });
});

describe('a host assignments document of an earlier release', () => {
  const KEY = 'usage/2026-11/host-assignments.json';
  const bytes = new TextEncoder().encode(fixture('host-assignments-d2e5f95.json'));
  const archive: ArchiveStore = {
    describe: () => 'fixture',
    put: async () => {
      throw new Error('reading only');
    },
    get: async (key) => (key === KEY ? bytes : null),
  };

  it('without formatVersion (d2e5f95) carries its entries over, as stored', async () => {
    expect(JSON.parse(fixture('host-assignments-d2e5f95.json')).formatVersion).toBeUndefined();
    const carried = await carriedEntries(archive, KEY, '2026-11', (id) => id !== PAYMENTS);
    expect(carried.problem).toBeUndefined();
    expect(carried.entries.map((e) => e.groupId)).toEqual(PROJECTS.filter((id) => id !== PAYMENTS));
    for (const entry of carried.entries) expect(entry.results.length).toBeGreaterThan(0);
  });
});
