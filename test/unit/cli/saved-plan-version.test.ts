// Scenario: a saved plan is pinned to the build of opsman-gitops that made it (Terraform's rule for plan files): one
// sealed by another version, or by another build of the same version, is refused naming both; a field this version
// does not know is refused, never ignored; an unknown mode is named with the accepted ones.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkPlanShape, openSealedPlan, sealedPlanText } from '../../../lambdas/cli/commands/saved-plan.ts';
import { currentToolVersion, type ToolVersion } from '../../../lambdas/cli/tool-version.ts';
import type { Plan } from '../../../lambdas/core/model.ts';
import { checkSavedPlan } from '../../../lambdas/core/saved-plan.ts';
import { plan } from '../../helpers/cli-plans.ts';
import { REPO_ROOT } from '../../helpers/cli-run.ts';

const KEY = new Uint8Array(32).fill(7);
const URL = 'http://127.0.0.1:8080/api/public/v1.0';
const FILE = 'plan.json';
const THIS: ToolVersion = { version: '0.1.0', sources: '0123456789abcdef' };
const saved = (text: string): Plan => JSON.parse(text) as Plan;
/** The plan a seal covers, with one of its state versions recorded (a saved plan without it is refused). */
const base = plan([], { stateVersion: null, liveDigests: {} });

/** Reads and opens a sealed text as `apply --plan` does (shape, then seal); the error it throws, or the plan. */
function open(text: string, tool: ToolVersion = THIS): unknown {
  try {
    return openSealedPlan(checkPlanShape(saved(text), FILE, tool), FILE, URL, KEY, tool);
  } catch (error) {
    return error;
  }
}

describe('saved plans are pinned to the tool that made them', () => {
  it('a plan sealed by this build opens', () => {
    expect(open(sealedPlanText(base, URL, KEY, THIS))).toEqual(base);
    expect(saved(sealedPlanText(base, URL, KEY, THIS))).toMatchObject({ savedFor: { madeBy: THIS } });
  });

  it.each([
    [
      'another release',
      { version: '0.2.0', sources: '0123456789abcdef' },
      'opsman-gitops 0.2.0 (sources 0123456789abcdef)',
    ],
    [
      'another build of the same version',
      { version: '0.1.0', sources: 'fedcba9876543210' },
      'opsman-gitops 0.1.0 (sources fedcba9876543210)',
    ],
  ])('a plan validly sealed by %s is refused, naming both versions and the way out', (_, other, named) => {
    const error = open(sealedPlanText(base, URL, KEY, other));
    expect(error).toMatchObject({
      code: 'CLI_SAVED_PLAN_OTHER_VERSION',
      message: `${FILE} was made by ${named}; this is opsman-gitops 0.1.0 (sources 0123456789abcdef): a saved plan applies only with the version that made it; nothing was written: make a new plan with this version (\`plan --out\`), or apply this one with the version that made it`,
    });
    // openSealedPlan refuses it on its own too (an in-process caller that did not read it through checkPlanShape).
    const sealed = saved(sealedPlanText(base, URL, KEY, other));
    expect(() => openSealedPlan(sealed, FILE, URL, KEY, THIS)).toThrow(/was made by opsman-gitops/);
  });

  it('a plan of the previous plan format, validly sealed by an earlier release, is refused as older, not as newer', () => {
    const earlier = { version: '0.0.9', sources: 'aaaaaaaaaaaaaaaa' };
    const old = { ...base, formatVersion: 1 } as unknown as Plan;
    expect(open(sealedPlanText(old, URL, KEY, earlier))).toMatchObject({
      code: 'CLI_SAVED_PLAN_OTHER_VERSION',
      message: `${FILE} was made by an older version of opsman-gitops (opsman-gitops 0.0.9 (sources aaaaaaaaaaaaaaaa)): it has plan formatVersion 1; this is opsman-gitops 0.1.0 (sources 0123456789abcdef), which reads formatVersion 2; nothing was written: make a new plan with this version (\`plan --out\`)`,
    });
    // The reconciler's own check says so too (an in-process caller's plan).
    expect(() => checkSavedPlan(old)).toThrow(
      'the saved plan was made by an older version of opsman-gitops: it has formatVersion 1; this version reads formatVersion 2: make a new plan',
    );
  });

  it('a sealed plan that records no version (made before plans recorded it) is refused as an earlier version', () => {
    const old = saved(sealedPlanText(base, URL, KEY, THIS)) as Plan & { savedFor: Record<string, unknown> };
    delete old.savedFor.madeBy;
    expect(open(JSON.stringify(old))).toMatchObject({
      code: 'CLI_SAVED_PLAN_OTHER_VERSION',
      message: expect.stringContaining(
        'was made by an earlier version of opsman-gitops (one that did not record its version); this is opsman-gitops 0.1.0',
      ),
    });
    old.savedFor.madeBy = { version: 'x\u001b[2J', sources: 1 };
    expect(open(JSON.stringify(old))).toMatchObject({
      message: expect.stringContaining('was made by a version of opsman-gitops this one cannot read; this is'),
    });
  });

  it('the recorded version is under the seal: rewritten to this build, the plan is refused as edited', () => {
    const other = saved(sealedPlanText(base, URL, KEY, { version: '0.2.0', sources: '0123456789abcdef' })) as Plan & {
      savedFor: { madeBy: ToolVersion };
    };
    other.savedFor.madeBy = THIS;
    expect(open(JSON.stringify(other))).toMatchObject({ message: expect.stringContaining('its seal does not match') });
  });

  it('a top-level field this version does not know is refused, even sealed by this build', () => {
    const withExtra = { ...base, applyOnlyIf: { stateVersion: 'v9' } } as Plan;
    const error = open(sealedPlanText(withExtra, URL, KEY, THIS));
    expect(error).toMatchObject({
      code: 'CLI_SAVED_PLAN_INVALID',
      message: `${FILE} is not a plan saved by \`opsman-gitops plan --out\`: the saved plan has a field this version does not know ("applyOnlyIf"): it was made by another version of opsman-gitops; make a new plan`,
    });
    // The reconciler's own check refuses it too (an in-process caller's plan).
    expect(() => checkSavedPlan(withExtra)).toThrow(
      'the saved plan has a field this version does not know ("applyOnlyIf"): it was made by another version of opsman-gitops; make a new plan',
    );
    // Every field this version writes passes.
    const full: Plan = { ...base, targetModes: {}, liveReads: {}, unmanaged: [], warnings: [] };
    expect(checkSavedPlan(JSON.parse(JSON.stringify(full)))).toEqual(full);
  });

  it('a seal with a field this version does not know is refused', () => {
    const s = saved(sealedPlanText(base, URL, KEY, THIS)) as Plan & { savedFor: Record<string, unknown> };
    s.savedFor.expires = '2030-01-01';
    expect(open(JSON.stringify(s))).toMatchObject({
      message: expect.stringContaining('its seal has a field this version does not know ("expires")'),
    });
  });

  it('an unknown mode is named with the accepted ones', () => {
    expect(open(sealedPlanText({ ...base, mode: 'destroy' as Plan['mode'] }, URL, KEY, THIS))).toMatchObject({
      code: 'CLI_SAVED_PLAN_INVALID',
      message: `${FILE} is not a plan saved by \`opsman-gitops plan --out\`: the saved plan's mode must be one of observe, plan, apply; found "destroy"`,
    });
    const { mode: _, ...noMode } = base;
    expect(open(sealedPlanText(noMode as Plan, URL, KEY, THIS))).toMatchObject({
      message: expect.stringContaining('mode must be one of observe, plan, apply; it is missing'),
    });
  });
});

describe('currentToolVersion', () => {
  it('is the package version and a digest of the sources', async () => {
    const pkg = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const tool = await currentToolVersion();
    expect(tool.version).toBe(pkg.version);
    expect(tool.sources).toMatch(/^[0-9a-f]{16}$/);
  });
});
