/**
 * Times loadDesiredState alone on a generated desired state (default 1,000 projects x 20 alert configs) and reports
 * the heap it retains: `npx tsx --expose-gc bench/load-desired.ts [--projects N] [--alerts M] [--runs R] [--cache]
 * [--fresh-hits K]`. With `--cache`, loads go through a fresh FsDesiredStateCache: run 1 is a miss that fills it,
 * later runs hit. `--fresh-hits K` (implies --cache) then loads K more times, each in a new process, as a CLI run
 * does: the cost of a hit without a warm JIT or a grown heap (what the benchmark's phase children pay).
 * The heap is measured after a forced GC while the result is still referenced, so it shows what loading keeps.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FsDesiredStateCache } from '../lambdas/adapters/local/desired-cache-fs.ts';
import { FsDesiredStateSource } from '../lambdas/adapters/local/desired-source-fs.ts';
import { loadDesiredStateCached } from '../lambdas/core/desired/index.ts';
import { renderDesiredState } from './desired.ts';
import { buildWorld } from './world.ts';

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} needs a positive integer`);
  return value;
}

const gc = (globalThis as { gc?: () => void }).gc;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** One cached load in this (fresh) process: `--child-hit ROOT CACHE_DIR`, prints one line. */
async function childHit(root: string, cacheDir: string): Promise<void> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const { result, cache } = await loadDesiredStateCached(
    new FsDesiredStateSource(root),
    {},
    new FsDesiredStateCache(cacheDir),
  );
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  console.log(
    `fresh process: ${ms.toFixed(0)} ms wall, ${((used.user + used.system) / 1000).toFixed(0)} ms CPU ` +
      `(user ${(used.user / 1000).toFixed(0)}, system ${(used.system / 1000).toFixed(0)}); ` +
      `cache ${cache}, ${result.ok ? 'ok' : 'invalid'}`,
  );
}

async function main(): Promise<void> {
  const child = process.argv.indexOf('--child-hit');
  if (child >= 0) return childHit(process.argv[child + 1] as string, process.argv[child + 2] as string);
  const freshHits = process.argv.includes('--fresh-hits') ? flag('fresh-hits', 1) : 0;
  const projects = flag('projects', 1000);
  const alerts = flag('alerts', 20);
  const runs = flag('runs', 3);
  const root = await mkdtemp(path.join(tmpdir(), 'load-desired-'));
  const cacheDir = path.join(`${root}-cache`, 'desired');
  const cache = process.argv.includes('--cache') || freshHits > 0 ? new FsDesiredStateCache(cacheDir) : undefined;
  try {
    let bytes = 0;
    for (const file of renderDesiredState(buildWorld({ projects, alerts }))) {
      const full = path.join(root, file.path);
      await mkdir(path.dirname(full), { recursive: true });
      await writeFile(full, file.text);
      bytes += Buffer.byteLength(file.text);
    }
    console.log(`${projects} projects x ${alerts} alert configs: ${mb(bytes)} of YAML`);
    gc?.();
    const base = process.memoryUsage().heapUsed;
    for (let run = 1; run <= runs; run++) {
      let peak = 0;
      const timer = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().heapUsed);
      }, 5);
      const cpu = process.cpuUsage();
      const start = performance.now();
      const { result, cache: status } = await loadDesiredStateCached(new FsDesiredStateSource(root), {}, cache);
      const ms = performance.now() - start;
      const used = process.cpuUsage(cpu);
      clearInterval(timer);
      peak = Math.max(peak, process.memoryUsage().heapUsed);
      gc?.();
      const retained = process.memoryUsage().heapUsed - base;
      const outcome = `${result.ok ? result.summary : `${result.issues.length} issues`}; cache ${status}${cache ? await entrySizes(cacheDir) : ''}`;
      console.log(
        `run ${run}: ${ms.toFixed(0)} ms wall, ${((used.user + used.system) / 1000).toFixed(0)} ms CPU, ` +
          `heap peak ${mb(peak - base)} above start (sampled), retained after GC ${mb(retained)}, ` +
          `rss ${mb(process.memoryUsage().rss)}, maxRSS ${mb(process.resourceUsage().maxRSS * 1024)}; ${outcome}`,
      );
    }
    if (!gc) console.log('(run node with --expose-gc for the retained figure)');
    for (let i = 0; i < freshHits; i++) {
      const args = ['--import', 'tsx', process.argv[1] as string, '--child-hit', root, cacheDir];
      process.stdout.write(execFileSync(process.execPath, args, { encoding: 'utf8' }));
    }
  } finally {
    await rm(root, { recursive: true, force: true });
    await rm(`${root}-cache`, { recursive: true, force: true });
  }
}

async function entrySizes(dir: string): Promise<string> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const sizes = await Promise.all(names.map(async (n) => (await stat(path.join(dir, n))).size));
  return ` (entry ${sizes.map(mb).join(', ') || 'none'})`;
}

await main();
