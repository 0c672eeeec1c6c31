// Scenario: the real `opsman-gitops plan --json` against an Ops Manager that throttles: a 429 with Retry-After shows
// as one notice on stderr (what it answered, the wait, that it is the server's, the attempt to come; never on stdout,
// which stays one JSON document) and the plan completes; a project whose reads fail every time says that its retries
// were spent (`after 4 attempts`).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../../lambdas/core/model.ts';
import { runBinary, toolEnv } from '../../helpers/cli-run.ts';
import { closeExampleWorkspace, openExampleWorkspace } from '../../helpers/cli-workspace.ts';

const PAYMENTS_PROD = '5e2211c17a3e5a48f5497de3';

let emulator: { url: string; origin: string; close(): Promise<void> };
let dir: string;
let common: string[];

beforeEach(async () => {
  ({ dir, emulator, common } = await openExampleWorkspace('cli-retry-notice-', { secrets: 'copy' }));
});

afterEach(() => closeExampleWorkspace({ dir, emulator }));

async function fault(body: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${emulator.origin}/__emulator/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.ok).toBe(true);
}

describe('retries a person can see', { timeout: 60_000 }, () => {
  it("a 429's Retry-After wait is told on stderr, and the plan completes", async () => {
    await fault({ method: 'GET', path: `/groups/${PAYMENTS_PROD}/alertConfigs`, status: 429, retryAfter: 1 });
    const run = await runBinary(['plan', '--json', ...common], toolEnv(emulator.url));
    expect(run.code, run.stderr).toBe(0);
    const plan = JSON.parse(run.stdout) as Plan;
    expect(plan.failures).toEqual([]);
    expect(Object.keys(plan.liveDigests)).toContain(`project:${PAYMENTS_PROD}`);
    const notices = run.stderr.split('\n').filter((l) => l.includes('retrying in'));
    expect(notices).toEqual([
      `  · Ops Manager answered 429 RATE_LIMITED to GET /api/public/v1.0/groups/${PAYMENTS_PROD}/alertConfigs: retrying in 1 s, as its Retry-After asks (attempt 2 of 4)`,
    ]);
  });

  it('a read that fails on every attempt says the retries were spent', async () => {
    await fault({ method: 'GET', path: `/groups/${PAYMENTS_PROD}/alertConfigs`, status: 503, times: 10 });
    const run = await runBinary(['plan', ...common], toolEnv(emulator.url));
    expect(run.code).toBe(1);
    expect(`${run.stdout}${run.stderr}`).toMatch(/503 SERVICE_UNAVAILABLE: .* \(after 4 attempts\)/);
  });
});
