/**
 * Memory diagnostics of a phase child, switched on by environment variables (the child inherits the bench's env):
 * - `BENCH_MEMORY_TRACE=<dir>`: a timeline of `process.memoryUsage()` every 5 ms with markers around state writes and
 *   archive puts, and when the run counts its API calls (at its start and right before it builds the report),
 *   written to `<dir>/trace-<phase>.json`;
 * - `BENCH_HEAP_SNAPSHOT=<dir>`: a V8 heap snapshot right before the run report is built and serialised (the moment
 *   plan, results and state are all alive), written to `<dir>/<phase>-before-report.heapsnapshot`.
 * Both cost time and memory of their own: never used for the figures of a results file.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import type { RunDependencies } from '../lambdas/core/run-types.ts';

/** One sample of the timeline: ms since start, RSS, heap used and external/arrayBuffers in MB, optional marker. */
export interface TraceSample {
  atMs: number;
  rssMb: number;
  heapMb: number;
  externalMb: number;
  mark?: string;
}

const MB = 1048576;

/** Wraps `deps` for the diagnostics the environment asks for; `finish()` writes the timeline. */
export function instrumentMemory(deps: RunDependencies, phase: string): { finish(): void } {
  const traceDir = process.env.BENCH_MEMORY_TRACE;
  const snapshotDir = process.env.BENCH_HEAP_SNAPSHOT;
  const started = performance.now();
  const samples: TraceSample[] = [];
  const sample = (mark?: string) => {
    const m = process.memoryUsage();
    const s: TraceSample = {
      atMs: Math.round(performance.now() - started),
      rssMb: Math.round(m.rss / MB),
      heapMb: Math.round(m.heapUsed / MB),
      externalMb: Math.round((m.external + m.arrayBuffers) / MB),
    };
    if (mark !== undefined) s.mark = mark;
    samples.push(s);
  };
  const timer = traceDir ? setInterval(() => sample(), 5) : undefined;
  const state = deps.state;
  const write = state.write.bind(state);
  state.write = async (doc, version) => {
    if (traceDir) sample('state.write start');
    try {
      return await write(doc, version);
    } finally {
      if (traceDir) sample('state.write end');
    }
  };
  const archive = deps.archive;
  const put = archive.put.bind(archive);
  archive.put = async (key, body, options) => {
    if (traceDir) sample(`archive.put start ${key.split('/')[0]}`);
    try {
      return await put(key, body, options);
    } finally {
      if (traceDir) sample(`archive.put end ${key.split('/')[0]}`);
    }
  };
  const apiCalls = deps.apiCalls;
  let calls = 0;
  if (apiCalls !== undefined) {
    deps.apiCalls = () => {
      calls++;
      if (traceDir) sample(calls === 1 ? 'run start' : 'report build');
      if (snapshotDir && calls === 2) {
        mkdirSync(snapshotDir, { recursive: true });
        writeHeapSnapshot(join(snapshotDir, `${phase}-before-report.heapsnapshot`));
      }
      return apiCalls();
    };
  }
  return {
    finish() {
      if (!traceDir || timer === undefined) return;
      clearInterval(timer);
      sample('end');
      mkdirSync(traceDir, { recursive: true });
      writeFileSync(join(traceDir, `trace-${phase}.json`), JSON.stringify(samples));
    },
  };
}
