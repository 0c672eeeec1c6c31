/**
 * One benchmark case (N projects x M alert configs): generate the world, start the emulator in another process,
 * then run the four phases (first apply, no-op plan, plan+apply after 1% drift, archive), each in its own child
 * process, each followed by its bare-client baseline; collect the figures of every phase.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { renderDesiredState, renderSecretsFile } from './desired.ts';
import { injectDrift } from './drift.ts';
import { countByMethod, EmulatorAdmin, type RequestLog } from './emulator-admin.ts';
import { type EmulatorProcess, startEmulatorProcess } from './emulator-process.ts';
import { PHASES, type PhaseName, phaseMinimum, ratio, routeDifferences, selectDrift } from './minimum.ts';
import type { PhaseChildResult, PhaseJob } from './phase-protocol.ts';
import { cpuMeter } from './proc-cpu.ts';
import type { CaseResult, PhaseResult } from './results.ts';
import type { RunPaths } from './run-deps.ts';
import { renderSeed } from './seed.ts';
import { runPhaseChild } from './spawn-phase.ts';
import { buildWorld, countDesiredAlerts, type World } from './world.ts';

/** Options of one case. */
export interface CaseOptions {
  projects: number;
  alerts: number;
  /** Client concurrency, the same for the reconciler and the bare baseline. */
  concurrency: number;
  /** Directory for the generated files, state and archive of this case. */
  workDir: string;
  /** Only these phases (default: all four, in order; later phases need the earlier ones). */
  phases?: readonly PhaseName[];
  /** Extra node flags for the reconcile children (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  /** The compiled phase child (bundle-child.ts); without it children run the TypeScript through tsx. */
  childBundle?: string;
  /** Progress lines. */
  log?: (line: string) => void;
  /**
   * Reconcile/bare pairs run for each repeatable phase (plan-noop, apply-drift, archive); the median pair is reported.
   * Default 1.
   */
  repeat?: number;
  /** Service time in ms the emulator adds to every API request, for both sides (default 0: none). */
  latencyMs?: number;
}

/** Makes the emulator at `origin` wait `latencyMs` before every API request (a fault on every path, never used up). */
export async function addServerLatency(origin: string, latencyMs: number | undefined): Promise<void> {
  if (!latencyMs) return;
  await new EmulatorAdmin(origin).fault({ path: '/**', latencyMs, times: 1_000_000_000 });
}

/**
 * Phases that can run again in the same case: the read-only ones leave Ops Manager and the state as they found them,
 * and the drift apply, which puts them back, gets the same drift injected afresh before each of its pairs.
 */
export const REPEATABLE: ReadonlySet<PhaseName> = new Set<PhaseName>(['plan-noop', 'apply-drift', 'archive']);

/**
 * The pair with the median overhead (the lower middle one for an even count), with every pair's overhead in its notes:
 * one run's ratio moves by a quarter with the machine, the median of several much less.
 */
export function medianPair(pairs: readonly PhaseResult[]): PhaseResult {
  const sorted = [...pairs].sort((a, b) => a.overhead - b.overhead);
  const median = sorted[Math.floor((sorted.length - 1) / 2)] as PhaseResult;
  if (pairs.length === 1) return median;
  const all = pairs.map((p) => p.overhead.toFixed(2)).join(', ');
  return {
    ...median,
    repeats: pairs.map((p) => ({
      wallMs: p.wallMs,
      bareMs: p.bareMs,
      overhead: p.overhead,
      ratioToMinimum: p.ratioToMinimum,
      ...(p.planned ? { planned: p.planned } : {}),
    })),
    notes: [
      ...median.notes,
      `overhead of ${pairs.length} reconcile/bare pairs, in run order: ${all} (median reported)`,
    ],
  };
}

/** Writes seed, desired state and secrets of `world` under `dir`; resolves to the paths. */
export async function writeWorld(world: World, dir: string): Promise<RunPaths & { seedFile: string }> {
  const desiredDir = join(dir, 'desired');
  const paths = {
    seedFile: join(dir, 'seed.json'),
    desiredDir,
    secretsFile: join(dir, 'secrets.json'),
    stateDir: join(dir, 'state'),
    archiveDir: join(dir, 'archive'),
  };
  for (const d of [desiredDir, paths.stateDir, paths.archiveDir]) await mkdir(d, { recursive: true });
  await writeFile(paths.seedFile, JSON.stringify(renderSeed(world)));
  await writeFile(paths.secretsFile, renderSecretsFile(world), { mode: 0o600 });
  for (const file of renderDesiredState(world)) {
    const path = join(desiredDir, file.path);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, file.text);
  }
  return paths;
}

function expectedPlanNotes(phase: PhaseName, world: World, driftCount: number, child: PhaseChildResult): string[] {
  const planned = child.planned ?? {};
  const notes: string[] = [];
  const want: Partial<Record<PhaseName, [string, number]>> = {
    'apply-initial': ['create', countDesiredAlerts(world)],
    'apply-drift': ['enable', driftCount],
  };
  const expectation = want[phase];
  if (expectation && (planned[expectation[0]] ?? 0) !== expectation[1]) {
    notes.push(`expected ${expectation[1]} ${expectation[0]} in the plan, got ${planned[expectation[0]] ?? 0}`);
  }
  if (phase === 'plan-noop') {
    const changes = Object.entries(planned).filter(([action, n]) => action !== 'noop' && n > 0);
    if (changes.length > 0)
      notes.push(`the no-op plan is not empty: ${changes.map(([a, n]) => `${a} ${n}`).join(', ')}`);
  }
  return notes;
}

/** Which stage of the run (stages run one after the other, in this order) the heap peak fell in. */
export function describePeak(
  peak: { atMs: number; rssMb: number; heapMb: number },
  stages: Record<string, number>,
): string {
  let end = 0;
  let stage = 'after the last stage';
  const ordered = Object.entries(stages).filter(([name]) => name !== 'total');
  for (const [name, ms] of ordered) {
    end += ms;
    if (peak.atMs <= end) {
      stage = `during ${name}`;
      break;
    }
  }
  const timeline = ordered.map(([n, ms]) => `${n} ${(ms / 1000).toFixed(2)} s`).join(', ');
  return `peak RSS ${peak.rssMb.toFixed(0)} MB; heap peaked at ${peak.heapMb.toFixed(0)} MB ${(peak.atMs / 1000).toFixed(2)} s in, ${stage} (${timeline})`;
}

function phaseResult(
  phase: PhaseName,
  world: World,
  child: PhaseChildResult,
  bare: PhaseChildResult,
  log: RequestLog,
  driftCount: number,
  drift: ReturnType<typeof selectDrift>,
): PhaseResult {
  const minimum = phaseMinimum(world, phase, drift);
  const notes = [...expectedPlanNotes(phase, world, driftCount, child), ...child.problems];
  if (child.error) notes.push(`run failed: ${child.error}`);
  if (child.memoryPeak && child.stages) notes.push(`memory: ${describePeak(child.memoryPeak, child.stages)}`);
  if (bare.error) notes.push(`bare baseline failed: ${bare.error}`);
  notes.push(...bare.problems.map((p) => `bare: ${p}`));
  const emulatorRequests = log.total - log.challenges;
  if (emulatorRequests !== child.counts.attempts) {
    notes.push(
      `observer saw ${child.counts.attempts} attempts, the emulator logged ${emulatorRequests} (+${log.challenges} challenges)`,
    );
  }
  if (bare.counts.total !== minimum.total)
    notes.push(`bare baseline issued ${bare.counts.total} requests, minimum is ${minimum.total}`);
  const offRoutes = routeDifferences(child.counts.byRoute, minimum.byRoute ?? {});
  if (offRoutes.length > 0) notes.push(`requests off the minimum: ${offRoutes.join('; ')}`);
  const planned = child.planned;
  return {
    phase,
    wallMs: child.wallMs,
    ...(child.cpuMs === undefined ? {} : { cpuMs: child.cpuMs }),
    ...(child.memoryPeak ? { memoryPeak: child.memoryPeak } : {}),
    ...(child.stages ? { stages: child.stages } : {}),
    observed: {
      total: child.counts.total,
      attempts: child.counts.attempts,
      byMethod: child.counts.byMethod,
      byRoute: child.counts.byRoute,
    },
    emulator: { total: log.total, challenges: log.challenges, byMethod: countByMethod(log) },
    requestsPerProject: child.counts.total / world.projects.length,
    peakRssMb: child.maxRssKb / 1024,
    minimum,
    ratioToMinimum: ratio(child.counts.total, minimum.total),
    bareMs: bare.wallMs,
    ...(bare.cpuMs === undefined ? {} : { bareCpuMs: bare.cpuMs }),
    overhead: bare.wallMs > 0 ? Math.round((child.wallMs / bare.wallMs) * 1000) / 1000 : 0,
    ...(planned ? { planned } : {}),
    notes,
  };
}

/** Runs the case; the emulator processes are always stopped. */
export async function runCase(options: CaseOptions): Promise<CaseResult> {
  const log = options.log ?? (() => {});
  const world = buildWorld({ projects: options.projects, alerts: options.alerts });
  const paths = await writeWorld(world, options.workDir);
  const drift = selectDrift(world);
  const startedAt = new Date().toISOString();
  const loadStart = loadavg();
  const phases: PhaseResult[] = [];
  const job = (kind: PhaseJob['kind'], phase: PhaseName, target: EmulatorProcess): PhaseJob => ({
    kind,
    phase,
    baseUrl: target.url,
    concurrency: options.concurrency,
    projects: options.projects,
    alerts: options.alerts,
    paths,
  });
  const emulator = await startEmulatorProcess({ seed: paths.seedFile });
  const admin = new EmulatorAdmin(emulator.origin);
  try {
    await addServerLatency(emulator.origin, options.latencyMs);
    for (const phase of options.phases ?? PHASES) {
      const pair = async (): Promise<PhaseResult> => {
        let driftIds: string[] = [];
        const since = new Date(Date.now() - 1000).toISOString();
        if (phase === 'apply-drift') {
          // Before every pair: the previous pair's apply re-enabled what the last injection disabled.
          driftIds = await injectDrift(world, drift, {
            baseUrl: emulator.url,
            stateDir: paths.stateDir,
            concurrency: options.concurrency,
          });
          log(`  drift: disabled ${driftIds.length} alert configs as another key`);
        }
        await admin.clearRequests();
        log(`  ${phase}: reconcile`);
        const emulatorCpu = cpuMeter(emulator.pid);
        const child = await runPhaseChild(
          job('reconcile', phase, emulator),
          options.workDir,
          options.nodeArgs,
          options.childBundle,
        );
        const reconcileEmulatorCpuMs = emulatorCpu.stop();
        const requestLog = await admin.requests();
        log(`  ${phase}: ${(child.wallMs / 1000).toFixed(2)} s, ${child.counts.total} requests; bare baseline`);
        const bare = await runBare(phase, job('bare', phase, emulator), emulator.pid, paths.seedFile, options, {
          drift,
          driftIds,
          since,
        });
        await admin.clearRequests();
        const result = phaseResult(phase, world, child, bare.result, requestLog, driftIds.length, drift);
        const emulatorCpuMs = { reconcile: reconcileEmulatorCpuMs, bare: bare.emulatorCpuMs };
        if (emulatorCpuMs.reconcile !== undefined && emulatorCpuMs.bare !== undefined)
          result.emulatorCpuMs = { reconcile: emulatorCpuMs.reconcile, bare: emulatorCpuMs.bare };
        return result;
      };
      const times = REPEATABLE.has(phase) ? (options.repeat ?? 1) : 1;
      const pairs: PhaseResult[] = [];
      for (let i = 0; i < times; i++) pairs.push(await pair());
      phases.push(medianPair(pairs));
    }
  } finally {
    await emulator.close();
  }
  return {
    projects: options.projects,
    alerts: options.alerts,
    concurrency: options.concurrency,
    ...(options.latencyMs ? { latencyMs: options.latencyMs } : {}),
    startedAt,
    loadAverage: { start: loadStart, end: loadavg() },
    phases,
  };
}

/**
 * The bare baseline of a phase, with the CPU its emulator spent meanwhile. Creates run against a second, fresh
 * emulator so they duplicate nothing.
 */
async function runBare(
  phase: PhaseName,
  job: PhaseJob,
  emulatorPid: number,
  seedFile: string,
  options: Pick<CaseOptions, 'workDir' | 'childBundle' | 'latencyMs'>,
  extra: Pick<PhaseJob, 'drift' | 'driftIds' | 'since'>,
): Promise<{ result: PhaseChildResult; emulatorCpuMs: number | undefined }> {
  const measured = async (pid: number, run: () => Promise<PhaseChildResult>) => {
    const meter = cpuMeter(pid);
    const result = await run();
    return { result, emulatorCpuMs: meter.stop() };
  };
  if (phase !== 'apply-initial')
    return measured(emulatorPid, () => runPhaseChild({ ...job, ...extra }, options.workDir, [], options.childBundle));
  let fresh: EmulatorProcess | undefined;
  try {
    fresh = await startEmulatorProcess({ seed: seedFile });
    const started = fresh;
    await addServerLatency(started.origin, options.latencyMs);
    return await measured(started.pid, () =>
      runPhaseChild({ ...job, baseUrl: started.url }, options.workDir, [], options.childBundle),
    );
  } finally {
    await fresh?.close();
  }
}
