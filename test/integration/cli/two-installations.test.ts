// Scenario: two installations of opsman-gitops manage payments-prod by mistake (runCli in-process against the
// emulator: real HTTP, Digest). A is the production one (the tool's key, its own state dir); B is an engineer's laptop
// (Jane's key, another state dir, a copy of the desired state). B's YAML of host-ssl-certificate-stale first differs
// from A's, so B creates a second config beside A's; then B's YAML is made equal to A's and B updates its copy to
// equal A's config. From then on each installation owns one copy and sees the other's as unmanaged: every plan would
// be clean while Ops Manager alerts twice. Both plans name the duplicate (ids, never values); deleting B's copy
// ends it: B adopts A's config, nothing is created again, and no plan warns any more.
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCli } from '../../../lambdas/cli/main.ts';
import type { ChangeResult, Plan } from '../../../lambdas/core/model.ts';
import { createOpsManagerClient } from '../../../lambdas/opsman/index.ts';
import { noEmulator, recordingIo } from '../../helpers/cli-io.ts';
import { KEYS, toolEnv } from '../../helpers/cli-run.ts';
import { closeExampleWorkspace, openExampleWorkspace } from '../../helpers/cli-workspace.ts';

const PAYMENTS_PROD = '5e2211c17a3e5a48f5497de3';
const KEY = 'host-ssl-certificate-stale';
const A_EMAIL = '- { typeName: EMAIL, emailAddress: dba-team@acme.example, intervalMin: 1440, delayMin: 0 }';
const B_EMAIL = '- { typeName: EMAIL, emailAddress: dba-team@acme.example, intervalMin: 60, delayMin: 0 }';

let emulator: { url: string; origin: string; close(): Promise<void> };
let dir: string;
let common: string[];

beforeEach(async () => {
  ({ dir, emulator, common } = await openExampleWorkspace('cli-two-inst-', { project: PAYMENTS_PROD, admin: false }));
  await cp(join(dir, 'desired'), join(dir, 'desired-b'), { recursive: true });
});

afterEach(() => closeExampleWorkspace({ dir, emulator }));

/** Installation A: the workspace's desired state and state dir, the tool's key. */
async function a(argv: string[]) {
  const io = recordingIo({ env: toolEnv(emulator.url) });
  const code = await runCli([...argv, ...common], { startEmulator: noEmulator, io });
  return { code, out: io.out(), err: io.err() };
}

/** Installation B: its own desired copy and state dir (so its own fingerprint key), the same API key. */
async function b(argv: string[]) {
  const io = recordingIo({ env: toolEnv(emulator.url) });
  const options = common.map((o) => (o === join(dir, 'desired') ? join(dir, 'desired-b') : o));
  options[options.indexOf(join(dir, 'state'))] = join(dir, 'state-b');
  const code = await runCli([...argv, ...options], { startEmulator: noEmulator, io });
  return { code, out: io.out(), err: io.err() };
}

async function editB(from: string, to: string): Promise<void> {
  const file = join(dir, 'desired-b', 'projects', 'payments.yaml');
  const text = await readFile(file, 'utf8');
  expect(text).toContain(from);
  await writeFile(file, text.replace(from, to));
}

async function planOf(run: (argv: string[]) => Promise<{ code: number; out: string; err: string }>): Promise<Plan> {
  const r = await run(['plan', '--json']);
  expect(r.code).toBe(0);
  return JSON.parse(r.out) as Plan;
}

function idOf(plan: Plan, action: string): string {
  const change = plan.changes.find((c) => c.key === KEY && c.action === action);
  expect(change?.id).toBeDefined();
  return change?.id as string;
}

const duplicates = (plan: Plan) => (plan.warnings ?? []).filter((w) => w.startsWith('DUPLICATE ALERT CONFIGS'));

it('names an unmanaged copy equal to an owned config on both installations, until the copy is deleted', async () => {
  const aFirst = await a(['apply', '--auto-approve', '--json']);
  expect(aFirst.code).toBe(0);
  const original = (JSON.parse(aFirst.out) as { results: ChangeResult[] }).results.find((r) => r.change.key === KEY)
    ?.id as string;
  expect(original).toMatch(/^[0-9a-f]{24}$/);
  const created = JSON.parse((await a(['plan', '--json'])).out) as Plan;
  expect(duplicates(created)).toEqual([]);

  // B's YAML differs: it creates its own config beside A's (and says which one nearly matched).
  await editB(A_EMAIL, B_EMAIL);
  const bFirst = await b(['apply', '--auto-approve', '--json']);
  expect(bFirst.code).toBe(0);
  const bCreated = JSON.parse(bFirst.out) as { plan: Plan; results: ChangeResult[] };
  const made = bCreated.results.find((r) => r.change.key === KEY);
  expect(made?.change.action).toBe('create');
  expect(made?.change.reason).toContain('differs only in notifications[EMAIL:dba-team@acme.example].intervalMin');
  const copy = made?.id as string;
  expect(copy).toMatch(/^[0-9a-f]{24}$/);
  expect(duplicates(bCreated.plan)).toEqual([]);
  expect(duplicates(await planOf(a))).toEqual([]);

  // B's YAML is made equal to A's: its update would make its copy equal A's config, and its plan says so first.
  await editB(B_EMAIL, A_EMAIL);
  const bPlan = await planOf(b);
  expect(original).not.toBe(copy);
  expect(idOf(bPlan, 'update')).toBe(copy);
  expect(duplicates(bPlan)).toEqual([
    expect.stringContaining(
      `in project payments-prod (${PAYMENTS_PROD}): 1 alert config this tool manages has an unmanaged copy equal in every non-secret field, so Ops Manager raises and notifies its alerts twice: "${KEY}" (id ${copy}; unmanaged copy ${original}).`,
    ),
  ]);
  expect(duplicates(bPlan)[0]).toContain('a second installation of opsman-gitops managing this project');
  expect((await b(['apply', '--auto-approve'])).code).toBe(0);

  // Each side now owns one copy: both plans are otherwise clean, and both name the other's.
  const aPlan = await planOf(a);
  expect(aPlan.changes.filter((c) => c.action !== 'noop')).toEqual([]);
  expect(duplicates(aPlan)).toEqual([expect.stringContaining(`"${KEY}" (id ${original}; unmanaged copy ${copy})`)]);
  const aText = await a(['plan']);
  expect(aText.out).toContain(`Warning: DUPLICATE ALERT CONFIGS in project payments-prod`);
  expect(duplicates(await planOf(b))).toEqual([
    expect.stringContaining(`"${KEY}" (id ${copy}; unmanaged copy ${original})`),
  ]);

  // The way out the warning gives: delete the copy. B adopts A's config; nothing is created; no warning is left.
  const jane = createOpsManagerClient({ baseUrl: emulator.url, ...KEYS.human });
  try {
    await jane.deleteAlertConfig(PAYMENTS_PROD, copy);
  } finally {
    await jane.close();
  }
  const bAfter = await planOf(b);
  expect(idOf(bAfter, 'adopt')).toBe(original);
  expect(duplicates(bAfter)).toEqual([]);
  expect((await b(['apply', '--auto-approve'])).code).toBe(0);
  expect(duplicates(await planOf(a))).toEqual([]);
  expect(duplicates(await planOf(b))).toEqual([]);
});

it('says, when both installations use one API key, that their writes cannot be told apart in a fight', async () => {
  expect((await a(['apply', '--auto-approve'])).code).toBe(0);
  const adopted = JSON.parse((await b(['apply', '--auto-approve', '--json'])).out) as { plan: Plan };
  expect(adopted.plan.changes.find((c) => c.key === KEY)?.action).toBe('adopt');
  await editB(A_EMAIL, B_EMAIL);
  let last: Plan | undefined;
  for (let round = 0; round < 3; round++) {
    expect((await b(['apply', '--auto-approve'])).code).toBe(0);
    const r = await a(['apply', '--auto-approve', '--json']);
    expect(r.code).toBe(0);
    last = (JSON.parse(r.out) as { plan: Plan }).plan;
  }
  const change = last?.changes.find((c) => c.key === KEY);
  expect(change?.action).toBe('update');
  expect(change?.drift?.unattributed).toMatch(
    /^only this tool's own writes to it \(and edits they overwrote\) since \S+; a write made with its API key by another installation, a script or a person is not told from its own unless made over 5 minutes after this state was last saved$/,
  );
  expect(change?.drift?.fight?.runs).toBe(3);
  const fight = (last?.warnings ?? []).find((w) => w.startsWith('UPDATE FIGHT'));
  expect(fight).toContain(
    "look also for something in Ops Manager itself that changes the value back, and for another installation, script or person using this tool's own API key, whose writes made close to its runs are not told from its own)",
  );
});
