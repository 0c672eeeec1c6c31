/**
 * `npm run bench`: runs a benchmark case (or the scaling run, or a quick smoke run) against the emulator in another
 * process, measures the Lambda bundles' cold start, prints Markdown tables, and writes
 * `bench/results/<YYYY-MM-DD>.json` and `.md` (and `scaling-<date>.svg` for the scaling run).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BenchArgs, BenchArgsError, parseBenchArgs, USAGE } from './args.ts';
import { bundlePhaseChild } from './bundle-child.ts';
import { runCase } from './case.ts';
import { measureColdStarts } from './cold-start.ts';
import {
  type CaseResult,
  caseKey,
  renderCaseTable,
  renderResultsMarkdown,
  type ScalingPoint,
  writeResults,
} from './results.ts';
import { scalingChart, scalingPoints } from './scaling.ts';

const DEFAULT_RESULTS_DIR = fileURLToPath(new URL('./results', import.meta.url));
/** Sizes of the scaling run. */
export const SCALING_PROJECTS = [10, 100, 1000] as const;
/** Sizes of `--quick`. */
export const QUICK_SIZE = { projects: 5, alerts: 4 } as const;

const err = (line: string) => process.stderr.write(`${line}\n`);

async function main(args: BenchArgs): Promise<number> {
  const date = new Date().toISOString().slice(0, 10);
  // A smoke run's figures are not results: it never touches the tracked bench/results unless told to.
  const resultsDir = resolve(
    args.resultsDir ?? (args.quick ? join(tmpdir(), 'opsman-bench-quick-results') : DEFAULT_RESULTS_DIR),
  );
  const workRoot = args.out ? resolve(args.out) : await mkdtemp(join(tmpdir(), 'opsman-bench-'));
  await mkdir(workRoot, { recursive: true });
  const nodeArgs = args.cpuProf ? ['--cpu-prof', '--cpu-prof-dir', resolve(args.cpuProf)] : [];
  const machine = {
    node: process.version,
    cpus: availableParallelism(),
    platform: `${process.platform}-${process.arch}`,
  };
  const sizes = args.scaling
    ? SCALING_PROJECTS.map((projects) => ({ projects, alerts: args.alerts }))
    : [args.quick ? QUICK_SIZE : { projects: args.projects, alerts: args.alerts }];
  const cases: Record<string, CaseResult> = {};
  let failures = 0;
  try {
    const childBundle = await bundlePhaseChild(workRoot);
    for (const size of sizes) {
      err(`case ${size.projects} projects x ${size.alerts} alert configs`);
      const c = await runCase({
        ...size,
        concurrency: args.concurrency,
        repeat: args.repeat,
        latencyMs: args.latencyMs,
        workDir: join(workRoot, caseKey(size)),
        nodeArgs,
        childBundle,
        log: err,
      });
      cases[caseKey(c)] = c;
      failures += c.phases.filter((p) => p.notes.some((n) => n.startsWith('run failed'))).length;
      process.stdout.write(`${renderCaseTable(c)}\n\n`);
    }
    let scaling: ScalingPoint[] | undefined;
    let svgName: string | undefined;
    if (args.scaling) {
      scaling = Object.values(cases).flatMap(scalingPoints);
      svgName = `scaling-${date}.svg`;
      await mkdir(resultsDir, { recursive: true });
      await writeFile(join(resultsDir, svgName), scalingChart(scaling));
    }
    let coldStart: Awaited<ReturnType<typeof measureColdStarts>> | undefined;
    if (args.coldStart) {
      err('cold start of the Lambda bundles');
      const outDir = join(workRoot, 'bundles');
      await mkdir(outDir, { recursive: true });
      coldStart = await measureColdStarts({ outDir, samples: args.quick ? 1 : 5 });
    }
    const update = { date, machine, cases, ...(scaling ? { scaling } : {}), ...(coldStart ? { coldStart } : {}) };
    const written = await writeResults(resultsDir, update, svgName);
    if (coldStart) process.stdout.write(`${renderResultsMarkdown({ date, machine, cases: {}, coldStart })}\n`);
    err(`results: ${written.json}, ${written.md}${svgName ? `, ${join(resultsDir, svgName)}` : ''}`);
  } finally {
    if (!args.out) await rm(workRoot, { recursive: true, force: true });
  }
  return failures > 0 ? 1 : 0;
}

try {
  const args = parseBenchArgs(process.argv.slice(2));
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
  } else {
    process.exitCode = await main(args);
  }
} catch (error) {
  if (error instanceof BenchArgsError) {
    err(`bench: ${error.message}`);
    process.exitCode = 2;
  } else {
    err(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exitCode = 1;
  }
}
