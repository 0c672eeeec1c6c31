// Scenario: the real `opsman-gitops plan --json --request-timeout 2` against an Ops Manager that accepts connections and
// never answers: a "still waiting" notice on stderr (never on stdout, which stays one JSON document), every failure
// names --request-timeout (never the client's internal option), and once the first reads used their whole deadline the
// organizations and the version manifest are not even asked: the run waits one deadline, not one per wave of reads.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../../lambdas/core/model.ts';
import { REPO_ROOT, runBinary, toolEnv } from '../../helpers/cli-run.ts';
import { type HungServer, startHungServer } from '../../helpers/hung-server.ts';

let server: HungServer;
let dir: string;

beforeEach(async () => {
  server = await startHungServer();
  dir = await mkdtemp(join(tmpdir(), 'cli-hung-'));
});

afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('plan against an Ops Manager that never answers', { timeout: 60_000 }, () => {
  it('says it is waiting, names --request-timeout, and waits one deadline', async () => {
    const run = await runBinary(
      [
        'plan',
        '--json',
        '--request-timeout',
        '2',
        '--state-dir',
        join(dir, 'state'),
        '--secrets-file',
        join(REPO_ROOT, 'desired-state/local-secrets.json'),
      ],
      toolEnv(server.baseUrl),
    );
    expect(run.code, run.stderr).toBe(1);

    // Notices on stderr: half the deadline in, naming a request that is waiting.
    const notices = run.stderr.split('\n').filter((line) => line.includes('still waiting for Ops Manager'));
    expect(notices.length).toBeGreaterThanOrEqual(1);
    for (const line of notices) {
      expect(line).toMatch(
        /^ {2}· still waiting for Ops Manager: GET \/api\/public\/v1\.0\/groups\/[0-9a-f]{24}\/\S+ has not answered for 1 s \(deadline 2 s, --request-timeout to change\)$/,
      );
    }

    // stdout is the plan, and only the plan.
    const plan = JSON.parse(run.stdout) as Plan;
    expect(run.stdout).not.toContain('still waiting');
    const failed = plan.failures.map((f) => f.target.name).sort();
    expect(failed).toEqual([
      'Ops Manager',
      'acme',
      'analytics-dev',
      'globex',
      'payments-prod',
      'payments-staging',
      'search-prod',
    ]);
    for (const failure of plan.failures) {
      expect(failure.message).toContain('--request-timeout to change');
      expect(failure.message).not.toContain('retry.deadlineMs');
    }
    expect(
      plan.failures.filter((f) => f.message.includes('did not answer within the request deadline (2 s')).length,
    ).toBeGreaterThan(0);

    // Only the projects' first reads were sent: the later waves failed at once, unsent.
    const asked = server.requests();
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.filter((line) => /\/orgs\/|\/organizations\/|versionManifest/.test(line))).toEqual([]);
    expect(plan.failures.find((f) => f.target.name === 'Ops Manager')?.message).toMatch(
      /^GET \/unauth\/versionManifest: not sent: Ops Manager has answered no request since /,
    );
  });
});
