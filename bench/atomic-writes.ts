/**
 * Times atomic archive writes alone: N concurrent puts of about 1 KB into one directory through FsArchiveStore (the
 * shape the archive's per-project usage files had before they became one document per month), reporting wall time,
 * the main thread's own CPU time (Linux schedstat) and busy time (event-loop utilisation, inflated when the machine is
 * contended), and the process CPU (main thread and thread pool: fsync is mostly kernel time there).
 * `npx tsx bench/atomic-writes.ts [--puts N] [--bytes B] [--runs R]`
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FsArchiveStore } from '../lambdas/adapters/local/archive-fs.ts';

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} needs a positive integer`);
  return value;
}

/** CPU time of the main thread alone, in ms (Linux: /proc schedstat, nanoseconds on CPU); undefined elsewhere. */
function mainThreadCpuMs(): number | undefined {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const puts = flag('puts', 1000);
  const bytes = flag('bytes', 1024);
  const runs = flag('runs', 3);
  const body = `${JSON.stringify({ pad: 'x'.repeat(Math.max(0, bytes - 12)) })}\n`;
  for (let run = 1; run <= runs; run++) {
    const root = await mkdtemp(path.join(tmpdir(), 'atomic-writes-'));
    try {
      const store = new FsArchiveStore(root);
      const cpu = process.cpuUsage();
      const elu = performance.eventLoopUtilization();
      const main0 = mainThreadCpuMs();
      const start = performance.now();
      await Promise.all(Array.from({ length: puts }, (_, i) => store.put(`usage/2026-11/assignments-${i}.json`, body)));
      const ms = performance.now() - start;
      const used = process.cpuUsage(cpu);
      const loop = performance.eventLoopUtilization(elu);
      const main1 = mainThreadCpuMs();
      const mainCpu = main0 === undefined || main1 === undefined ? 'n/a' : `${(main1 - main0).toFixed(0)} ms`;
      console.log(
        `run ${run}: ${puts} puts of ${body.length} B: ${ms.toFixed(0)} ms wall, ` +
          `main thread CPU ${mainCpu} (busy ${loop.active.toFixed(0)} ms), process CPU ${((used.user + used.system) / 1000).toFixed(0)} ms ` +
          `(user ${(used.user / 1000).toFixed(0)}, system ${(used.system / 1000).toFixed(0)}; thread pool included)`,
      );
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }
}

await main();
