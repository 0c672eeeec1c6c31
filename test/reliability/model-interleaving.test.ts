// Scenario: random interleavings of git edits, releases (spec.release) and keys declared again, ignoreFields added and removed, a deny change window opened and closed, secret changes, a human's API edits (of ignored members and managed ones) and update fights, faulted and clean applies, plans, lost or corrupt state and emulator restarts; after every step the README's promises hold.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reportExitCode } from '../../lambdas/cli/outcome.ts';
import { targetKey } from '../../lambdas/core/model.ts';
import { isWrite } from '../../lambdas/core/modes.ts';
import type { AlertConfig } from '../../lambdas/opsman/types.ts';
import { pendingChanges, type RunOutcome } from '../helpers/reliability-harness.ts';
import { signature } from '../helpers/reliability-inventory.ts';
import {
  claimsSuccess,
  type FaultName,
  initialArb,
  LATENCY_MS,
  ModelWorld,
  roundArb,
  type Step,
  variantBody,
} from '../helpers/reliability-model.ts';
import { memberValue } from '../helpers/reliability-model-ignore.ts';

/** Runs and sequence length: small enough for well under a minute on a loaded 2-core machine. */
const NUM_RUNS = Number(process.env.MODEL_RUNS ?? 10);
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
  const sign = await w.signer();
  for (const sig of w.desiredSignatures()) {
    const copies = answered.filter((c) => sign(c) === sig).map((c) => c.id);
    expect(copies.length, `${where}: duplicates of ${sig}: ${copies.join(', ')}`).toBeLessThanOrEqual(1);
  }
  return live;
}

/** After an apply: a clean plan; when the apply claimed success it left nothing to do; a fault-free one converged. */
async function checkAfterApply(w: ModelWorld, apply: RunOutcome, faulted: boolean, where: string): Promise<void> {
  const plan = await w.run('plan');
  expect(plan.error, `${where}: the plan after threw`).toBeUndefined();
  const pending = pendingChanges(plan.report);
  if (claimsSuccess(apply)) {
    expect(pending, `${where}: the apply claimed success but left work`).toEqual({});
    // Its only notes: one per released key, each released with nothing left to release (and the model's window, once
    // it has ended, as a window that holds nothing any more).
    const noted = (plan.report?.plan.notes ?? [])
      .filter((n) => !/^change window \S+ \(deny\) ended at .*: it holds nothing any more/.test(n))
      .map((n) => /released key "([^"]+)" is not owned/.exec(n)?.[1] ?? n);
    const released = [...w.model.released.keys()];
    expect(noted.sort(), `${where}: the plan after a successful apply has other notes`).toEqual(released.sort());
    await checkMembers(w, where);
  }
  if (faulted) return;
  expect(apply.error, `${where}: a fault-free apply threw`).toBeUndefined();
  expect(apply.report?.failures, `${where}: a fault-free apply failed`).toEqual([]);
  expect(apply.report?.summary.failed, `${where}: a fault-free apply failed changes`).toBe(0);
  // The README blocks an interrupted create, or the late create of a key that left git, for a human when several
  // unmanaged configs match it: here only when the human made copies of it, or a release left one (a key released
  // with its alert renamed in the same commit: the new key's create sends the released config's body).
  const humanCopies = (reason: string) =>
    (reason.includes('was interrupted') || reason.includes('left git while its create was unresolved')) &&
    [...w.model.unmanaged.keys()].some((id) => reason.includes(id));
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
  const sign = await w.signer();
  const have = answeredFor(w, live, owned)
    .map((c) => sign(c))
    .sort();
  expect(have, `${where}: live differs from desired`).toEqual(w.desiredSignatures().sort());
  expect(await w.secretMismatches(), `${where}: stored secrets differ from the desired values`).toEqual([]);
}

/**
 * After an apply that exits 0: each owned config of a desired key has its managed members as git says, and each
 * ignored member the value a human last gave it (never written back).
 */
async function checkMembers(w: ModelWorld, where: string): Promise<void> {
  const byKey = (await w.ownedByKey()) ?? new Map<string, string>();
  const live = await w.live();
  const sign = await w.signer();
  for (const [e, d] of w.model.desired) {
    const config = live.find((c) => c.id === byKey.get(d.key));
    if (config === undefined) continue;
    expect(sign(config), `${where}: managed members of ${d.key} differ from git`).toBe(
      signature(variantBody(e, d.variant)),
    );
    for (const m of w.model.ignored.get(e) ?? []) {
      const key = `${config.id} ${m}`;
      if (!w.model.tuned.has(key)) continue;
      count('ignored member kept');
      expect(memberValue(config, m), `${where}: ignored ${m} of ${d.key} was written back`).toEqual(
        w.model.tuned.get(key),
      );
    }
  }
}

/** The ignored members' values of every owned config of a desired key, by `<id> <member>`. */
async function ignoredValues(w: ModelWorld, live: AlertConfig[]): Promise<Map<string, unknown>> {
  const byKey = (await w.ownedByKey()) ?? new Map<string, string>();
  const out = new Map<string, unknown>();
  for (const [e, d] of w.model.desired) {
    const config = live.find((c) => c.id === byKey.get(d.key));
    if (config === undefined) continue;
    for (const m of w.model.ignored.get(e) ?? []) out.set(`${config.id} ${m}`, memberValue(config, m));
  }
  return out;
}

/** The non-noop changes of a plan, as `key: action`. */
function acted(outcome: RunOutcome): string[] {
  return (outcome.report?.plan.changes ?? []).filter((c) => c.action !== 'noop').map((c) => `${c.key}: ${c.action}`);
}

/** The writes a run sent, by method. */
function writesOf(outcome: RunOutcome): number[] {
  return ['POST', 'PUT', 'PATCH', 'DELETE'].map((m) => outcome.counts.byMethod[m] ?? 0);
}

/**
 * A run while the world is quiet (an apply exited 0 and since then only plans, restarts, window toggles and a human's
 * edits of ignored members): nothing planned, nothing written, no fight warning, no drift streak started or grown.
 */
function checkQuiet(run: RunOutcome, streaksBefore: unknown, streaksAfter: unknown, where: string): void {
  count(`quiet ${run.report?.command ?? 'run'}`);
  expect(acted(run), `${where}: a run after a quiet time planned changes`).toEqual([]);
  expect(writesOf(run), `${where}: a run after a quiet time wrote`).toEqual([0, 0, 0, 0]);
  const fights = (run.report?.warnings ?? []).filter((m) => m.startsWith('UPDATE FIGHT'));
  expect(fights, `${where}: a run after a quiet time warned of a fight`).toEqual([]);
  // A streak may end (the run saw no drift), never start or grow.
  const before = (streaksBefore ?? {}) as Record<string, { runs: number }>;
  for (const [key, streak] of Object.entries((streaksAfter ?? {}) as Record<string, { runs: number }>)) {
    expect(streak.runs, `${where}: a run after a quiet time grew the drift streak of ${key}`).toBeLessThanOrEqual(
      before[key]?.runs ?? 0,
    );
  }
}

/** A run with no human edit of a managed member since an apply exited 0: whatever git changed, no drift is flagged. */
function checkCalm(run: RunOutcome, where: string): void {
  const drifted = (run.report?.plan.changes ?? []).filter((c) => c.drift?.detected === true).map((c) => c.key);
  count(`calm ${run.report?.command ?? 'run'}${drifted.length > 0 ? ' drifted' : ''}`);
  expect(drifted, `${where}: drift flagged with no human edit of a managed member`).toEqual([]);
}

/**
 * An apply while the deny window is open: nothing written, Ops Manager and the state's ownership as they were, and
 * (when the project was read) the hold in the plan, and in the report with the number of writes not made.
 */
async function checkHeld(
  w: ModelWorld,
  apply: RunOutcome,
  before: { live: AlertConfig[]; owned: Map<string, string> | null },
  where: string,
): Promise<void> {
  count('held apply');
  expect(writesOf(apply), `${where}: a held apply wrote`).toEqual([0, 0, 0, 0]);
  expect(sorted(await w.live()), `${where}: a held apply changed Ops Manager`).toEqual(sorted(before.live));
  const ownedAfter = await w.ownedByKey();
  if (before.owned !== null || (ownedAfter?.size ?? 0) > 0) {
    expect(ownedAfter, `${where}: a held apply changed ownership`).toEqual(before.owned);
  }
  const r = apply.report;
  if (r === undefined || r.summary.targetsFailed > 0) return;
  const target = `project:${w.project.id}`;
  expect(r.plan.windowHolds?.[target], `${where}: the plan does not say the project is held`).toBeDefined();
  const planned = r.plan.changes.filter((c) => isWrite(c) && targetKey(c.target) === target).length;
  const held = r.heldByWindows?.find((h) => targetKey(h.target) === target);
  if (planned === 0) {
    expect(held, `${where}: a hold of no writes was reported`).toBeUndefined();
    return;
  }
  count('held apply with writes');
  expect(held?.writes, `${where}: the report does not count the held writes`).toBe(planned);
  expect(reportExitCode(r), `${where}: a held apply with writes exited 0`).not.toBe(0);
}

/**
 * The first fault-free apply after a window closed ends as the same apply where the window never existed and the held
 * applies never ran: the same live configs with the same owners, the same exit code and the same fight warnings.
 */
async function checkTwin(
  w: ModelWorld,
  apply: RunOutcome,
  twin: { outcome: RunOutcome; inventory: string[] },
  where: string,
): Promise<void> {
  count('apply after a hold, with its twin');
  expect(await w.inventory(), `${where}: the apply after a hold differs from one without the window`).toEqual(
    twin.inventory,
  );
  expect(claimsSuccess(apply), `${where}: the apply after a hold exits otherwise than its twin`).toBe(
    claimsSuccess(twin.outcome),
  );
  const fights = (o: RunOutcome) => (o.report?.warnings ?? []).filter((m) => m.startsWith('UPDATE FIGHT')).sort();
  expect(fights(apply), `${where}: the apply after a hold warns otherwise than its twin`).toEqual(fights(twin.outcome));
}

/**
 * One apply under `fault` (or none), with the checks after it: those of every apply, and the release's promises: a
 * released config is left as it was (no write), a plan of releases alone makes no write, and after an apply that exits
 * 0 the state keeps no record, marker or streak of a released key.
 */
async function applyStep(w: ModelWorld, asked: FaultName | null, times: number, where: string): Promise<RunOutcome> {
  const liveBefore = await w.live();
  w.markAdoptable(liveBefore);
  const recordsBefore = await w.records();
  const ownedBefore = await w.ownedByKey();
  const ignoredBefore = await ignoredValues(w, liveBefore);
  const quiet = w.model.quiet;
  const calm = w.model.calm;
  const held = w.model.window.state === 'open';
  if (held) await w.noteHold();
  // The first apply after a hold runs with no fault, and in a twin world where the window never existed as well
  // (unless the state was lost meanwhile: the twin's copy would then say nothing of what the held applies did).
  const heldFrom = held ? null : w.model.heldFrom;
  if (!held) w.model.heldFrom = null;
  const twin = heldFrom !== null && heldFrom !== 'lost' ? await w.twinApply(heldFrom) : undefined;
  const fault = twin === undefined ? asked : null;
  const started = Date.now();
  if (fault) await w.inject(fault, times);
  const apply = await w.run('apply');
  if (twin !== undefined) await checkTwin(w, apply, twin, where);
  count(`apply ${fault ?? 'clean'} ${claimsSuccess(apply) ? 'ok' : 'failed'}`);
  for (const r of apply.report?.results ?? [])
    count(`result ${r.status} ${r.message?.includes('ambiguous') ? 'ambiguous' : ''}`);
  for (const [m, n] of Object.entries(apply.counts.byMethod)) count(`request ${m}`, n);
  if (process.env.MODEL_DEBUG) {
    for (const r of apply.report?.results ?? [])
      if (r.status !== 'applied')
        count(`${fault} ${r.status}: ${r.message?.replace(/[0-9a-f]{24}/g, 'ID').slice(0, 200)}`);
    for (const f of apply.report?.failures ?? [])
      count(`${fault} failure: ${f.message?.replace(/[0-9a-f]{24}/g, 'ID').slice(0, 200)}`);
    if (apply.error) count(`${fault} error: ${apply.error.message.slice(0, 200)}`);
  }
  // A late request must land before anything else reads (the emulator performs it after the client gave up).
  const late = started + LATENCY_MS + 300 - Date.now();
  if (fault?.includes('latency') && late > 0) await new Promise((r) => setTimeout(r, late));
  await w.admin.clearFaults();
  const liveAfter = await w.live();
  const recordsAfter = await w.records();
  // An ignored member is never written after the config exists (an update sends the live value back).
  for (const [k, v] of await ignoredValues(w, liveAfter)) {
    if (!ignoredBefore.has(k)) continue;
    expect(v, `${where}: ignored member ${k} was written`).toEqual(ignoredBefore.get(k));
  }
  // A human's value of a member no longer ignored may be put back by this apply: not tracked past it.
  for (const k of [...w.model.tuned.keys()]) if (!ignoredBefore.has(k)) w.model.tuned.delete(k);
  if (quiet) checkQuiet(apply, recordsBefore?.driftStreaks, recordsAfter?.driftStreaks, where);
  if (calm) checkCalm(apply, where);
  if (held) await checkHeld(w, apply, { live: liveBefore, owned: ownedBefore }, where);
  // A release writes nothing: its config is as the apply found it, and a plan of releases alone sends no write.
  for (const key of await w.settleReleases(recordsBefore, recordsAfter, liveAfter)) {
    count('released');
    const id = recordsBefore?.alertConfigs[key]?.id;
    if (id === undefined) continue;
    expect(
      liveAfter.find((c) => c.id === id),
      `${where}: released ${key} (${id}) was written`,
    ).toEqual(liveBefore.find((c) => c.id === id));
  }
  const acting = (apply.report?.plan.changes ?? []).filter((c) => c.action !== 'noop');
  if (acting.length > 0 && acting.every((c) => c.action === 'release')) {
    count('release-only apply');
    const writes = ['POST', 'PUT', 'PATCH', 'DELETE'].map((m) => apply.counts.byMethod[m] ?? 0);
    expect(writes, `${where}: an apply of releases alone wrote`).toEqual([0, 0, 0, 0]);
  }
  if (claimsSuccess(apply) && recordsAfter !== null) {
    for (const key of w.model.released.keys()) {
      expect(Object.hasOwn(recordsAfter.alertConfigs, key), `${where}: state kept a record of released ${key}`).toBe(
        false,
      );
      expect(
        Object.hasOwn(recordsAfter.driftStreaks, `alertConfig:${key}`),
        `${where}: state kept a streak of released ${key}`,
      ).toBe(false);
    }
  }
  // A held apply is checked as a faulted one: it converges nothing, which the plan after shows.
  await checkAfterApply(w, apply, fault !== null || held, where);
  w.model.quiet = claimsSuccess(apply);
  // A held apply that wrote nothing changes nothing a drift flag depends on.
  if (!held) w.model.calm = claimsSuccess(apply);
  return apply;
}

/** Whether a report warns of an update fight over alert config `key`. */
function warnsFight(apply: RunOutcome, key: string): boolean {
  return (apply.report?.warnings ?? []).some(
    (m) => m.startsWith('UPDATE FIGHT') && m.includes(`alert config "${key}"`),
  );
}

/**
 * An update fight: a clean apply, then `applies` times the human sets `enabled` of the same owned config against git
 * and a clean apply puts it back. Every apply is checked as any other; when the first apply converged and left no
 * streak for the key, the fight warning must appear exactly from the third revert on.
 */
async function fightStep(w: ModelWorld, pick: number, applies: number, where: string): Promise<void> {
  const byKey = (await w.ownedByKey()) ?? new Map<string, string>();
  const entries = [...w.model.desired.entries()].filter(([, d]) => byKey.has(d.key)).sort(([a], [b]) => a - b);
  const chosen = entries[pick % Math.max(1, entries.length)];
  if (chosen === undefined) return;
  const [e, { key }] = chosen;
  const first = await applyStep(w, null, 0, `${where} (before the fight)`);
  const records = await w.records();
  const predictable =
    claimsSuccess(first) && records !== null && records.driftStreaks[`alertConfig:${key}`] === undefined;
  // With `enabled` ignored there is no fight: the human's value stays, with no streak and no warning.
  const ignored = w.model.ignored.get(e)?.has('enabled') === true;
  for (let i = 1; i <= applies; i++) {
    const id = (await w.ownedByKey())?.get(key);
    const enabled = w.desiredEnabled(e);
    // A config deleted by hand and not created again (a window holds the apply) cannot be fought over.
    if (id === undefined || enabled === undefined || !(await w.live()).some((c) => c.id === id)) return;
    await w.humanFight(id, !enabled);
    if (ignored) w.model.tuned.set(`${id} enabled`, !enabled);
    else {
      w.model.quiet = false;
      w.model.calm = false;
    }
    const apply = await applyStep(w, null, 0, `${where} (fight apply ${i})`);
    count(`fight apply ${i}${warnsFight(apply, key) ? ' warned' : ''}${ignored ? ' ignored' : ''}`);
    if (ignored) {
      expect(warnsFight(apply, key), `${where}: a fight over ignored enabled of ${key} warned`).toBe(false);
      expect((await w.records())?.driftStreaks[`alertConfig:${key}`], `${where}: streak of ignored ${key}`).toBe(
        undefined,
      );
      if (!w.model.window.state.startsWith('open')) {
        const live = (await w.live()).find((c) => c.id === id);
        if (live) expect(memberValue(live, 'enabled'), `${where}: ignored enabled of ${key} put back`).toBe(!enabled);
      }
    } else if (predictable && w.model.window.state !== 'open') {
      expect(warnsFight(apply, key), `${where}: fight apply ${i} over ${key} warned ${i >= 3 ? 'not' : 'early'}`).toBe(
        i >= 3,
      );
      const streak = (await w.records())?.driftStreaks[`alertConfig:${key}`];
      expect(streak?.runs, `${where}: streak of ${key} after fight apply ${i}`).toBe(i);
    }
    await checkAlways(w, `${where} (fight apply ${i})`);
  }
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
        await applyStep(w, step.fault, step.times, where);
      } else if (step.t === 'fight') {
        await fightStep(w, step.pick, step.applies, where);
      } else if (step.t === 'plan') {
        const streaks = (await w.records())?.driftStreaks;
        const plan = await w.run('plan');
        if (w.model.quiet) checkQuiet(plan, streaks, (await w.records())?.driftStreaks, where);
        if (w.model.calm) checkCalm(plan, where);
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

/**
 * A fixed sequence run before the generated ones, so every run meets the release and the update fight together: a
 * fight over entry 0's config, its release (an apply of the release alone), the key back with the same body (adopted),
 * released again under a fault, back with another body (a create beside the released config), and a stale entry dropped.
 */
const FEATURE_TOUR: [Step[], Step[][]] = [
  [
    { t: 'desire', entry: 0, variant: 0 },
    { t: 'desire', entry: 1, variant: 0 },
    { t: 'desire', entry: 2, variant: 0 },
  ],
  [
    [{ t: 'fight', pick: 0, applies: 3 }],
    [
      { t: 'release', pick: 0, renamed: false },
      { t: 'apply', fault: null, times: 0 },
    ],
    [
      { t: 'redeclare', pick: 0, variant: null },
      { t: 'apply', fault: null, times: 0 },
    ],
    [
      { t: 'release', pick: 0, renamed: false },
      { t: 'apply', fault: 'put-503', times: 1 },
    ],
    [
      { t: 'redeclare', pick: 0, variant: 2 },
      { t: 'release', pick: 1, renamed: true },
      { t: 'apply', fault: null, times: 0 },
    ],
    [{ t: 'dropRelease', pick: 0 }, { t: 'plan' }],
    [
      { t: 'ignore', entry: 2, member: 'enabled', on: true },
      { t: 'ignore', entry: 2, member: 'metricThreshold', on: true },
      { t: 'apply', fault: null, times: 0 },
    ],
    [{ t: 'humanTune', pick: 2, member: 'metricThreshold', ignoredOnly: true }, { t: 'plan' }],
    [
      { t: 'desire', entry: 2, variant: 2 },
      { t: 'apply', fault: null, times: 0 },
    ],
    [{ t: 'fight', pick: 2, applies: 3 }],
    [
      { t: 'window', state: 'open', scoped: false },
      { t: 'humanTune', pick: 2, member: 'matchers', ignoredOnly: false },
      { t: 'apply', fault: null, times: 0 },
    ],
    [
      { t: 'window', state: 'open', scoped: true },
      { t: 'desire', entry: 3, variant: 0 },
      { t: 'apply', fault: 'post-503', times: 1 },
    ],
    [
      { t: 'window', state: 'past', scoped: true },
      { t: 'ignore', entry: 2, member: 'metricThreshold', on: false },
      { t: 'apply', fault: null, times: 0 },
    ],
  ],
];

/**
 * The hunt's counterexample (docs/reliability.md), run every time: a config released in the commit that adds an equal
 * config under a new key, whose POST never lands; the key leaves git and a run reads no list: the next run must not
 * delete the released config as that create's late landing (the tool's own key made it minutes before).
 */
const RELEASED_BESIDE_LOST_CREATE: [Step[], Step[][]] = [
  [{ t: 'desire', entry: 0, variant: 0 }],
  [
    [
      { t: 'release', pick: 0, renamed: true },
      { t: 'apply', fault: 'post-latency-before', times: 1 },
    ],
    [
      { t: 'undesire', entry: 0 },
      { t: 'apply', fault: 'list-503', times: 1 },
    ],
    [{ t: 'apply', fault: 'list-503', times: 1 }],
  ],
];

/**
 * The CI's counterexample (seed -82781446): a PATCH disabling a config landed each time but its connection was reset;
 * the next apply found the config in sync and kept the record of the enabled body, so a person enabling it again read
 * as "what this tool last wrote" and was planned as a change from git: no drift, no fight streak. The record is now
 * brought up to date when an apply finds its config in sync (record-refresh.ts).
 */
const LANDED_PATCH_LOST_ANSWER: [Step[], Step[][]] = [
  [
    { t: 'desire', entry: 2, variant: 0 },
    { t: 'desire', entry: 4, variant: 0 },
    { t: 'desire', entry: 5, variant: 0 },
  ],
  [
    [
      { t: 'desire', entry: 2, variant: 1 },
      { t: 'apply', fault: 'patch-reset-after', times: 4 },
    ],
    [{ t: 'fight', pick: 0, applies: 2 }],
  ],
];

/**
 * The 2026-11-27 hunt's counterexample (seed 1078315091): a config released in the commit that adds an equal config under a
 * new key, whose POST lands but its answer is lost (a pending marker); the state is then lost, and the next apply adopts
 * the older, released config for the new key (oldest first) and cannot know the late one is its own: the README says a
 * lost state has lost the marker, so nothing is recognised. The model counts that config among the orphans of the lost
 * state, as it does the configs the state owned.
 */
const RELEASED_BESIDE_LOST_STATE: [Step[], Step[][]] = [
  [{ t: 'desire', entry: 4, variant: 0 }],
  [
    [
      { t: 'release', pick: 0, renamed: true },
      { t: 'apply', fault: 'post-latency-after', times: 1 },
    ],
    [
      { t: 'loseState', corrupt: false },
      { t: 'apply', fault: 'list-503', times: 1 },
    ],
    [{ t: 'apply', fault: 'list-503', times: 1 }],
  ],
];

describe('model: interleaved edits, faults, state loss and restarts', () => {
  it(
    'keeps the README promises after every step',
    async () => {
      await fc.assert(
        fc.asyncProperty(initialArb, fc.array(roundArb, { minLength: 1, maxLength: MAX_ROUNDS }), (initial, rounds) =>
          runSteps(initial, rounds.flat()),
        ),
        {
          numRuns: NUM_RUNS,
          ...(SEED === undefined ? {} : { seed: SEED }),
          // Not on a replay: the seed's path counts from the first generated run.
          ...(SEED === undefined
            ? {
                examples: [
                  FEATURE_TOUR,
                  RELEASED_BESIDE_LOST_CREATE,
                  LANDED_PATCH_LOST_ANSWER,
                  RELEASED_BESIDE_LOST_STATE,
                ],
              }
            : {}),
          verbose: 1,
        },
      );
      if (process.env.MODEL_DEBUG) console.log(JSON.stringify(tally, null, 1));
      // Not vacuous: the runs wrote to Ops Manager and some applies ran under a fault.
      const writes = ['POST', 'PUT', 'PATCH', 'DELETE'].reduce((n, m) => n + (tally[`request ${m}`] ?? 0), 0);
      const faulted = Object.entries(tally).filter(([k]) => k.startsWith('apply ') && !k.startsWith('apply clean'));
      expect(writes).toBeGreaterThan(0);
      expect(faulted.length).toBeGreaterThan(0);
      // ... and (the tour at least) released keys, applied releases alone, and met a fight's warning.
      if (SEED === undefined) {
        expect(tally.released).toBeGreaterThanOrEqual(2);
        expect(tally['release-only apply']).toBeGreaterThan(0);
        expect(tally['fight apply 3 warned']).toBeGreaterThan(0);
        // ... and ignored members a human tuned, kept; quiet runs; held applies with writes.
        expect(tally['ignored member kept']).toBeGreaterThan(0);
        expect(tally['quiet plan']).toBeGreaterThan(0);
        expect(tally['fight apply 3 ignored']).toBeGreaterThan(0);
        expect(tally['held apply with writes']).toBeGreaterThanOrEqual(2);
        expect(tally['apply after a hold, with its twin']).toBeGreaterThan(0);
      }
    },
    Math.max(240_000, NUM_RUNS * MAX_ROUNDS * 3_000),
  );
});
