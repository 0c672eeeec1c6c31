// Scenario: a random apply (random desired and live states, maybe a converged earlier state to move from, random faults: 429 with Retry-After, 503, resets before or after a write, latency) is stopped part-way, as Ctrl-C or a Lambda's deadline stops it: its signal aborted when its lease is held, after k answered writes or after a random delay, and maybe every request ended by a time past or near (withEndBy). Then an unstopped apply and a plan: the plan is empty, nothing is duplicated, nothing unowned is touched, the stopped run left a readable state and a free lease, and its report is true to what landed.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveSpecBody } from '../../bench/alert-catalogue.ts';
import { writeWorld } from '../../bench/case.ts';
import type { FaultSpec } from '../../bench/emulator-admin.ts';
import { DRIFT_KEY, TOOL_KEY, type World } from '../../bench/world.ts';
import { FsStateStore } from '../../lambdas/adapters/local/state-fs.ts';
import { INTERRUPTED_MESSAGE } from '../../lambdas/core/interrupt.ts';
import type { ChangeResult, RunReport } from '../../lambdas/core/model.ts';
import { createOpsManagerClient } from '../../lambdas/opsman/client.ts';
import type { AlertConfig } from '../../lambdas/opsman/types.ts';
import { FAST_RETRY, pendingChanges, readLive, runOnce } from '../helpers/reliability-harness.ts';
import { compareInventory, expectedSignatures, signature } from '../helpers/reliability-inventory.ts';
import {
  type BaseEmulator,
  type ProjectCase,
  projectCase,
  startBaseEmulator,
  worldOf,
} from '../helpers/reliability-random.ts';

/** Cases per run of the file: small enough for well under a minute on a loaded 2-core machine. */
const NUM_RUNS = Number(process.env.INTERRUPTED_APPLY_RUNS ?? 40);
/**
 * `INTERRUPTED_APPLY_SEED=<seed>` replays a failure (fast-check prints the seed and the path of the counterexample);
 * `INTERRUPTED_APPLY_DEBUG=1` prints what the runs met.
 */
const SEED = process.env.INTERRUPTED_APPLY_SEED === undefined ? undefined : Number(process.env.INTERRUPTED_APPLY_SEED);

/** Overrides of both applies: every project prunes, and a random case may delete more than the default cap. */
const OVERRIDES = { maxDeletes: 1_000, allowEmpty: true };

/** When the stopped run's signal aborts. */
type Stop = { when: 'lease' } | { when: 'writes'; k: number } | { when: 'delay'; ms: number };

/** The stopped run's end-by time relative to its start (a Lambda's withEndBy), or none. */
type EndBy = { at: 'none' } | { at: 'past' } | { at: 'soon'; ms: number };

const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** One fault of the stopped run (faults are cleared before the next run). */
const fault: fc.Arbitrary<FaultSpec> = fc.oneof(
  fc
    .record({ method: fc.constantFrom('*', ...WRITE_METHODS), retryAfter: fc.constantFrom(0, 1), times: fc.nat(2) })
    .map(({ method, retryAfter, times }) => ({
      method,
      path: '/groups/**',
      status: 429,
      retryAfter,
      times: times + 1,
    })),
  fc
    .record({ method: fc.constantFrom('*', ...WRITE_METHODS), times: fc.nat(2) })
    .map(({ method, times }) => ({ method, path: '/groups/**', status: 503, times: times + 1 })),
  fc
    .record({
      method: fc.constantFrom(...WRITE_METHODS),
      phase: fc.constantFrom<'before' | 'after'>('before', 'after'),
      times: fc.nat(2),
    })
    .map(({ method, phase, times }) => ({ method, path: '/groups/**', reset: true, phase, times: times + 1 })),
  fc
    .record({
      method: fc.constantFrom('*', ...WRITE_METHODS),
      latencyMs: fc.integer({ min: 20, max: 250 }),
      phase: fc.constantFrom<'before' | 'after'>('before', 'after'),
      times: fc.nat(4),
    })
    .map(({ method, latencyMs, phase, times }) => ({ method, path: '/groups/**', latencyMs, phase, times: times + 1 })),
);

const stop: fc.Arbitrary<Stop> = fc.oneof(
  { weight: 1, arbitrary: fc.constant<Stop>({ when: 'lease' }) },
  { weight: 3, arbitrary: fc.nat(6).map<Stop>((k) => ({ when: 'writes', k })) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 300 }).map<Stop>((ms) => ({ when: 'delay', ms })) },
);

const endBy: fc.Arbitrary<EndBy> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<EndBy>({ at: 'none' }) },
  { weight: 1, arbitrary: fc.constant<EndBy>({ at: 'past' }) },
  { weight: 2, arbitrary: fc.integer({ min: 10, max: 400 }).map<EndBy>((ms) => ({ at: 'soon', ms })) },
);

/** The desired state before (converged by an unstopped apply) of each project: another count, other disabled flags. */
const earlier = (cases: ProjectCase[]) =>
  fc.option(
    fc.tuple(
      ...cases.map((c) =>
        fc
          .record({ count: fc.integer({ min: 0, max: 10 }), flip: fc.array(fc.boolean(), { maxLength: 10 }) })
          .map(({ count, flip }) => ({
            ...c,
            count,
            disabled: Array.from({ length: count }, (_, k) => (c.disabled[k] ?? false) !== (flip[k] ?? false)),
            live: Array.from({ length: count }, () => 0),
          })),
      ),
    ),
    { nil: undefined },
  );

/** What a human does to a config the earlier apply made, before the stopped run: rewrite, delete or toggle it. */
const EDITS = ['rewrite', 'delete', 'toggle'] as const;
type Edit = 'none' | (typeof EDITS)[number];

const scenario = fc.array(projectCase, { minLength: 1, maxLength: 3 }).chain((cases) =>
  fc.record({
    cases: fc.constant(cases),
    before: earlier(cases),
    edits: fc.array(fc.array(fc.constantFrom<Edit>('none', 'none', ...EDITS), { minLength: 10, maxLength: 10 }), {
      minLength: cases.length,
      maxLength: cases.length,
    }),
    faults: fc.array(fault, { maxLength: 3 }),
    stop,
    endBy,
  }),
);

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

/** Two creates in one project, no earlier state, no human edit: the fixed examples' world. */
const TWO_CREATES: Pick<Scenario, 'cases' | 'before' | 'edits'> = {
  cases: [{ count: 2, offset: 0, disabled: [false, false], live: [0, 0] }],
  before: undefined,
  edits: [Array.from({ length: 10 }, () => 'none' as const)],
};

/**
 * Run every time, before the generated cases. A POST performed and then reset (an ambiguous create) whose re-read the
 * stop ends unsent: found by this property when the re-read's stop was taken for a write not started (the pending
 * marker dropped, the create reported "not written" although it landed). The same through an end-by time that cuts
 * the POST on the wire while its answer is late (the signal aborted as it ends).
 */
const EXAMPLES: [Scenario][] = [
  [
    {
      ...TWO_CREATES,
      faults: [{ method: 'POST', path: '/groups/**', reset: true, phase: 'after', times: 1 }],
      stop: { when: 'writes', k: 1 },
      endBy: { at: 'none' },
    },
  ],
  [
    {
      ...TWO_CREATES,
      faults: [{ method: 'POST', path: '/groups/**', latencyMs: 2_500, phase: 'after', times: 1 }],
      stop: { when: 'writes', k: 1 },
      endBy: { at: 'soon', ms: 1_000 },
    },
  ],
];

/** What the runs met, so the test can show it is not vacuous. */
const tally: Record<string, number> = {};
const count = (what: string, n = 1) => {
  tally[what] = (tally[what] ?? 0) + n;
};

/** The world with `spec.prune` on in every project (keys that leave git are deleted). */
function pruning(world: World): World {
  return { ...world, projects: world.projects.map((p) => ({ ...p, prune: true })) };
}

const notStarted = (r: ChangeResult) => r.status === 'skipped' && r.message === INTERRUPTED_MESSAGE;

/**
 * The stopped run's report against what live holds after it: a write reported not started left live as it was
 * before the run; one reported applied is there.
 */
function checkReport(
  report: RunReport,
  world: World,
  before: Map<string, AlertConfig[]>,
  after: Map<string, AlertConfig[]>,
  where: string,
): void {
  const bodyOf = (project: string, key: string) =>
    world.projects.find((p) => p.id === project)?.alerts.find((a) => a.key === key)?.body;
  // Per project and signature: how many creates may have landed (those not reported not started).
  const mayCreate = new Map<string, number>();
  for (const r of report.results) {
    const c = r.change;
    if (c.kind !== 'alertConfig') continue;
    const project = c.target.id;
    const was = before.get(project)?.find((x) => x.id === c.id);
    const now = after.get(project)?.find((x) => x.id === (r.id ?? c.id));
    const what = `${where}: ${c.action} ${project}/${c.key} reported ${r.status} (${r.message ?? ''})`;
    if (c.action === 'create') {
      const body = bodyOf(project, c.key);
      if (body === undefined) continue;
      const slot = `${project} ${signature(body)}`;
      if (!notStarted(r)) mayCreate.set(slot, (mayCreate.get(slot) ?? 0) + 1);
      if (r.status === 'applied') {
        count('applied creates checked');
        expect(now, what).toBeDefined();
        expect(signature(now as AlertConfig), what).toBe(signature(body));
      }
      continue;
    }
    if (notStarted(r)) {
      count(`not-started ${c.action} checked`);
      if (['update', 'enable', 'disable', 'delete'].includes(c.action)) expect(now, what).toEqual(was);
      continue;
    }
    if (r.status !== 'applied') continue;
    count(`applied ${c.action} checked`);
    if (c.action === 'delete') expect(now, what).toBeUndefined();
    if (c.action === 'enable' || c.action === 'disable') expect(now?.enabled, what).toBe(c.action === 'enable');
    if (c.action === 'update') {
      const body = bodyOf(project, c.key);
      if (body !== undefined) expect(signature(now as AlertConfig), what).toBe(signature(body));
    }
  }
  // No create reported not started made a config: per signature, the new configs are at most the creates that may have.
  for (const [project, list] of after) {
    const old = new Set((before.get(project) ?? []).map((x) => x.id));
    const grew = new Map<string, number>();
    for (const x of list) if (!old.has(x.id)) grew.set(signature(x), (grew.get(signature(x)) ?? 0) + 1);
    for (const [sig, n] of grew) {
      if (n <= 0) continue;
      expect(n, `${where}: ${n} new config(s) ${sig} in ${project}`).toBeLessThanOrEqual(
        mayCreate.get(`${project} ${sig}`) ?? 0,
      );
    }
  }
}

describe('property: an apply stopped part-way is finished by the next one', () => {
  let emulator: BaseEmulator;
  beforeAll(async () => {
    emulator = await startBaseEmulator();
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it('holds for random states, faults, stop moments and end-by times', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ cases, before, edits, faults, stop: when, endBy: end }) => {
        await emulator.admin.reset();
        const { world: raw, nearMisses } = worldOf(cases);
        const world = pruning(raw);
        const dir = await mkdtemp(join(tmpdir(), 'opsman-rel-interrupted-'));
        const human = createOpsManagerClient({
          baseUrl: emulator.url,
          publicKey: DRIFT_KEY.publicKey,
          privateKey: DRIFT_KEY.privateKey,
          retry: FAST_RETRY,
        });
        const controller = new AbortController();
        let writes = 0;
        const client = createOpsManagerClient({
          baseUrl: emulator.url,
          publicKey: TOOL_KEY.publicKey,
          privateKey: TOOL_KEY.privateKey,
          retry: FAST_RETRY,
          observer: {
            onRequest(event) {
              if (event.method === 'GET') return;
              writes++;
              if (when.when === 'writes' && writes >= when.k) controller.abort('test stop');
            },
          },
        });
        let timer: NodeJS.Timeout | undefined;
        try {
          // Everything live before the tool runs and not its own: never touched by any run.
          const untouched = new Map<string, AlertConfig>();
          for (const list of (await readLive(emulator.url, world)).values())
            for (const c of list) untouched.set(c.id, c);

          let paths = await writeWorld(world, dir);
          // Keys the earlier state owns: a human's exact copy of one is a second config the tool leaves alone.
          const earlierKeys = new Set<string>();
          if (before !== undefined) {
            count('moved from an earlier state');
            const earlierWorld = pruning(worldOf(before).world);
            for (const p of earlierWorld.projects) for (const a of p.alerts) earlierKeys.add(`${p.id} ${a.key}`);
            await rm(paths.desiredDir, { recursive: true, force: true });
            paths = await writeWorld(earlierWorld, dir);
            const first = await runOnce(emulator.url, paths, { command: 'apply', overrides: OVERRIDES });
            expect(first.report?.summary.failed, 'earlier apply').toBe(0);
            // Drift by hand on what it made: the stopped run has updates, enables/disables and re-creates to do.
            const { state } = await new FsStateStore(paths.stateDir).read();
            for (const [i, p] of earlierWorld.projects.entries()) {
              for (const [k, a] of p.alerts.entries()) {
                const id = state?.projects[p.id]?.alertConfigs[a.key]?.id;
                const edit = edits[i]?.[k] ?? 'none';
                if (id === undefined || edit === 'none') continue;
                count(`human ${edit}`);
                if (edit === 'toggle') await human.setAlertConfigEnabled(p.id, id, a.body.enabled === false);
                if (edit === 'delete') await human.deleteAlertConfig(p.id, id);
                if (edit === 'rewrite') {
                  const notifications = a.body.notifications.map((n, j) =>
                    j === 0 ? { ...n, delayMin: Number(n.delayMin ?? 0) + 50 } : n,
                  );
                  await human.updateAlertConfig(
                    p.id,
                    id,
                    resolveSpecBody({ ...a.body, notifications }, earlierWorld.secrets),
                  );
                }
              }
            }
            await rm(paths.desiredDir, { recursive: true, force: true });
            paths = await writeWorld(world, dir);
          }
          // A human's unowned exact copies (adopted) and near-misses (left alone).
          for (const [i, p] of world.projects.entries()) {
            const c = cases[i] as ProjectCase;
            for (const [k, a] of p.alerts.entries()) {
              if (c.live[k] === 1 && !earlierKeys.has(`${p.id} ${a.key}`))
                await human.createAlertConfig(p.id, resolveSpecBody(a.body, world.secrets));
            }
            for (const body of nearMisses.get(p.id) ?? []) {
              const made = await human.createAlertConfig(p.id, resolveSpecBody(body, world.secrets));
              if (made !== null) untouched.set(made.id, made);
            }
          }

          // The stopped run.
          const liveBefore = await readLive(emulator.url, world);
          await emulator.admin.clearRequests();
          for (const f of faults) await emulator.admin.fault(f);
          const started = Date.now();
          const api =
            end.at === 'none'
              ? client
              : client.withEndBy(new Date(end.at === 'past' ? started - 1_000 : started + end.ms), 'test end-by');
          if (when.when === 'delay') timer = setTimeout(() => controller.abort('test stop'), when.ms);
          if (when.when === 'writes' && when.k === 0) controller.abort('test stop');
          const stopped = await runOnce(
            emulator.url,
            paths,
            {
              command: 'apply',
              overrides: OVERRIDES,
              signal: controller.signal,
              ...(when.when === 'lease' ? { onLeaseHeld: () => controller.abort('test stop') } : {}),
            },
            {},
            api,
          );
          clearTimeout(timer);
          const log = await emulator.admin.requests();
          await emulator.admin.clearFaults();
          const liveNow = await readLive(emulator.url, world);
          const where = JSON.stringify({ stop: when, endBy: end, faults });
          count(controller.signal.aborted ? 'stopped' : 'finished before the stop');
          for (const e of log.entries) if (e.status === 0 || e.status >= 429) count(`faulted ${e.method} ${e.status}`);
          if (stopped.error !== undefined) {
            count(`stopped run threw ${(stopped.error as { code?: string }).code ?? stopped.error.name}`);
            // Stopped while planning: nothing was written. Only requests that arrived after this run began count: the
            // log records a request when it is answered, so a write an earlier case's run cut on the wire (an end-by
            // time, a latency fault) can be logged after this case cleared the log, with the time it arrived.
            if ((stopped.error as { code?: string }).code === 'INTERRUPTED') {
              const sent = log.entries.filter(
                (e) => e.method !== 'GET' && e.path.includes('/groups/') && Date.parse(e.at) >= started,
              );
              expect(sent, where).toEqual([]);
            }
          }
          if (stopped.report !== undefined) {
            const skipped = stopped.report.results.filter(notStarted).length;
            if (skipped > 0) count('runs with writes not started');
            count('writes not started', skipped);
            count('writes applied', stopped.report.results.filter((r) => r.status === 'applied').length);
            for (const r of stopped.report.results)
              if (r.status === 'failed') count(`failed ${r.change.action} ${r.code}`);
            if (stopped.report.results.some((r) => r.message?.includes('pending marker stays')))
              count('runs leaving a pending create');
            checkReport(stopped.report, world, liveBefore, liveNow, where);
          }

          // The state parses, nothing was set aside as corrupt, and the lease is free.
          const store = new FsStateStore(paths.stateDir);
          await store.read();
          expect(
            (await readdir(paths.stateDir)).filter((f) => f.includes('corrupt')),
            where,
          ).toEqual([]);
          const lease = await store.acquireLease({ owner: 'test:check', runId: 'lease-check', ttlMs: 60_000 });
          await store.releaseLease(lease);

          // An unstopped apply finishes the work; the plan after it is empty.
          const second = await runOnce(emulator.url, paths, { command: 'apply', overrides: OVERRIDES });
          expect(second.error, where).toBeUndefined();
          expect(second.report?.failures, where).toEqual([]);
          expect(second.report?.summary.failed, where).toBe(0);
          const plan = await runOnce(emulator.url, paths, { command: 'plan', overrides: OVERRIDES });
          expect(pendingChanges(plan.report), where).toEqual({});

          // Exactly desired + seed defaults + the near-misses: nothing lost, nothing duplicated.
          const live = await readLive(emulator.url, world);
          const expected = expectedSignatures(world);
          for (const [id, list] of nearMisses) expected.get(id)?.push(...list.map((b) => signature(b)));
          expect(compareInventory(expected, live), where).toEqual([]);
          // One live config per desired key, the one the state records for it.
          const { state } = await store.read();
          for (const p of world.projects) {
            const ids = (live.get(p.id) ?? []).map((c) => c.id);
            const recorded = p.alerts.map((a) => state?.projects[p.id]?.alertConfigs[a.key]?.id);
            for (const id of recorded) expect(ids, where).toContain(id);
            expect(new Set(recorded).size, where).toBe(recorded.length);
          }
          // Nothing the tool does not own was deleted or changed.
          const all = new Map([...live.values()].flat().map((c) => [c.id, c]));
          for (const [id, was] of untouched) expect(all.get(id), `${where}: unowned ${id}`).toEqual(was);
        } finally {
          clearTimeout(timer);
          await emulator.admin.clearFaults();
          await client.close();
          await human.close();
          await rm(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: NUM_RUNS, examples: EXAMPLES, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
    if (process.env.INTERRUPTED_APPLY_DEBUG === '1') console.log(`interrupted-apply: ${JSON.stringify(tally)}`);
    // Not vacuous: runs were stopped, with writes left not started, and the fixed examples' ambiguous creates were met.
    expect(tally.stopped ?? 0).toBeGreaterThan(0);
    expect(tally['runs with writes not started'] ?? 0).toBeGreaterThan(0);
    expect(tally['runs leaving a pending create'] ?? 0).toBeGreaterThan(0);
  }, 240_000);
});
