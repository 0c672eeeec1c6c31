// Scenario: adopting an installation of several organizations, as a platform engineer does it (export, validate,
// plan against the emulator over real HTTP with Digest), meets three situations whose messages must say what to do,
// not only what failed: a project exported or declared with another organization's id (its TEAM notifications name
// teams that organization does not have), a project in git that Ops Manager does not have yet, and `protect` naming a
// key just removed from git to keep its config (which is what `spec.release` is for).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../emulator/index.ts';
import { runCli } from '../../../lambdas/cli/main.ts';
import type { Plan } from '../../../lambdas/core/model.ts';
import { noEmulator, recordingIo } from '../../helpers/cli-io.ts';
import { KEYS, toolEnv } from '../../helpers/cli-run.ts';

const ORG_A = '5f0000000000000000000a01';
const ORG_B = '5f0000000000000000000a02';
const PA = '5f0000000000000000000101';
const PB = '5f0000000000000000000102';
const NEW = '5f0000000000000000000199';
const TEAM_B = '6a2f00000000000000000002';

const SEED = {
  organizations: [
    { id: ORG_A, name: 'acme' },
    { id: ORG_B, name: 'globex' },
  ],
  projects: [
    { id: PA, name: 'acme-prod', orgId: ORG_A },
    { id: PB, name: 'globex-prod', orgId: ORG_B },
  ],
  teams: [{ id: TEAM_B, name: 'oncall-globex', orgId: ORG_B }],
  apiKeys: [{ id: '6b1f000000000000000000a1', ...KEYS.tool, desc: 'tool', roles: [{ roleName: 'GLOBAL_OWNER' }] }],
  alertConfigs: [
    {
      id: '6c0900000000000000000001',
      groupId: PB,
      created: '2024-03-01T08:00:00Z',
      updated: '2024-03-01T08:00:00Z',
      enabled: true,
      eventTypeName: 'NO_PRIMARY',
      matchers: [],
      notifications: [{ typeName: 'TEAM', teamId: TEAM_B, delayMin: 0, intervalMin: 60, emailEnabled: true }],
    },
  ],
};

/** What the team message must add to "does not exist": the two ids that can be wrong, and export's one --org. */
const TEAM_NEXT_STEP =
  "fix the teamId, or the organization id if the project belongs to another organization (metadata.orgId; export's --org, one organization per export)";

let emulator: Awaited<ReturnType<typeof startEmulator>>;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'adoption-messages-'));
  emulator = await startEmulator({ port: 0, host: '127.0.0.1', seed: SEED, admin: true });
});

afterAll(async () => {
  await emulator?.close();
  await rm(dir, { recursive: true, force: true });
});

async function cli(argv: string[]) {
  const io = recordingIo({ env: toolEnv(emulator.url, {}) });
  const code = await runCli(argv, { startEmulator: noEmulator, io });
  return { code, out: io.out(), err: io.err() };
}

function project(name: string, id: string, orgId: string, extra = ''): string {
  return [
    'apiVersion: opsman-gitops/v1',
    'kind: Project',
    'metadata:',
    `  name: ${name}`,
    `  projectId: "${id}"`,
    `  orgId: "${orgId}"`,
    'spec:',
    '  alertConfigs:',
    '    - key: no-primary',
    '      eventTypeName: NO_PRIMARY',
    '      notifications:',
    `        - { typeName: TEAM, teamId: "${TEAM_B}", emailEnabled: true }`,
    extra,
  ].join('\n');
}

async function desiredDir(name: string, files: Record<string, string>): Promise<string> {
  const root = join(dir, name);
  await mkdir(root, { recursive: true });
  for (const [file, text] of Object.entries(files)) await writeFile(join(root, file), text);
  return root;
}

describe('adopting an installation of several organizations: messages say what to do', () => {
  it('export with another organization as --org skips the TEAM config saying which ids to check', async () => {
    const run = await cli(['export', '--project', PB, '--org', ORG_A]);
    expect(run.code).toBe(0);
    expect(run.err).toContain(
      `skipped alert config 6c0900000000000000000001 (would be key "no-primary"): team ${TEAM_B} does not exist in organization ${ORG_A} (`,
    );
    expect(run.err).toContain(TEAM_NEXT_STEP);
    // With the project's own organization the same config is exported.
    const right = await cli(['export', '--project', PB, '--org', ORG_B]);
    expect(right.code).toBe(0);
    expect(right.out).toContain('key: no-primary');
    expect(right.err).not.toContain('skipped');
  });

  it('plan blocks a TEAM config under a wrong metadata.orgId, and names the project Ops Manager does not have', async () => {
    const root = await desiredDir('plan', {
      'globex.yaml': project('globex-prod', PB, ORG_A),
      'new.yaml': project('new-team-project', NEW, ORG_B),
    });
    const run = await cli(['plan', '--json', '--desired', root, '--state-dir', join(dir, 'state')]);
    expect(run.code).toBe(1);
    const plan = JSON.parse(run.out) as Plan;
    const blocked = plan.changes.find((c) => c.target.id === PB && c.action === 'blocked');
    expect(blocked?.reason).toContain(`team ${TEAM_B} does not exist in organization ${ORG_A} (`);
    expect(blocked?.reason).toContain(TEAM_NEXT_STEP);
    const failure = plan.failures.find((f) => f.target.id === NEW);
    expect(failure?.message).toContain(
      `no project has the id ${NEW}: check metadata.projectId of Project new-team-project at new.yaml:1:1, create the project in Ops Manager first if it is new (opsman-gitops does not create projects), or remove that document if the project was deleted`,
    );
    // The project of the other organization that git does not name is never read.
    const requests = (await (await fetch(`${emulator.origin}/__emulator/requests`)).json()) as {
      entries?: { path: string }[];
    };
    expect(JSON.stringify(requests.entries ?? [])).toContain(`/groups/${PB}/alertConfigs`);
    expect(JSON.stringify(requests.entries ?? [])).not.toContain(PA);
  });

  it('validate tells a protect entry naming a key removed from git to use spec.release', async () => {
    const root = await desiredDir('protect', {
      'globex.yaml': project('globex-prod', PB, ORG_B, '  prune: true\n  protect: [no-primary, no-primary-2]\n'),
    });
    const run = await cli(['validate', '--desired', root]);
    expect(run.code).toBe(1);
    // The declared key is fine: only the undeclared one is an issue.
    expect(run.err + run.out).toContain('1 error in 1 file');
    expect(run.err + run.out).toContain(
      'protect names "no-primary-2", which is not an alert key of project globex-prod; did you mean "no-primary"? (protect guards declared keys only: to keep the config of a key removed from git in Ops Manager, list the key in spec.release instead, which stops managing it without deleting it)',
    );
  });
});
