/**
 * A/B of two builds of the reconciler on one phase: both compiled phase children run the same no-op plan (or
 * archive) against one emulator and identical copies of the state, alternating A, B, A, B..., so that the machine's
 * load falls on both alike. Prints wall and CPU medians of each build and of the bare baseline.
 *
 * Usage: `npx tsx bench/ab-compare.ts --a OLD_TREE --b NEW_TREE [--projects N] [--alerts M] [--runs R]
 * [--phase plan-noop|archive]`: each tree is a checkout of this repository (e.g. `git worktree add`). Node flags for
 * either side's children: `AB_A_FLAGS`, `AB_B_FLAGS` (space-separated), e.g. to try a V8 option on one side only;
 * `AB_BARE_FLAGS` for the bare baseline's children.
 */
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeWorld } from './case.ts';
import { startEmulatorProcess } from './emulator-process.ts';
import type { PhaseName } from './minimum.ts';
import type { PhaseJob } from './phase-protocol.ts';
import { runPhaseChild } from './spawn-phase.ts';
import { buildWorld } from './world.ts';

/** What one A/B run compares. */
export interface AbOptions {
  treeA: string;
  treeB: string;
  projects: number;
  alerts: number;
  runs: number;
  phase: 'plan-noop' | 'archive';
}

/** Parses the flags of ab-compare.ts; throws an Error naming the bad flag. */
export function parseAbArgs(argv: readonly string[]): AbOptions {
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    if (i < 0) return undefined;
    const v = argv[i + 1];
    if (v === undefined || v.startsWith('--')) throw new Error(`--${name} needs a value`);
    return v;
  };
  const count = (name: string, fallback: number, max: number): number => {
    const v = value(name);
    if (v === undefined) return fallback;
    if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > max)
      throw new Error(`--${name} must be a whole number from 1 to ${max}, got ${v}`);
    return Number(v);
  };
  const treeA = value('a');
  const treeB = value('b');
  if (treeA === undefined || treeB === undefined) throw new Error('usage: ab-compare.ts --a TREE --b TREE [options]');
  const phase = value('phase') ?? 'plan-noop';
  if (phase !== 'plan-noop' && phase !== 'archive')
    throw new Error(`--phase must be plan-noop or archive, got ${phase}`);
  return {
    treeA,
    treeB,
    projects: count('projects', 200, 100_000),
    alerts: count('alerts', 25, 1_000),
    runs: count('runs', 7, 50),
    phase,
  };
}

const median = (v: number[]) => [...v].sort((x, y) => x - y)[Math.floor((v.length - 1) / 2)] ?? 0;

async function bundleOf(tree: string, outDir: string): Promise<string> {
  const mod = (await import(pathToFileURL(join(tree, 'bench/bundle-child.ts')).href)) as {
    bundlePhaseChild(outDir: string): Promise<string>;
  };
  await mkdir(outDir, { recursive: true });
  return mod.bundlePhaseChild(outDir);
}

async function main(): Promise<void> {
  const { treeA, treeB, projects, alerts, runs, phase } = parseAbArgs(process.argv.slice(2));
  const work = await mkdtemp(join(tmpdir(), 'bench-ab-'));
  try {
    const bundleA = await bundleOf(treeA, join(work, 'a'));
    const bundleB = await bundleOf(treeB, join(work, 'b'));
    const world = buildWorld({ projects, alerts });
    const paths = await writeWorld(world, join(work, 'world'));
    const emulator = await startEmulatorProcess({ seed: paths.seedFile });
    try {
      const job = (kind: PhaseJob['kind'], p: PhaseName, stateDir: string): PhaseJob => ({
        kind,
        phase: p,
        baseUrl: emulator.url,
        concurrency: 8,
        projects,
        alerts,
        paths: { ...paths, stateDir, archiveDir: join(stateDir, 'archive') },
      });
      const applied = await runPhaseChild(job('reconcile', 'apply-initial', paths.stateDir), work, [], bundleB);
      if (applied.error) throw new Error(`apply failed: ${applied.error}`);
      const dirs = { a: join(work, 'state-a'), b: join(work, 'state-b') };
      await cp(paths.stateDir, dirs.a, { recursive: true });
      await cp(paths.stateDir, dirs.b, { recursive: true });
      const bundles = { a: bundleA, b: bundleB };
      // One run each first: each build stores its own desired-state cache entry, so every timed run is a hit.
      for (const k of ['a', 'b'] as const) await runPhaseChild(job('reconcile', phase, dirs[k]), work, [], bundles[k]);
      const rows: Record<'a' | 'b' | 'bare', { wall: number[]; cpu: number[] }> = {
        a: { wall: [], cpu: [] },
        b: { wall: [], cpu: [] },
        bare: { wall: [], cpu: [] },
      };
      for (let i = 0; i < runs; i++) {
        const order = i % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
        for (const k of order) {
          const flags = (k === 'b' ? process.env.AB_B_FLAGS : process.env.AB_A_FLAGS)?.split(' ').filter(Boolean) ?? [];
          const r = await runPhaseChild(job('reconcile', phase, dirs[k]), work, flags, bundles[k]);
          if (r.error) throw new Error(`${k}: ${r.error}`);
          rows[k].wall.push(r.wallMs);
          rows[k].cpu.push(r.cpuMs ?? 0);
        }
        const bareFlags = process.env.AB_BARE_FLAGS?.split(' ').filter(Boolean) ?? [];
        const bare = await runPhaseChild(job('bare', phase, dirs.a), work, bareFlags, bundleA);
        rows.bare.wall.push(bare.wallMs);
        rows.bare.cpu.push(bare.cpuMs ?? 0);
        process.stderr.write(
          `run ${i + 1}: a ${rows.a.wall.at(-1)?.toFixed(0)} b ${rows.b.wall.at(-1)?.toFixed(0)} bare ${bare.wallMs.toFixed(0)} ms\n`,
        );
      }
      for (const k of ['a', 'b', 'bare'] as const) {
        const w = median(rows[k].wall);
        const c = median(rows[k].cpu);
        const over = k === 'bare' ? '' : `, overhead of medians ${(w / median(rows.bare.wall)).toFixed(3)}`;
        process.stdout.write(`${k}: wall median ${w.toFixed(0)} ms, CPU median ${c.toFixed(0)} ms${over}\n`);
      }
    } finally {
      await emulator.close();
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('ab-compare.ts')) {
  main().catch((error: unknown) => {
    process.stderr.write(`ab-compare: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
