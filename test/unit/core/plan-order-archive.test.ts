// Scenario: plans list changes in a deterministic order; the archive stores manifests content-addressed with latest and index, and usage per month.
import { describe, expect, it } from 'vitest';
import { StoppableArchiveStore } from '../../../lambdas/cli/archive-interrupt.ts';
import { sha256Hex } from '../../../lambdas/core/canonical.ts';
import type { Change, ChangeAction, ChangeKind, TargetRef } from '../../../lambdas/core/model.ts';
import { sortChanges } from '../../../lambdas/core/plan-order.ts';
import { renderArchiveSummary } from '../../../lambdas/core/render/run-summary.ts';
import { runReconcile } from '../../../lambdas/core/run.ts';
import { monthRange } from '../../../lambdas/core/usage-months.ts';
import { P1, P2, scenario } from './scenario-fixture.ts';

function c(target: TargetRef, kind: ChangeKind, action: ChangeAction, key: string): Change {
  return { target, kind, action, key, fields: [], reason: '' };
}

describe('plan order', () => {
  it('sorts by target, kind, action order, key whatever the input order', () => {
    const a: TargetRef = { type: 'project', id: '1', name: 'alpha' };
    const b: TargetRef = { type: 'project', id: '2', name: 'beta' };
    const o: TargetRef = { type: 'organization', id: '3', name: 'acme' };
    const g: TargetRef = { type: 'global', id: 'global', name: 'Ops Manager' };
    const expected = [
      c(a, 'alertConfig', 'blocked', 'z'),
      c(a, 'alertConfig', 'create', 'b'),
      c(a, 'alertConfig', 'create', 'c'),
      c(a, 'alertConfig', 'update', 'a'),
      c(a, 'alertConfig', 'delete', 'a2'),
      c(a, 'alertConfig', 'noop', 'a0'),
      c(a, 'defaultServerType', 'update', 'defaultServerType'),
      c(a, 'auditLogRotation', 'drift', 'auditLogRotation'),
      c(b, 'alertConfig', 'adopt', 'x'),
      c(o, 'defaultServerType', 'update', 'defaultServerType'),
      c(g, 'versionManifest', 'update', 'versionManifest'),
    ];
    for (let seed = 0; seed < 5; seed++) {
      const shuffled = [...expected].sort(() => (Math.sin(seed++) > 0 ? 1 : -1));
      expect(sortChanges(shuffled)).toEqual(expected);
    }
  });

  it('two runs over the same world print the same plan', async () => {
    const h = scenario();
    const one = await h.run('plan');
    const two = await h.run('plan');
    const strip = (r: typeof one) => JSON.stringify(r.plan.changes);
    expect(strip(one)).toBe(strip(two));
    expect(one.plan.liveDigests).toEqual(two.plan.liveDigests);
    expect(Object.keys(one.plan.liveDigests).sort()).toEqual([`project:${P1}`, `project:${P2}`]);
  });
});

describe('archive', () => {
  it('stores the manifest by sha256 only when it changed, with latest and index, and usage per month', async () => {
    const h = scenario({}, {}, { archive: { versionManifest: true, usage: true } });
    h.world.physicalHosts = [{ id: 'ph1', name: 'rack-1', serverType: 'PRODUCTION_SERVER', hosts: [] }];
    h.world.assignments.set(P1, [{ hostname: 'h1', processes: [], serverType: { name: 'PRODUCTION_SERVER' } }]);
    const first = await h.run('archive');
    const sha = sha256Hex(h.world.manifest);
    expect(first.archive?.manifest).toMatchObject({ sha256: sha, changed: true, key: `manifests/sha256/${sha}.json` });
    expect(h.archive.objects.get(`manifests/sha256/${sha}.json`)).toBe(h.world.manifest);
    expect(JSON.parse(h.archive.objects.get('manifests/latest.json') ?? '{}')).toMatchObject({ sha256: sha });
    expect(first.archive?.usage?.keys).toEqual([
      'usage/2026-03/host-assignments.json',
      'usage/2026-03/physical-hosts.json',
    ]);
    const usage = JSON.parse(h.archive.objects.get('usage/2026-03/host-assignments.json') ?? '{}') as {
      projects: { groupId: string; results: unknown[] }[];
    };
    expect(usage.projects.map((p) => [p.groupId, p.results.length])).toEqual(
      [
        [P1, 1],
        [P2, 0],
      ].sort(),
    );

    const again = await h.run('archive');
    expect(again.archive?.manifest?.changed).toBe(false);
    h.world.manifest = '{"updated":1800000000000,"versions":[]}';
    const changed = await h.run('archive');
    expect(changed.archive?.manifest?.changed).toBe(true);
    const index = JSON.parse(h.archive.objects.get('manifests/index.json') ?? '[]') as {
      sha256: string;
      updated?: number;
    }[];
    expect(index.map((e) => e.sha256)).toEqual([sha, sha256Hex(h.world.manifest)]);
    expect(index[1]?.updated).toBe(1800000000000);
    expect(h.world.writes()).toEqual([]);
  });

  it('a malformed manifest index entry is a warning of the run (report and text), not a failed part', async () => {
    const h = scenario({}, {}, { archive: { versionManifest: true, usage: false } });
    const stored = JSON.stringify([{ sha256: '../x', firstSeen: '2026-01-01T00:00:00.000Z' }]);
    h.archive.objects.set('manifests/index.json', stored);
    const report = await h.run('archive');
    const warning =
      'manifests/index.json entry [0] has sha256 "../x", not 64 lowercase hex digits: skipped, and left in the index as it is (correct or remove it by hand)';
    expect(report.archive?.errors).toEqual([]);
    expect(report.archive?.off).toEqual(['usage']);
    expect(report.warnings).toEqual([warning]);
    expect(renderArchiveSummary(report)).toContain(`Warning: ${warning}\n`);
    const index = JSON.parse(h.archive.objects.get('manifests/index.json') ?? '[]') as unknown[];
    expect(index[0]).toEqual(JSON.parse(stored)[0]);
    expect(index).toHaveLength(2);
  });

  it('an archive its caller stopped records interrupted in the report it stores; one not stoppable never does', async () => {
    const h = scenario({}, {}, { archive: { versionManifest: true, usage: false } });
    const stop = new AbortController();
    stop.abort('Ctrl-C (SIGINT)');
    // As the CLI runs it: writes (the run report's aside) refused once the signal is aborted.
    const deps = { ...h.deps(), archive: new StoppableArchiveStore(h.archive, stop.signal) };
    const request = { command: 'archive' as const, owner: 'test', signal: stop.signal };
    const stopped = await runReconcile({ ...request, runId: 'run-a', archiveStopsOnSignal: true }, deps);
    expect(stopped.archive?.errors).toHaveLength(1);
    expect(stopped.interrupted).toEqual({ reason: 'Ctrl-C (SIGINT)', notStarted: 1 });
    const key = [...h.archive.objects.keys()].find((k) => k.startsWith('reports/') && k.includes('run-a'));
    expect(JSON.parse(h.archive.objects.get(key ?? '') ?? '{}').interrupted).toEqual(stopped.interrupted);
    // The Lambda's archive does not stop on its deadline signal: its errors are its own, never an interruption.
    const lambda = await runReconcile({ ...request, runId: 'run-b' }, deps);
    expect(lambda.archive?.errors).toHaveLength(1);
    expect(lambda.interrupted).toBeUndefined();
  });

  it('apply uploads the pinned manifest when Ops Manager serves another one', async () => {
    const pinText = '{"updated":1900000000000,"versions":[{"name":"8.0.0","builds":[]}]}';
    const h = scenario({}, {}, { versionManifest: { pin: 'manifests/approved.json' } });
    h.source.files.set('manifests/approved.json', pinText);
    const report = await h.run('apply');
    expect(report.plan.changes.find((x) => x.kind === 'versionManifest')).toMatchObject({
      action: 'update',
      target: { type: 'global' },
    });
    expect(h.world.manifest).toBe(pinText);
    const plan = await h.run('plan');
    expect(plan.plan.changes.find((x) => x.kind === 'versionManifest')?.action).toBe('noop');
  });

  it('month range runs from the first of the month to today', () => {
    expect(monthRange(new Date('2026-02-17T23:00:00Z'))).toEqual({
      month: '2026-02',
      startDate: '2026-02-01',
      endDate: '2026-02-17',
    });
  });
});
