// Scenario: checkTeams called directly. A team reference blocks its alert config when the team is missing (Ops
// Manager's own 404), when it could not be checked (any other failure, never taken as "exists"), or when the project
// has no orgId; the first problem of a config is the one named, and each org/team pair is looked up once per run.
import { describe, expect, it } from 'vitest';
import type { DesiredNotification } from '../../../lambdas/core/model.ts';
import { checkTeams, type TeamCache } from '../../../lambdas/core/team-check.ts';
import { OpsManagerApiError } from '../../../lambdas/opsman/errors.ts';
import { FakeWorld, serverError } from '../../helpers/fake-opsman-api.ts';
import { desiredProject } from '../../helpers/reconcile-world.ts';

const ORG_A = '5e2211c17a3e5a48f5497a00';
const ORG_B = '5e2211c17a3e5a48f5497b00';
const T1 = '6a1f00000000000000000001';
const T2 = '6a1f00000000000000000002';

function team(teamId: string): DesiredNotification {
  return { typeName: 'TEAM', teamId, intervalMin: 5, delayMin: 0 } as DesiredNotification;
}

function project(id: string, orgId: string | undefined, teams: string[][]) {
  return desiredProject(
    id,
    teams.map((ids, i) => ({ key: `k${i}`, notifications: ids.map(team) })),
    orgId === undefined ? {} : { orgId },
  );
}

describe('checkTeams', () => {
  it('names the first missing team of a config, and leaves configs whose teams exist alone', async () => {
    const w = new FakeWorld();
    w.addTeam(ORG_A, T1);
    const problems = await checkTeams(project('p1', ORG_A, [[T1], [T2, 'ffff'], []]), w.as('k'), new Map());
    expect([...problems.keys()]).toEqual(['k1']);
    expect(problems.get('k1')).toMatch(new RegExp(`^team ${T2} does not exist in organization ${ORG_A} \\(`));
  });

  it('a project without orgId blocks each config naming a team, by its first team, and looks nothing up', async () => {
    const w = new FakeWorld();
    const problems = await checkTeams(project('p1', undefined, [[T1, T2], []]), w.as('k'), new Map());
    expect([...problems.entries()]).toEqual([
      ['k0', `notification names team ${T1} but project p-p1 has no orgId to check it against (set metadata.orgId)`],
    ]);
    expect(w.calls).toEqual([]);
  });

  it('a lookup that fails otherwise (500, a proxy 404) blocks as "could not be checked", never as fine', async () => {
    const w = new FakeWorld();
    w.addTeam(ORG_A, T1);
    w.faults.push({ method: 'getTeam', error: () => serverError('GET', '/orgs/{orgId}/teams/{teamId}') });
    const failed = await checkTeams(project('p1', ORG_A, [[T1]]), w.as('k'), new Map());
    expect(failed.get('k0')).toMatch(new RegExp(`^team ${T1} could not be checked: .*500`));
    const proxy = new OpsManagerApiError(
      404,
      'NOT_FOUND',
      'Not Found',
      { method: 'GET', pathTemplate: '/orgs/{orgId}/teams/{teamId}' },
      { fromOpsManager: false },
    );
    w.faults.push({ method: 'getTeam', error: () => proxy });
    const proxied = await checkTeams(project('p1', ORG_A, [[T1]]), w.as('k'), new Map());
    expect(proxied.get('k0')).toMatch(new RegExp(`^team ${T1} could not be checked`));
  });

  it('an organization Ops Manager does not have is named as the problem, not the team', async () => {
    // A mistyped metadata.orgId (or export's --org): every team "is missing", but the id to fix is the organization's.
    const w = new FakeWorld();
    const missingOrg = new OpsManagerApiError(
      404,
      'ORG_NOT_FOUND',
      `No organization with ID ${ORG_B} exists.`,
      { method: 'GET', pathTemplate: '/orgs/{orgId}/teams/{teamId}' },
      { fromOpsManager: true },
    );
    w.faults.push({ method: 'getTeam', error: () => missingOrg });
    const problems = await checkTeams(project('p1', ORG_B, [[T1]]), w.as('k'), new Map());
    expect(problems.get('k0')).toBe(
      `organization ${ORG_B} does not exist in this Ops Manager (ORG_NOT_FOUND), so team ${T1} cannot be checked: fix the organization id (metadata.orgId; export's --org)`,
    );
  });

  it('looks each organization/team pair up once per run, and a team of one organization is not one of another', async () => {
    const w = new FakeWorld();
    w.addTeam(ORG_A, T1);
    const cache: TeamCache = new Map();
    const a = await checkTeams(project('p1', ORG_A, [[T1], [T1]]), w.as('k'), cache);
    const a2 = await checkTeams(project('p2', ORG_A, [[T1]]), w.as('k'), cache);
    const b = await checkTeams(project('p3', ORG_B, [[T1]]), w.as('k'), cache);
    expect([a.size, a2.size]).toEqual([0, 0]);
    expect(b.get('k0')).toMatch(new RegExp(`^team ${T1} does not exist in organization ${ORG_B}`));
    expect(w.calls.filter((c) => c.method === 'getTeam')).toHaveLength(2);
  });
});
