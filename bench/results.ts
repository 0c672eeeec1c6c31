/**
 * Benchmark results: their shape, the Markdown rendering, and the writer of `bench/results/<YYYY-MM-DD>.json` and
 * `.md`. Several cases run the same day (default, large, quick) merge into the one file of that date, keyed by size.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Minimum, PhaseName } from './minimum.ts';

/** Targets of issue 7: requests/minimum and overhead ratios, and the large case's limits. */
export const TARGETS = { ratioToMinimum: 1.05, overhead: 1.5, largeNoopPlanMs: 10_000, largePeakRssMb: 256 } as const;

/** Figures of one phase. */
export interface PhaseResult {
  phase: PhaseName;
  /** Wall time of runReconcile (or the archive run) inside its child process, in ms. */
  wallMs: number;
  /** CPU time (user + system) of the reconciling process over the same span, in ms. */
  cpuMs?: number;
  /** Highest sampled RSS, and when the heap peaked (ms into the run); with the run's stage durations. */
  memoryPeak?: { atMs: number; rssMb: number; heapMb: number };
  stages?: Record<string, number>;
  /** Requests counted by the client's observer (one per logical request; retries in `attempts`). */
  observed: { total: number; attempts: number; byMethod: Record<string, number>; byRoute?: Record<string, number> };
  /** The emulator's own log over the phase: HTTP exchanges, 401 challenges included in `total`. */
  emulator: { total: number; challenges: number; byMethod: Record<string, number> };
  requestsPerProject: number;
  /** maxRSS of the child process that ran the phase, in MB. */
  peakRssMb: number;
  minimum: Minimum;
  /** observed.total / minimum.total. */
  ratioToMinimum: number;
  /** Time a bare client takes to issue minimum.total requests of the same kinds at the same concurrency, in ms. */
  bareMs: number;
  /** CPU time (user + system) of the bare baseline's process over its requests, in ms. */
  bareCpuMs?: number;
  /** CPU the emulator process spent while the reconciler ran and while the bare baseline ran, in ms (Linux only). */
  emulatorCpuMs?: { reconcile: number; bare: number };
  /** wallMs / bareMs. */
  overhead: number;
  /**
   * Every reconcile/bare pair when the phase was repeated (`--repeat`), with what each planned and its requests over
   * the minimum; the figures above are the median pair's.
   */
  repeats?: {
    wallMs: number;
    bareMs: number;
    overhead: number;
    ratioToMinimum: number;
    planned?: Record<string, number>;
  }[];
  /** Plan counts by action, when the phase planned. */
  planned?: Record<string, number>;
  /** Anything that went wrong or does not add up (failures, mismatches between observer and emulator). */
  notes: string[];
}

/** One benchmark case (a size). */
export interface CaseResult {
  projects: number;
  alerts: number;
  concurrency: number;
  /** Service time the emulator added to every API request, in ms (`--latency-ms`; absent: none). */
  latencyMs?: number;
  startedAt: string;
  /** `os.loadavg()` (1, 5, 15 minutes) when the case started and ended: figures taken on a busy machine say so. */
  loadAverage?: { start: number[]; end: number[] };
  phases: PhaseResult[];
}

/** One point of the scaling run. */
export interface ScalingPoint {
  projects: number;
  alerts: number;
  phase: PhaseName;
  wallMs: number;
  msPerProject: number;
  /** CPU time of the reconciling process per project, in ms (when measured). */
  cpuMsPerProject?: number;
  requestsPerProject: number;
  peakRssMb: number;
}

/** Cold start of one Lambda bundle. */
export interface ColdStartResult {
  name: string;
  bytes: number;
  /** Median import time of the bundle in a fresh process, in ms, over `samples` processes. */
  importMs: number;
  samples: number;
  note?: string;
}

/** Everything recorded on one date. */
export interface ResultsFile {
  date: string;
  machine: { node: string; cpus: number; platform: string };
  cases: Record<string, CaseResult>;
  scaling?: ScalingPoint[];
  coldStart?: ColdStartResult[];
}

/**
 * The key of a case in a ResultsFile: `<projects>x<alerts>`, plus `@<L>ms` for a run with added server latency (so
 * such a run never replaces the official figures of its size).
 */
export const caseKey = (c: { projects: number; alerts: number; latencyMs?: number }) =>
  `${c.projects}x${c.alerts}${c.latencyMs ? `@${c.latencyMs}ms` : ''}`;

const s = (ms: number) => (ms / 1000).toFixed(2);
const methods = (m: Record<string, number>) =>
  Object.entries(m)
    .filter(([, n]) => n > 0)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, n]) => `${k} ${n}`)
    .join(', ') || '-';
const mark = (value: number, limit: number) => `${value.toFixed(3)}${value <= limit ? '' : ' ✗'}`;

/**
 * Where the CPU went, per phase: the reconciler's and the bare baseline's own processes, and the emulator's during
 * each. A phase whose emulator CPU is close to its wall time waited on the emulator; otherwise on the client side.
 */
function cpuTable(phases: readonly PhaseResult[]): string[] {
  const shown = phases.filter((p) => p.bareCpuMs !== undefined || p.emulatorCpuMs !== undefined);
  if (shown.length === 0) return [];
  const cell = (ms: number | undefined) => (ms === undefined ? '-' : s(ms));
  return [
    '',
    '| phase | reconciler CPU (s) | emulator CPU during it (s) | bare client CPU (s) | emulator CPU during bare (s) |',
    '|---|---:|---:|---:|---:|',
    ...shown.map(
      (p) =>
        `| ${p.phase} | ${cell(p.cpuMs)} | ${cell(p.emulatorCpuMs?.reconcile)} | ${cell(p.bareCpuMs)} | ${cell(p.emulatorCpuMs?.bare)} |`,
    ),
  ];
}

/** The Markdown table of one case. */
export function renderCaseTable(c: CaseResult): string {
  const lines = [
    `### ${c.projects} projects x ${c.alerts} alert configs${c.latencyMs ? `, ${c.latencyMs} ms server latency` : ''} (concurrency ${c.concurrency}, ${c.startedAt})`,
    '',
    ...(c.latencyMs
      ? [
          `Server latency added: the emulator waited ${c.latencyMs} ms before answering each API request (\`--latency-ms\`), for the reconciler and the bare baseline alike. Not the official figures: those have none.`,
          '',
        ]
      : []),
    ...(c.loadAverage
      ? [
          `Machine load average (1/5/15 min) at start ${c.loadAverage.start.map((n) => n.toFixed(1)).join('/')}, at end ${c.loadAverage.end.map((n) => n.toFixed(1)).join('/')}.`,
          '',
        ]
      : []),
    '| phase | wall (s) | CPU (s) | requests by method | req/project | peak RSS (MB) | minimum | req/min | bare (s) | overhead |',
    '|---|---:|---:|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const p of c.phases) {
    lines.push(
      `| ${p.phase} | ${s(p.wallMs)} | ${p.cpuMs === undefined ? '-' : s(p.cpuMs)} | ${methods(p.observed.byMethod)} | ${p.requestsPerProject.toFixed(2)} | ${p.peakRssMb.toFixed(0)} | ${p.minimum.total} | ${mark(p.ratioToMinimum, TARGETS.ratioToMinimum)} | ${s(p.bareMs)} | ${mark(p.overhead, TARGETS.overhead)} |`,
    );
  }
  lines.push(...cpuTable(c.phases));
  const noop = c.phases.find((p) => p.phase === 'plan-noop');
  if (c.projects === 1000 && c.alerts === 20 && !c.latencyMs && noop) {
    const peak = Math.max(...c.phases.map((p) => p.peakRssMb));
    const ok = (pass: boolean) => (pass ? 'met' : 'MISSED');
    lines.push(
      '',
      `Large-case targets: no-op plan ${s(noop.wallMs)} s (target < ${TARGETS.largeNoopPlanMs / 1000} s: ${ok(noop.wallMs < TARGETS.largeNoopPlanMs)}); ` +
        `peak RSS ${peak.toFixed(0)} MB over the phases (target < ${TARGETS.largePeakRssMb} MB: ${ok(peak < TARGETS.largePeakRssMb)}).`,
    );
  }
  const notes = c.phases.flatMap((p) => p.notes.map((n) => `- ${p.phase}: ${n}`));
  if (notes.length > 0) lines.push('', 'Notes:', ...notes);
  return lines.join('\n');
}

/** The whole Markdown report of a results file. */
export function renderResultsMarkdown(file: ResultsFile, scalingSvg?: string): string {
  const out = [
    `# Benchmark results ${file.date}`,
    '',
    `Node ${file.machine.node}, ${file.machine.cpus} CPUs, ${file.machine.platform}.`,
    '',
  ];
  const cases = Object.values(file.cases).sort(
    (a, b) => a.projects * a.alerts - b.projects * b.alerts || (a.latencyMs ?? 0) - (b.latencyMs ?? 0),
  );
  for (const c of cases) out.push(renderCaseTable(c), '');
  if (file.scaling && file.scaling.length > 0) {
    out.push(
      '### Scaling',
      '',
      '| projects | phase | wall (s) | ms/project | CPU ms/project | req/project | peak RSS (MB) |',
      '|---:|---|---:|---:|---:|---:|---:|',
    );
    for (const p of file.scaling) {
      const cpu = p.cpuMsPerProject === undefined ? '-' : p.cpuMsPerProject.toFixed(2);
      out.push(
        `| ${p.projects} | ${p.phase} | ${s(p.wallMs)} | ${p.msPerProject.toFixed(2)} | ${cpu} | ${p.requestsPerProject.toFixed(2)} | ${p.peakRssMb.toFixed(0)} |`,
      );
    }
    if (scalingSvg) out.push('', `![cost per project](${scalingSvg})`);
    out.push('');
  }
  if (file.coldStart && file.coldStart.length > 0) {
    out.push(
      '### Lambda cold start',
      '',
      '| bundle | size (KB) | import (ms, median) | samples | note |',
      '|---|---:|---:|---:|---|',
    );
    for (const b of file.coldStart) {
      out.push(
        `| ${b.name} | ${(b.bytes / 1024).toFixed(0)} | ${b.importMs.toFixed(0)} | ${b.samples} | ${b.note ?? ''} |`,
      );
    }
    out.push('');
  }
  return out.join('\n');
}

async function writeAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, path);
}

/** Reads the results file of `date` in `dir`, or null when none exists yet. */
export async function readResults(dir: string, date: string): Promise<ResultsFile | null> {
  try {
    return JSON.parse(await readFile(join(dir, `${date}.json`), 'utf8')) as ResultsFile;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Merges `update` into the file of its date (cases by key; scaling and cold start replaced when given) and writes .json and .md. */
export async function writeResults(
  dir: string,
  update: Omit<ResultsFile, 'cases'> & { cases?: Record<string, CaseResult> },
  scalingSvg?: string,
): Promise<{ json: string; md: string; merged: ResultsFile }> {
  await mkdir(dir, { recursive: true });
  const existing = await readResults(dir, update.date);
  const merged: ResultsFile = {
    date: update.date,
    machine: update.machine,
    cases: { ...(existing?.cases ?? {}), ...(update.cases ?? {}) },
    scaling: update.scaling ?? existing?.scaling,
    coldStart: update.coldStart ?? existing?.coldStart,
  };
  const json = join(dir, `${update.date}.json`);
  const md = join(dir, `${update.date}.md`);
  await writeAtomic(json, `${JSON.stringify(merged, null, 2)}\n`);
  await writeAtomic(md, renderResultsMarkdown(merged, scalingSvg));
  return { json, md, merged };
}
