// Scenario: an archive run limited by a project's metadata.name (`archive --project payments-staging`) reads the usage
// of that project only and records the selection by id, as a run limited by its id does; a project whose read fails
// is named by its metadata.name and id.
import { describe, expect, it } from 'vitest';
import { P1, P2, scenario } from './scenario-fixture.ts';

describe('archive limited to a project by name', () => {
  it('reads the host assignments of that project, by its id', async () => {
    const h = scenario({}, {}, { archive: { versionManifest: false, usage: true } });
    h.world.assignments.set(P1, [{ hostname: 'h1', processes: [], serverType: { name: 'PRODUCTION_SERVER' } }]);
    h.world.assignments.set(P2, [{ hostname: 'h2', processes: [], serverType: { name: 'TEST_SERVER' } }]);
    const report = await h.run('archive', { projects: ['payments-staging'] });
    expect(report.failures).toEqual([]);
    expect(report.plan.projects).toEqual([P2]);
    const usage = JSON.parse(h.archive.objects.get('usage/2026-03/host-assignments.json') ?? '{}') as {
      projects: { groupId: string; results: unknown[] }[];
    };
    expect(usage.projects.map((p) => [p.groupId, p.results.length])).toEqual([[P2, 1]]);
  });

  it('names a project whose host assignments read failed by its metadata.name and id', async () => {
    const h = scenario({}, {}, { archive: { versionManifest: false, usage: true } });
    h.world.faults.push({ method: 'listProjectHostAssignments', groupId: P2, error: () => new Error('read refused') });
    const report = await h.run('archive');
    expect(report.archive?.errors).toEqual([`host assignments of payments-staging (${P2}): read refused`]);
  });
});
