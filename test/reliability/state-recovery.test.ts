// Scenario: the state file is corrupt, then missing; the run detects it, prunes nothing, recovers ownership by adoption, and creates no duplicate.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { World } from '../../bench/world.ts';
import { type Harness, pendingChanges, rewriteDesired, startHarness } from '../helpers/reliability-harness.ts';

describe('corrupt or missing state', () => {
  let h: Harness;
  let statePath: string;
  // Project 0 prunes and drops its last alert from git: with valid state that alert would be deleted.
  let pruning: World;

  beforeAll(async () => {
    h = await startHarness({ projects: 3, alerts: 6 });
    statePath = join(h.paths.stateDir, 'state.json');
    const first = await h.run({ command: 'apply' });
    expect(first.report?.summary.applied).toBe(18);
    const [p0, ...rest] = h.world.projects;
    if (!p0) throw new Error('no project');
    pruning = { ...h.world, projects: [{ ...p0, prune: true, alerts: p0.alerts.slice(0, -1) }, ...rest] };
    await rewriteDesired(h, pruning);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('detects a corrupt state, deletes nothing, and adopts instead of creating', async () => {
    await writeFile(statePath, '{"formatVersion": 1, "projects": {"6b00', 'utf8');
    await h.admin.clearRequests();
    const run = await h.run({ command: 'apply' });
    const log = await h.admin.requests();
    const deletes = Object.entries(log.byRoute).filter(([route]) => route.startsWith('DELETE '));
    expect(deletes).toEqual([]);
    expect(log.byRoute['POST /groups/{groupId}/alertConfigs'] ?? 0).toBe(0);
    // Detected and said so; ownership recovered by adoption, nothing planned for deletion.
    expect(run.error).toBeUndefined();
    expect(run.report?.warnings?.join('\n')).toMatch(/STATE WAS CORRUPT.*nothing is pruned/);
    // The plan's own warning (all a `plan` prints) says which file and what is wrong with it, as the run's does.
    expect(run.report?.plan.warnings?.[0]).toMatch(
      /^STATE WAS CORRUPT \(state \S+state\.json is not valid JSON\): ownership is unknown this run/,
    );
    expect(run.report?.summary.planned.adopt).toBe(17);
    expect(run.report?.summary.planned.create).toBe(0);
    expect(run.report?.summary.planned.delete).toBe(0);
    // The alert that left git is still there: ownership unknown means it is never pruned.
    expect(await h.inventory()).toEqual([]);
  });

  it('adopts everything when the state is missing, and the next plan is empty', async () => {
    await rm(statePath, { force: true });
    await h.admin.clearRequests();
    const run = await h.run({ command: 'apply' });
    expect(run.error).toBeUndefined();
    expect(run.report?.summary.planned.create).toBe(0);
    expect(run.report?.summary.planned.delete).toBe(0);
    expect(run.report?.summary.planned.adopt).toBe(17);
    const log = await h.admin.requests();
    expect(Object.keys(log.byRoute).filter((r) => r.startsWith('POST ') || r.startsWith('DELETE '))).toEqual([]);
    const state = JSON.parse(await readFile(statePath, 'utf8')) as {
      projects: Record<string, { alertConfigs: object }>;
    };
    expect(Object.values(state.projects).reduce((n, p) => n + Object.keys(p.alertConfigs).length, 0)).toBe(17);

    const plan = await h.run({ command: 'plan' });
    expect(pendingChanges(plan.report)).toEqual({});
    expect(await h.inventory()).toEqual([]);
  });
});
