/**
 * The protocol between the benchmark and its phase children: the job a child runs and the result line it prints.
 */
import type { DriftSelection, PhaseName } from './minimum.ts';
import type { RequestCounts, RunPaths } from './run-deps.ts';

/** What the parent asks a child to do. */
export interface PhaseJob {
  kind: 'reconcile' | 'bare';
  phase: PhaseName;
  baseUrl: string;
  concurrency: number;
  projects: number;
  alerts: number;
  paths: RunPaths;
  /** For bare apply-drift: which alerts drifted, and their ids. */
  drift?: DriftSelection;
  driftIds?: string[];
  since?: string;
}

/** What a child reports back. */
export interface PhaseChildResult {
  wallMs: number;
  /** CPU time (user + system) the child spent in the measured part, in ms: less sensitive to machine load. */
  cpuMs?: number;
  /** Highest sampled RSS; highest sampled heap and when it happened (ms after the run started). */
  memoryPeak?: { atMs: number; rssMb: number; heapMb: number };
  /** The run report's durations by stage (load, lease, state, plan, apply, save...), in ms. */
  stages?: Record<string, number>;
  counts: RequestCounts;
  maxRssKb: number;
  planned?: Record<string, number>;
  applied?: number;
  failed?: number;
  targetsFailed?: number;
  /** First messages of failures (targets or changes), then the desired-state load line, for the notes. */
  problems: string[];
  /** Whether the run's desired state came from the desired-state cache. */
  desiredCache?: 'hit' | 'miss' | 'off';
  error?: string;
}

/** Marker of the result line. */
export const RESULT_MARKER = 'BENCH_RESULT ';
