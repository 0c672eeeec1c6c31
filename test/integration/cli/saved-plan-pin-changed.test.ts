// Scenario: the real binary against the emulator. A saved plan updates the version manifest to the pinned file's
// content; the pinned file is then edited in git before `apply --plan`. The apply must not send either version: the
// manifest write fails with PIN_CHANGED (the plan showed one content, the file now holds another), the manifest on
// Ops Manager stays as it was, and the other writes of the plan are applied.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../lambdas/core/canonical.ts';
import type { Plan, RunReport } from '../../../lambdas/core/model.ts';
import { runBinary, toolEnv } from '../../helpers/cli-run.ts';
import { closeExampleWorkspace, editDesired, openExampleWorkspace } from '../../helpers/cli-workspace.ts';

let emulator: { url: string; origin: string; close(): Promise<void> };
let dir: string;
let common: string[];

/** Replaces `from` with `to` in a desired-state file of this test's workspace. */
const edit = (file: string, from: string, to: string) => editDesired(dir, file, from, to);

/** The version manifest Ops Manager serves now, as text (the unauthenticated route of the spec). */
async function servedManifest(): Promise<string> {
  const res = await fetch(`${emulator.url}/unauth/versionManifest`);
  expect(res.status).toBe(200);
  return res.text();
}

beforeEach(async () => {
  ({ dir, emulator, common } = await openExampleWorkspace('cli-pin-changed-'));
});

afterEach(() => closeExampleWorkspace({ dir, emulator }));

describe('a saved plan whose pinned manifest changed in git', { timeout: 120_000 }, () => {
  it('fails the manifest write with PIN_CHANGED, sends neither content, applies the rest', async () => {
    const env = toolEnv(emulator.url);
    const first = await runBinary(['apply', '--auto-approve', ...common], env);
    expect(first.code, `${first.stdout}\n${first.stderr}`).toBe(0);
    const before = await servedManifest();

    await edit('manifests/approved.json', '"updated": 1767225600000', '"updated": 1767225600001');
    await edit('projects/payments.yaml', 'numTotal: 20', 'numTotal: 30');
    const file = join(dir, 'plan.json');
    const saved = await runBinary(['plan', '--out', file, ...common], env);
    expect(saved.stderr).not.toContain('TypeError');
    const plan = JSON.parse(await readFile(file, 'utf8')) as Plan;
    expect(plan.changes.map((c) => `${c.kind}:${c.action}`)).toEqual(
      expect.arrayContaining(['versionManifest:update', 'auditLogRotation:update']),
    );

    // Someone edits the pinned file after the plan was saved (and reviewed).
    await edit('manifests/approved.json', '"updated": 1767225600001', '"updated": 1767225600002');
    const applied = await runBinary(['apply', '--plan', file, '--json', ...common], env);
    const report = JSON.parse(applied.stdout) as RunReport;
    const byKind = Object.fromEntries(report.results.map((r) => [r.change.kind, r]));
    expect(byKind.versionManifest?.status, applied.stdout).toBe('failed');
    const now = sha256Hex(await readFile(join(dir, 'desired', 'manifests', 'approved.json'), 'utf8')); // as edited since
    const pinned = plan.changes.find((c) => c.kind === 'versionManifest')?.after as { sha256: string };
    // Where, why (both digests), that nothing was uploaded, and what to do.
    expect(byKind.versionManifest?.message).toBe(
      `pinned manifest manifests/approved.json changed since the plan was made (sha256 ${pinned.sha256.slice(0, 12)} planned, ${now.slice(0, 12)} now): neither content was uploaded; run plan again to review and apply the new pin`,
    );
    expect(byKind.versionManifest?.code).toBe('PIN_CHANGED');
    expect(byKind.auditLogRotation?.status).toBe('applied');
    expect(applied.code).not.toBe(0);
    expect(await servedManifest()).toBe(before);
  });

  it('a pinned manifest removed since the plan: PIN_UNREADABLE naming the file, its source and what to do', async () => {
    const env = toolEnv(emulator.url);
    await edit('manifests/approved.json', '"updated": 1767225600000', '"updated": 1767225600001');
    const file = join(dir, 'plan.json');
    await runBinary(['plan', '--out', file, ...common], env);
    const before = await servedManifest();
    await rm(join(dir, 'desired', 'manifests', 'approved.json'));
    const applied = await runBinary(['apply', '--plan', file, '--json', ...common], env);
    const report = JSON.parse(applied.stdout) as RunReport;
    const pin = report.results.find((r) => r.change.kind === 'versionManifest');
    expect(pin?.status, applied.stdout).toBe('failed');
    expect(pin?.code).toBe('PIN_UNREADABLE');
    expect(pin?.message).toBe(
      `pinned manifest manifests/approved.json cannot be read again from dir:${join(dir, 'desired')}/ for the upload: no file "manifests/approved.json" under the desired-state root; nothing was uploaded: put the file back as it was planned, or run plan again`,
    );
    expect(applied.code).toBe(1);
    expect(await servedManifest()).toBe(before);
  });
});
