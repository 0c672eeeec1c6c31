// Scenario: documents written by earlier releases (desired-state YAML 6cf0e36 loaded and today's loader refuses; test/fixtures/upgrade: a state with a killed create's bare marker from the first day, the next, and the day before; a host assignments document from before it carried formatVersion) are read by this one as they are.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FsDesiredStateSource } from '../../../lambdas/adapters/local/desired-source-fs.ts';
import { loadDesiredState } from '../../../lambdas/core/desired/index.ts';
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

describe('desired-state YAML that 6cf0e36 loaded', () => {
  const DIR = new URL('../../fixtures/upgrade/desired-6cf0e36/', import.meta.url);

  it('is refused with every issue listed in one run, each saying what to write; written so, it loads as before', async () => {
    const refused = await loadDesiredState(new FsDesiredStateSource(DIR.pathname));
    expect(refused.ok).toBe(false);
    const issues = refused.ok ? [] : refused.issues;
    const FILE = 'projects/payments.yaml';
    expect(issues.map((i) => `${i.file}:${i.line}:${i.column}: ${i.message}`)).toEqual([
      `${FILE}:16:18: spec.alertConfigs[0].matchers[0].value must be the value the operator tests, not ending with a line break; found "db-\\n" (a block scalar, "|" or ">", keeps its last line break: write "|-" or ">-", or the value on one line)`,
      `${FILE}:22:20: the number 010 has a leading zero: YAML 1.2 reads it as 10, YAML 1.1 tools as the octal 8; write it without the leading zero (or, if it is text, put it in quotes)`,
      `${FILE}:25:43: the number 0x10 is not written in decimal (YAML reads it as 16); write 16 (or, if it is text, put it in quotes)`,
      `${FILE}:25:59: the number 0o10 is not written in decimal (YAML reads it as 8); write 8 (or, if it is text, put it in quotes)`,
      `${FILE}:32:20: the number 9007199254740993 is too large to be held exactly (YAML reads it as 9007199254740992); write a number up to 9007199254740991, or one a double holds (or, if it is text, put it in quotes)`,
      `${FILE}:42:20: the number 1e-400 is too small to be held (YAML reads it as 0); write 0 (or, if it is text, put it in quotes)`,
      `${FILE}:56:3: a mapping key must be plain text; found the alias "*p" used as a key: it repeats the key "prune" of line 9, and YAML read only this one's value: keep one "prune" with the value you mean`,
    ]);

    // Each fix as its message says (with the values 6cf0e36 read); 05, 05.5 and -0 are left as they are.
    const dir = mkdtempSync(join(tmpdir(), 'upgrade-yaml-'));
    try {
      cpSync(DIR, dir, { recursive: true });
      const file = join(dir, 'projects/payments.yaml');
      const fixed = readFileSync(file, 'utf8')
        .replace('value: |\n', 'value: |-\n')
        .replace('threshold: 010', 'threshold: 10')
        .replace('intervalMin: 0x10, delayMin: 0o10', 'intervalMin: 16, delayMin: 8')
        .replace('threshold: 9007199254740993', 'threshold: 9007199254740991')
        .replace('threshold: 1e-400', 'threshold: 0')
        .replace('  &p prune: true\n', '  prune: false\n')
        .replace('  *p : false\n', '');
      writeFileSync(file, fixed);
      const loaded = await loadDesiredState(new FsDesiredStateSource(dir));
      if (!loaded.ok) throw new Error(loaded.issues.map((i) => i.message).join('\n'));
      const project = loaded.state.projects[0];
      expect(project?.prune).toBe(false);
      const configs = new Map(project?.alertConfigs.map((c) => [c.key, c]));
      expect(configs.get('connections')?.matchers?.[0]?.value).toBe('db-');
      expect(configs.get('queues')?.metricThreshold?.threshold).toBe(5.5);
      expect(configs.get('opcounter')?.notifications[0]?.intervalMin).toBe(5);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
