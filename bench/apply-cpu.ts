/**
 * What the apply stage pays per POST beyond the bare client: `npx tsx bench/apply-cpu.ts [--projects N]
 * [--alerts M] [--runs R] [--only bare|apply] [--cpu-prof DIR]`.
 *
 * Writes a world (as the benchmark does), starts one emulator process, bundles apply-cpu-child.ts with esbuild and
 * runs it R times per mode, alternating `bare` and `apply`, the emulator reset to its seed before each run. Each line
 * gives the POST window's wall time, CPU time per POST and average requests in flight (the apply line adds the plan's
 * reads). CPU time is the figure to compare on a shared machine; wall time moves with the load.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ApplyCpuJob } from './apply-cpu-child.ts';
import { bundleChild } from './bundle-child.ts';
import { writeWorld } from './case.ts';
import { EmulatorAdmin } from './emulator-admin.ts';
import { startEmulatorProcess } from './emulator-process.ts';
import { buildWorld } from './world.ts';

const CHILD = fileURLToPath(new URL('./apply-cpu-child.ts', import.meta.url));

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at < 0 ? undefined : args[at + 1];
}

async function runChild(entry: string, mode: string, jobFile: string, nodeArgs: string[]): Promise<string> {
  const child = spawn(process.execPath, [...nodeArgs, entry, mode, jobFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString('utf8');
  });
  await new Promise((resolve) => child.once('close', resolve));
  const line = out.split('\n').find((l) => l.startsWith('APPLY_CPU '));
  if (line === undefined) throw new Error(`${mode} child printed no result: ${out.slice(-500)}`);
  return line.slice('APPLY_CPU '.length);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const projects = Number(option(args, '--projects') ?? 200);
  const alerts = Number(option(args, '--alerts') ?? 20);
  const runs = Number(option(args, '--runs') ?? 2);
  const only = option(args, '--only');
  const prof = option(args, '--cpu-prof');
  const modes = only === undefined ? ['bare', 'apply'] : [only];
  const dir = await mkdtemp(join(tmpdir(), 'apply-cpu-'));
  const world = buildWorld({ projects, alerts });
  const paths = await writeWorld(world, dir);
  const entry = await bundleChild(CHILD, dir);
  const emulator = await startEmulatorProcess({ seed: paths.seedFile });
  const admin = new EmulatorAdmin(emulator.origin);
  try {
    for (let run = 0; run < runs; run++) {
      for (const mode of modes) {
        await admin.reset();
        const runDir = join(dir, `${mode}-${run}`);
        const stateDir = join(runDir, 'state');
        const archiveDir = join(runDir, 'archive');
        await mkdir(stateDir, { recursive: true });
        await mkdir(archiveDir, { recursive: true });
        const job: ApplyCpuJob = {
          baseUrl: emulator.url,
          projects,
          alerts,
          concurrency: 8,
          emulatorPid: emulator.pid,
          paths: { ...paths, stateDir, archiveDir },
        };
        const jobFile = join(runDir, 'job.json');
        await writeFile(jobFile, JSON.stringify(job));
        const nodeArgs = prof === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', prof];
        const result = await runChild(entry, mode, jobFile, nodeArgs);
        process.stdout.write(`${result} load=${loadavg()[0]?.toFixed(1)}\n`);
      }
    }
  } finally {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
