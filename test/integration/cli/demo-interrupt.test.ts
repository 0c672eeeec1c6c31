// Scenario: Ctrl-C while `opsman-gitops demo` (npm start) applies or plans: the step stops gracefully and the demo ends
// there with exit 130, naming the step, instead of going on to the next steps and reporting them as failures.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../emulator/index.ts';
import type { CliIo } from '../../../lambdas/cli/io.ts';
import { runCli } from '../../../lambdas/cli/main.ts';
import { recordingIo } from '../../helpers/cli-io.ts';

let dir: string;
let previousTmp: string | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cli-demo-interrupt-'));
  // The demo makes its working directory under the OS temp dir: ours, so nothing is left behind.
  previousTmp = process.env.TMPDIR;
  process.env.TMPDIR = dir;
});

afterEach(async () => {
  if (previousTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previousTmp;
  await rm(dir, { recursive: true, force: true });
});

/**
 * Runs the demo with every request matching `fault` held `latencyMs`, and presses Ctrl-C `afterMs` after the step
 * whose heading contains `heading` has registered its interrupt handler.
 */
async function interruptDemo(
  heading: string,
  afterMs: number,
  fault: { method: string; latencyMs: number },
): Promise<{ code: number; out: string; err: string; interrupted: boolean }> {
  const recording = recordingIo();
  let started = false;
  let interrupted = false;
  const io: CliIo = {
    ...recording,
    stdout: {
      ...recording.stdout,
      write: (text: string) => {
        if (text.includes(heading)) started = true;
        return recording.stdout.write(text);
      },
    },
    onInterrupt: (handler: (reason: string, event?: string) => void) => {
      if (started && !interrupted) {
        interrupted = true;
        setTimeout(() => handler('Ctrl-C (SIGINT)', 'Ctrl-C (SIGINT) received'), afterMs);
      }
      return () => {};
    },
  };
  const code = await runCli(['demo', '--no-color'], {
    io,
    startEmulator: async (options) => {
      const emulator = await startEmulator({ ...options, admin: true } as Parameters<typeof startEmulator>[0]);
      const answer = await fetch(`${emulator.origin}/__emulator/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...fault, path: '/groups/*/alertConfigs', times: 1_000_000 }),
      });
      expect(answer.ok).toBe(true);
      return emulator;
    },
  });
  return { code, out: recording.out(), err: recording.err(), interrupted };
}

describe('Ctrl-C during the demo', { timeout: 60_000 }, () => {
  it("while its apply writes: the apply stops gracefully and the demo ends there, exit 130, not 'UNEXPECTED'", async () => {
    // Every create answers slowly, so the Ctrl-C lands while writes are still to start.
    const run = await interruptDemo('== 3. Apply', 400, { method: 'POST', latencyMs: 200 });
    expect(run.interrupted).toBe(true);
    expect(run.code, `${run.out}\n${run.err}`).toBe(130);
    expect(run.out).toMatch(/^Apply interrupted by Ctrl-C \(SIGINT\): /m);
    expect(run.out).not.toContain('== 4. Plan again');
    expect(run.out).not.toContain('UNEXPECTED');
    expect(run.err).toMatch(/^error: the demo was stopped at step 3$/m);
  });

  it('while its plan step reads: the demo ends there naming the step, exit 130', async () => {
    // The plan's reads are held, so the Ctrl-C lands while it is planning.
    const run = await interruptDemo('== 2. Plan', 200, { method: 'GET', latencyMs: 10_000 });
    expect(run.interrupted).toBe(true);
    expect(run.code, `${run.out}\n${run.err}`).toBe(130);
    expect(run.out).not.toContain('== 3. Apply');
    // Was "error: the run was stopped while planning (...)" alone: the demo's step was not named.
    expect(run.err).toMatch(
      /^error: the demo was stopped at step 2: the run was stopped while planning \(Ctrl-C \(SIGINT\)\): nothing was written$/m,
    );
  });
});
