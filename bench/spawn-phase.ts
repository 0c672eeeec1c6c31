/**
 * Runs one PhaseJob in a fresh process (the compiled phase child, or `node --import tsx bench/phase-child.ts`) and
 * parses its result line.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type PhaseChildResult, type PhaseJob, RESULT_MARKER } from './phase-protocol.ts';

const CHILD = fileURLToPath(new URL('./phase-child.ts', import.meta.url));
/** The repository root: children run there so `--import tsx` resolves. */
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Runs `job` in a child process; `workDir` receives the job file. With `bundle` (see bundle-child.ts) the child runs
 * that compiled file, otherwise the TypeScript source through tsx. Rejects when the child prints no result.
 */
export async function runPhaseChild(
  job: PhaseJob,
  workDir: string,
  extraNodeArgs: string[] = [],
  bundle?: string,
): Promise<PhaseChildResult> {
  const jobFile = join(workDir, `job-${job.kind}-${job.phase}-${process.hrtime.bigint()}.json`);
  await writeFile(jobFile, JSON.stringify(job));
  const entry = bundle ? [bundle] : ['--import', 'tsx', CHILD];
  // BENCH_BARE_CPU_PROF=<dir>: a CPU profile of each bare child too (the bench passes no node flags to those).
  const bareProfile = process.env.BENCH_BARE_CPU_PROF;
  const nodeArgs =
    job.kind === 'bare' && bareProfile
      ? [...extraNodeArgs, '--cpu-prof', '--cpu-prof-dir', bareProfile]
      : extraNodeArgs;
  const child = spawn(process.execPath, [...nodeArgs, ...entry, jobFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: ROOT,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const line = stdout.split('\n').find((l) => l.startsWith(RESULT_MARKER));
  if (!line) {
    throw new Error(
      `phase child ${job.kind}/${job.phase} exited ${code} without a result; stderr: ${stderr.slice(-800)}`,
    );
  }
  return JSON.parse(line.slice(RESULT_MARKER.length)) as PhaseChildResult;
}
