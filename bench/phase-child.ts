/**
 * One benchmark phase in a fresh child process, so its peak RSS (`process.resourceUsage().maxRSS`) is the phase's own.
 * Two kinds of job: `reconcile` runs the real `runReconcile` with the real adapters; `bare` issues the phase's
 * minimum requests with a bare client (the overhead baseline). Prints one line `BENCH_RESULT <json>` on stdout.
 *
 * Usage: `node --import tsx bench/phase-child.ts <job.json>`
 */
import { readFile } from 'node:fs/promises';
import { getHeapStatistics } from 'node:v8';
import { runReconcile } from '../lambdas/core/run.ts';
import { type BareContext, bareOperations, runPool } from './bare.ts';
import { instrumentMemory } from './memory-trace.ts';
import type { PhaseName } from './minimum.ts';
import { type PhaseChildResult, type PhaseJob, RESULT_MARKER } from './phase-protocol.ts';
import { bareClient, buildRunDependencies } from './run-deps.ts';
import { buildWorld, TOOL_KEY } from './world.ts';

const COMMANDS: Record<PhaseName, 'apply' | 'plan' | 'archive'> = {
  'apply-initial': 'apply',
  'plan-noop': 'plan',
  'apply-drift': 'apply',
  archive: 'archive',
};

/**
 * Samples the heap every `everyMs` (the highest, with when it happened); the RSS peak is the kernel's own
 * (`resourceUsage().maxRSS`) read at the end. `process.memoryUsage()` per sample read RSS from /proc, which cost the
 * busier reconcile child about 0.5 ms a call (40 ms of a 2 s phase in a profile) against 0.1 ms in the bare one: a
 * cost of the measuring that fell on one side of the ratio only. `v8.getHeapStatistics()` costs about 2 us.
 */
function memorySampler(everyMs = 25): { stop(): { atMs: number; rssMb: number; heapMb: number } } {
  const started = performance.now();
  let heap = { atMs: 0, heapMb: 0 };
  const sample = () => {
    const heapMb = getHeapStatistics().used_heap_size / 1048576;
    if (heapMb > heap.heapMb) heap = { atMs: Math.round(performance.now() - started), heapMb };
  };
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      sample();
      clearInterval(timer);
      return { ...heap, rssMb: process.resourceUsage().maxRSS / 1024 };
    },
  };
}

async function reconcile(job: PhaseJob): Promise<PhaseChildResult> {
  const { deps, counts, close } = buildRunDependencies(job.paths, {
    baseUrl: job.baseUrl,
    publicKey: TOOL_KEY.publicKey,
    privateKey: TOOL_KEY.privateKey,
    maxConcurrency: job.concurrency,
  });
  const diagnostics = instrumentMemory(deps, job.phase);
  try {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const sampler = memorySampler();
    const report = await runReconcile(
      { command: COMMANDS[job.phase], runId: `bench-${job.phase}-${Date.now()}`, owner: `bench:${process.pid}` },
      deps,
    );
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const memoryPeak = sampler.stop();
    diagnostics.finish();
    const problems = [
      ...report.failures.map((f) => `${f.target.name} ${f.phase}: ${f.message}`),
      ...report.results
        .filter((r) => r.status !== 'applied')
        .map((r) => `${r.change.key} ${r.status}: ${r.message ?? ''}`),
    ].slice(0, 5);
    if (report.desiredCache !== undefined) {
      const loadMs = report.durationsMs.load ?? 0;
      problems.push(`load ${(loadMs / 1000).toFixed(2)} s (desired cache ${report.desiredCache})`);
    }
    return {
      wallMs,
      cpuMs: (used.user + used.system) / 1000,
      memoryPeak,
      stages: { ...report.durationsMs },
      counts,
      maxRssKb: process.resourceUsage().maxRSS,
      planned: { ...report.summary.planned },
      applied: report.summary.applied,
      failed: report.summary.failed,
      targetsFailed: report.summary.targetsFailed,
      problems,
      ...(report.desiredCache ? { desiredCache: report.desiredCache } : {}),
    };
  } finally {
    await close();
  }
}

async function bare(job: PhaseJob): Promise<PhaseChildResult> {
  const { api, counts } = bareClient(job.baseUrl, job.concurrency);
  try {
    const world = buildWorld({ projects: job.projects, alerts: job.alerts });
    const ctx: BareContext = { drift: job.drift ?? { targets: [], projects: 0 } };
    if (job.driftIds) ctx.driftIds = job.driftIds;
    if (job.since) ctx.since = job.since;
    const ops = bareOperations(world, job.phase, api, ctx);
    // The same memory sampling as the reconcile child, so both sides of the overhead ratio pay for it alike.
    const sampler = memorySampler();
    const cpu = process.cpuUsage();
    const pool = await runPool(ops, job.concurrency);
    const used = process.cpuUsage(cpu);
    sampler.stop();
    return {
      wallMs: pool.wallMs,
      cpuMs: (used.user + used.system) / 1000,
      counts,
      maxRssKb: process.resourceUsage().maxRSS,
      problems: pool.firstError ? [`${pool.failures} bare requests failed, first: ${pool.firstError}`] : [],
    };
  } finally {
    await api.close();
  }
}

async function main(): Promise<void> {
  const file = process.argv[2];
  if (!file) throw new Error('usage: phase-child.ts <job.json>');
  const job = JSON.parse(await readFile(file, 'utf8')) as PhaseJob;
  let result: PhaseChildResult;
  try {
    result = job.kind === 'bare' ? await bare(job) : await reconcile(job);
  } catch (error) {
    result = {
      wallMs: 0,
      counts: { total: 0, attempts: 0, byMethod: {}, byRoute: {}, failed: 0 },
      maxRssKb: process.resourceUsage().maxRSS,
      problems: [],
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    };
  }
  process.stdout.write(`${RESULT_MARKER}${JSON.stringify(result)}\n`);
}

await main();
