// Scenario: random interleavings of git edits, secret changes, a human's API edits, faulted and clean applies, plans, lost or corrupt state and emulator restarts; after every step the README's promises hold.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AlertConfig } from '../../lambdas/opsman/types.ts';
import { pendingChanges, type RunOutcome } from '../helpers/reliability-harness.ts';
import { signature } from '../helpers/reliability-inventory.ts';
import {
  claimsSuccess,
  initialArb,
  LATENCY_MS,
  ModelWorld,
  roundArb,
  type Step,
} from '../helpers/reliability-model.ts';

/** Runs and sequence length: small enough for well under a minute on a loaded 2-core machine. */
const NUM_RUNS = Number(process.env.MODEL_RUNS ?? 12);
const MAX_ROUNDS = Number(process.env.MODEL_ROUNDS ?? 8);
/** `MODEL_SEED=<seed>` replays a failure (fast-check prints the seed and the path of the counterexample). */
const SEED = process.env.MODEL_SEED === undefined ? undefined : Number(process.env.MODEL_SEED);

/** What the runs met, so the test can show it is not vacuous. */
const tally: Record<string, number> = {};
const count = (what: string, n = 1) => {
  tally[what] = (tally[what] ?? 0) + n;
};

function sorted(list: AlertConfig[]): AlertConfig[] {
  return [...list].sort((a, b) => (a.id < b.id ? -1 : 1));
}

/**
 * Live configs the tool answers for: everything except the unmanaged and orphaned configs it does not own (now).
 * Orphans are what the state owned before it was lost: the README leaves them alone unless adoption takes them again.
 */
function answeredFor(w: ModelWorld, live: AlertConfig[], owned: Set<string>): AlertConfig[] {
  return live.filter((c) => owned.has(c.id) || !(w.model.unmanaged.has(c.id) || w.model.orphans.has(c.id)));
}

/** The invariants that hold after every step. */
async function checkAlways(w: ModelWorld, where: string): Promise<AlertConfig[]> {
  const live = await w.live();
  const owned = (await w.owned()) ?? new Set<string>();
  // Nothing the tool does not own is deleted or changed (unless adoption could take it).
  for (const [id, tracked] of w.model.unmanaged) {
    if (tracked.adoptable) continue;
    const now = live.find((c) => c.id === id);
    expect(now, `${where}: unmanaged config ${id} was deleted`).toBeDefined();
    expect(now, `${where}: unmanaged config ${id} was changed`).toEqual(tracked.config);
  }
  // Never more than one live config per desired identity.
  const answered = answeredFor(w, live, owned);
  for (const sig of w.desiredSignatures()) {
    const copies = answered.filter((c) => signature(c) === sig).map((c) => c.id);
    expect(copies.length, `${where}: duplicates of ${sig}: ${copies.join(', ')}`).toBeLessThanOrEqual(1);
  }
  return live;
}

/** After an apply: a clean plan; when the apply claimed success it left nothing to do; a fault-free one converged. */
async function checkAfterApply(w: ModelWorld, apply: RunOutcome, faulted: boolean, where: string): Promise<void> {
  const plan = await w.run('plan');
  expect(plan.error, `${where}: the plan after threw`).toBeUndefined();
  const pending = pendingChanges(plan.report);
  if (claimsSuccess(apply)) expect(pending, `${where}: the apply claimed success but left work`).toEqual({});
  if (faulted) return;
  expect(apply.error, `${where}: a fault-free apply threw`).toBeUndefined();
  expect(apply.report?.failures, `${where}: a fault-free apply failed`).toEqual([]);
  expect(apply.report?.summary.failed, `${where}: a fault-free apply failed changes`).toBe(0);
  // The README blocks an interrupted create for a human when several unmanaged configs match it: here only when the
  // human made copies of it.
  const humanCopies = (reason: string) =>
    reason.includes('was interrupted') && [...w.model.unmanaged.keys()].some((id) => reason.includes(id));
  const blocked = (apply.report?.plan.changes ?? []).filter((c) => c.action === 'blocked');
  if (blocked.length > 0 && blocked.every((c) => humanCopies(c.reason))) {
    expect(claimsSuccess(apply), `${where}: a blocked apply claimed success`).toBe(false);
    return;
  }
  expect(
    blocked.map((c) => `${c.key}: ${c.reason}`),
    `${where}: a fault-free apply was blocked`,
  ).toEqual([]);
  expect(pending, `${where}: the plan after a fault-free apply is not empty`).toEqual({});
  const live = await w.live();
  const owned = (await w.owned()) ?? new Set<string>();
  const have = answeredFor(w, live, owned)
    .map((c) => signature(c))
    .sort();
  expect(have, `${where}: live differs from desired`).toEqual(w.desiredSignatures().sort());
  expect(await w.secretMismatches(), `${where}: stored secrets differ from the desired values`).toEqual([]);
}

async function runSteps(initial: Step[], steps: Step[]): Promise<void> {
  const w = new ModelWorld();
  await w.start();
  try {
    // A converged start, so the steps meet owned configs to update, delete, drift and lose.
    for (const step of initial) if (step.t === 'desire') await w.edit(step);
    await checkAfterApply(w, await w.run('apply'), false, 'initial apply');
    for (const [i, step] of steps.entries()) {
      const where = `step ${i} ${JSON.stringify(step)}`;
      if (step.t === 'apply') {
        w.markAdoptable(await w.live());
        const started = Date.now();
        if (step.fault) await w.inject(step.fault, step.times);
        const apply = await w.run('apply');
        count(`apply ${step.fault ?? 'clean'} ${claimsSuccess(apply) ? 'ok' : 'failed'}`);
        for (const r of apply.report?.results ?? [])
          count(`result ${r.status} ${r.message?.includes('ambiguous') ? 'ambiguous' : ''}`);
        for (const [m, n] of Object.entries(apply.counts.byMethod)) count(`request ${m}`, n);
        if (process.env.MODEL_DEBUG) {
          for (const r of apply.report?.results ?? [])
            if (r.status !== 'applied')
              count(`${step.fault} ${r.status}: ${r.message?.replace(/[0-9a-f]{24}/g, 'ID').slice(0, 200)}`);
          for (const f of apply.report?.failures ?? [])
            count(`${step.fault} failure: ${f.message?.replace(/[0-9a-f]{24}/g, 'ID').slice(0, 200)}`);
          if (apply.error) count(`${step.fault} error: ${apply.error.message.slice(0, 200)}`);
        }
        // A late request must land before anything else reads (the emulator performs it after the client gave up).
        const late = started + LATENCY_MS + 300 - Date.now();
        if (step.fault?.includes('latency') && late > 0) await new Promise((r) => setTimeout(r, late));
        await w.admin.clearFaults();
        await checkAfterApply(w, apply, step.fault !== null, where);
      } else if (step.t === 'plan') {
        const plan = await w.run('plan');
        expect(plan.error, `${where}: plan threw`).toBeUndefined();
        const writes = ['POST', 'PUT', 'PATCH', 'DELETE'].map((m) => plan.counts.byMethod[m] ?? 0);
        expect(writes, `${where}: plan wrote`).toEqual([0, 0, 0, 0]);
      } else if (step.t === 'restart') {
        const before = sorted(await w.live());
        await w.edit(step);
        expect(sorted(await w.live()), `${where}: the restart lost or changed configs`).toEqual(before);
      } else {
        await w.edit(step);
      }
      await checkAlways(w, where);
    }
  } finally {
    await w.close();
  }
}

describe('model: interleaved edits, faults, state loss and restarts', () => {
  it(
    'keeps the README promises after every step',
    async () => {
      await fc.assert(
        fc.asyncProperty(initialArb, fc.array(roundArb, { minLength: 1, maxLength: MAX_ROUNDS }), (initial, rounds) =>
          runSteps(initial, rounds.flat()),
        ),
        { numRuns: NUM_RUNS, ...(SEED === undefined ? {} : { seed: SEED }), verbose: 1 },
      );
      if (process.env.MODEL_DEBUG) console.log(JSON.stringify(tally, null, 1));
      // Not vacuous: the runs wrote to Ops Manager and some applies ran under a fault.
      const writes = ['POST', 'PUT', 'PATCH', 'DELETE'].reduce((n, m) => n + (tally[`request ${m}`] ?? 0), 0);
      const faulted = Object.entries(tally).filter(([k]) => k.startsWith('apply ') && !k.startsWith('apply clean'));
      expect(writes).toBeGreaterThan(0);
      expect(faulted.length).toBeGreaterThan(0);
    },
    Math.max(240_000, NUM_RUNS * MAX_ROUNDS * 3_000),
  );
});
