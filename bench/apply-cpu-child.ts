/**
 * One measured process of `bench/apply-cpu.ts`: either the bare client issuing a world's alert POSTs (`bare`), or a
 * real first `apply` run of the same world (`apply`). Both count CPU time (process.cpuUsage) and wall time over the
 * same window, from the first POST sent to the last POST answered, and the time-weighted average of requests in
 * flight. For `apply` the plan's reads (first GET to first POST) are measured the same way. Prints one JSON line.
 *
 * Usage (normally through apply-cpu.ts, bundled): `node apply-cpu-child.mjs <bare|apply> <job.json>`
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { OpsManagerApi } from '../lambdas/core/ports.ts';
import { runReconcile } from '../lambdas/core/run.ts';
import { resolveSpecBody } from './alert-catalogue.ts';
import { runPool } from './bare.ts';
import { bareClient, buildRunDependencies, type RunPaths } from './run-deps.ts';
import { buildWorld, TOOL_KEY } from './world.ts';

/** The job of one child. */
export interface ApplyCpuJob {
  baseUrl: string;
  projects: number;
  alerts: number;
  concurrency: number;
  paths: RunPaths;
  /** The emulator's process id: its CPU time over the window is read from /proc (Linux), when there. */
  emulatorPid?: number;
}

let emulatorPid: number | undefined;

/** CPU time of the emulator process in ms (utime + stime from /proc), or NaN where /proc is not readable. */
function emulatorCpuMs(): number {
  if (emulatorPid === undefined) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/${emulatorPid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat (utime, stime), in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** CPU, wall and average in-flight requests over one window. */
export interface WindowFigures {
  requests: number;
  wallMs: number;
  cpuMs: number;
  cpuUsPerRequest: number;
  avgInFlight: number;
  /** The emulator's CPU time over the same window, in ms (10 ms resolution). */
  emulatorCpuMs: number;
}

/** Tracks requests in flight (time-weighted) and the CPU used between the first start and the last end. */
class Window {
  inFlight = 0;
  requests = 0;
  #area = 0;
  #last = 0;
  #started = 0;
  #ended = 0;
  #cpuStart: NodeJS.CpuUsage | undefined;
  #cpuEnd: NodeJS.CpuUsage | undefined;
  #emuStart = 0;
  #emuEnd = 0;

  #tick(): void {
    const now = performance.now();
    if (this.#last > 0) this.#area += this.inFlight * (now - this.#last);
    this.#last = now;
  }
  start(): void {
    if (this.#cpuStart === undefined) {
      this.#cpuStart = process.cpuUsage();
      this.#started = performance.now();
      this.#emuStart = emulatorCpuMs();
    }
    this.#tick();
    this.inFlight++;
    this.requests++;
  }
  end(): void {
    this.#tick();
    this.inFlight--;
    this.#ended = this.#last;
    // Read only when nothing is in flight (the end of the window, and the rare gaps): getrusage per request would
    // show up as ~100 µs of each request's CPU.
    if (this.inFlight === 0) {
      this.#cpuEnd = process.cpuUsage(this.#cpuStart);
      this.#emuEnd = emulatorCpuMs();
    }
  }
  figures(): WindowFigures {
    const wallMs = this.#ended - this.#started;
    const cpu = this.#cpuEnd ?? { user: 0, system: 0 };
    const cpuMs = (cpu.user + cpu.system) / 1000;
    return {
      requests: this.requests,
      wallMs: Math.round(wallMs),
      cpuMs: Math.round(cpuMs),
      cpuUsPerRequest: this.requests === 0 ? 0 : Math.round((cpuMs * 1000) / this.requests),
      avgInFlight: wallMs > 0 ? Math.round((this.#area / wallMs) * 100) / 100 : 0,
      emulatorCpuMs: this.#emuEnd - this.#emuStart,
    };
  }
}

/** Wraps every method of `api` so `pick(name)` decides which window a call counts in (undefined: none). */
function instrument(api: OpsManagerApi, pick: (method: string) => Window | undefined): void {
  const target = api as unknown as Record<string, unknown>;
  const proto = Object.getPrototypeOf(api) as Record<string, unknown>;
  for (const name of Object.getOwnPropertyNames(proto)) {
    const fn = proto[name];
    if (name === 'constructor' || typeof fn !== 'function') continue;
    target[name] = async (...args: unknown[]) => {
      const w = pick(name);
      w?.start();
      try {
        return await (fn as (...a: unknown[]) => Promise<unknown>).apply(api, args);
      } finally {
        w?.end();
      }
    };
  }
}

async function bare(job: ApplyCpuJob): Promise<Record<string, unknown>> {
  const { api } = bareClient(job.baseUrl, job.concurrency);
  const posts = new Window();
  instrument(api, (name) => (name === 'createAlertConfig' ? posts : undefined));
  try {
    const world = buildWorld({ projects: job.projects, alerts: job.alerts });
    const ops = world.projects.flatMap((p) =>
      p.alerts.map((a) => {
        const body = resolveSpecBody(a.body, world.secrets);
        return () => api.createAlertConfig(p.id, body);
      }),
    );
    const pool = await runPool(ops, job.concurrency);
    return { posts: posts.figures(), failures: pool.failures };
  } finally {
    await api.close();
  }
}

async function apply(job: ApplyCpuJob): Promise<Record<string, unknown>> {
  const { deps, close } = buildRunDependencies(job.paths, {
    baseUrl: job.baseUrl,
    publicKey: TOOL_KEY.publicKey,
    privateKey: TOOL_KEY.privateKey,
    maxConcurrency: job.concurrency,
  });
  const reads = new Window();
  const posts = new Window();
  let writing = false;
  instrument(deps.api, (name) => {
    if (name === 'createAlertConfig') writing = true;
    if (name === 'createAlertConfig') return posts;
    return writing ? undefined : reads;
  });
  try {
    const report = await runReconcile({ command: 'apply', runId: `apply-cpu-${Date.now()}`, owner: 'apply-cpu' }, deps);
    return {
      posts: posts.figures(),
      planReads: reads.figures(),
      stages: report.durationsMs,
      applied: report.summary.applied,
      failed: report.summary.failed,
    };
  } finally {
    await close();
  }
}

const [mode, file] = process.argv.slice(2);
if ((mode !== 'bare' && mode !== 'apply') || file === undefined) {
  process.stderr.write('usage: apply-cpu-child <bare|apply> <job.json>\n');
  process.exitCode = 2;
} else {
  const job = JSON.parse(await readFile(file, 'utf8')) as ApplyCpuJob;
  emulatorPid = job.emulatorPid;
  const out = mode === 'bare' ? await bare(job) : await apply(job);
  process.stdout.write(`APPLY_CPU ${JSON.stringify({ mode, ...out })}\n`);
}
