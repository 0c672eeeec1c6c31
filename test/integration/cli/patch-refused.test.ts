// Scenario: an Ops Manager (or a proxy in front of it) that refuses PATCH with 405, as a server built from the Public
// API spec alone would (the spec lists no PATCH of an alert config; the real product has it): a disable in git is
// applied with the full PUT an update sends, the apply says so and exits 0, the config is disabled live, and the next
// plan is empty. Any other refusal of the PATCH is not retried as a PUT.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../../lambdas/core/model.ts';
import { runBinary, toolEnv } from '../../helpers/cli-run.ts';
import { closeExampleWorkspace, openExampleWorkspace } from '../../helpers/cli-workspace.ts';

const PAYMENTS_PROD = '5e2211c17a3e5a48f5497de3';

let emulator: { url: string; origin: string; close(): Promise<void> };
let dir: string;
let common: string[];

beforeEach(async () => {
  ({ dir, emulator, common } = await openExampleWorkspace('cli-patch-refused-', { secrets: 'copy' }));
});

afterEach(() => closeExampleWorkspace({ dir, emulator }));

async function admin(method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${emulator.origin}/__emulator/${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(response.ok).toBe(true);
  return response.json();
}

/** Applies payments-prod, then turns `no-primary` off in git with every PATCH of its configs answered `status`. */
async function disableUnder(status: number) {
  const only = ['--project', PAYMENTS_PROD, ...common];
  expect((await runBinary(['apply', '--auto-approve', ...only], toolEnv(emulator.url))).code).toBe(0);
  const file = join(dir, 'desired', 'projects/payments.yaml');
  const text = await readFile(file, 'utf8');
  const from = '    - key: no-primary\n      eventTypeName: NO_PRIMARY\n      enabled: true\n';
  expect(text).toContain(from);
  await writeFile(file, text.replace(from, from.replace('enabled: true', 'enabled: false')));
  await admin('POST', 'faults', {
    method: 'PATCH',
    path: `/groups/${PAYMENTS_PROD}/alertConfigs/*`,
    status,
    times: 10,
  });
  await admin('DELETE', 'requests');
  const run = await runBinary(['apply', '--auto-approve', ...only], toolEnv(emulator.url));
  const log = (await admin('GET', 'requests')) as { byRoute: Record<string, number> };
  return { run, log, only };
}

describe('PATCH refused', { timeout: 120_000 }, () => {
  it('405: the disable is sent as a full PUT, said, and converges', async () => {
    const { run, log, only } = await disableUnder(405);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(`${run.stdout}${run.stderr}`).toContain(
      'disabled with a full PUT: Ops Manager (or a proxy before it) refused the PATCH of enabled (405 Method Not Allowed)',
    );
    expect(log.byRoute).toMatchObject({
      'PATCH /groups/{groupId}/alertConfigs/{alertConfigId}': 1,
      'PUT /groups/{groupId}/alertConfigs/{alertConfigId}': 1,
    });
    const plan = await runBinary(['plan', '--json', ...only], toolEnv(emulator.url));
    expect(plan.code, plan.stderr).toBe(0);
    const changes = (JSON.parse(plan.stdout) as Plan).changes.filter((c) => c.action !== 'noop');
    expect(changes).toEqual([]);
  });

  // 403 is an auth error, 400 an API error of another status: only a 405 is the method refused.
  it.each([403, 400])('any other refusal (%i) fails the change and sends no PUT', async (status) => {
    const { run, log } = await disableUnder(status);
    expect(run.code).toBe(1);
    expect(log.byRoute['PUT /groups/{groupId}/alertConfigs/{alertConfigId}']).toBeUndefined();
  });
});
