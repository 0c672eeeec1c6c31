// Scenario: Ctrl-C while `opsman-gitops demo` (npm start) applies: the apply stops gracefully and the demo ends there
// with exit 130, instead of going on to the next steps and reporting them as failures.
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

describe('Ctrl-C during the demo', { timeout: 60_000 }, () => {
  it("while its apply writes: the apply stops gracefully and the demo ends there, exit 130, not 'UNEXPECTED'", async () => {
    const recording = recordingIo();
    let applyStarted = false;
    let interrupted = false;
    // Ctrl-C is pressed once the demo's apply step has registered its interrupt handler and its writes are slow.
    const io: CliIo = {
      ...recording,
      stdout: {
        ...recording.stdout,
        write: (text: string) => {
          if (text.includes('== 3. Apply')) applyStarted = true;
          return recording.stdout.write(text);
        },
      },
      onInterrupt: (handler: (reason: string, event?: string) => void) => {
        if (applyStarted && !interrupted) {
          interrupted = true;
          setTimeout(() => handler('Ctrl-C (SIGINT)', 'Ctrl-C (SIGINT) received'), 400);
        }
        return () => {};
      },
    };
    const code = await runCli(['demo', '--no-color'], {
      io,
      startEmulator: async (options) => {
        const emulator = await startEmulator({ ...options, admin: true } as Parameters<typeof startEmulator>[0]);
        // Every create answers slowly, so the Ctrl-C lands while writes are still to start.
        const answer = await fetch(`${emulator.origin}/__emulator/faults`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ method: 'POST', path: '/groups/*/alertConfigs', latencyMs: 200, times: 1_000_000 }),
        });
        expect(answer.ok).toBe(true);
        return emulator;
      },
    });
    expect(interrupted).toBe(true);
    expect(code, `${recording.out()}\n${recording.err()}`).toBe(130);
    expect(recording.out()).toMatch(/^Apply interrupted by Ctrl-C \(SIGINT\): /m);
    expect(recording.out()).not.toContain('== 4. Plan again');
    expect(recording.out()).not.toContain('UNEXPECTED');
    expect(recording.err()).toMatch(/^error: the demo was stopped at step 3$/m);
  });

  it('while its plan step reads: the demo ends there naming the step, exit 130', async () => {
    const recording = recordingIo();
    let planStarted = false;
    let interrupted = false;
    // Ctrl-C is pressed once the demo's plan step has registered its interrupt handler, its reads slow to answer.
    const io: CliIo = {
      ...recording,
      stdout: {
        ...recording.stdout,
        write: (text: string) => {
          if (text.includes('== 2. Plan')) planStarted = true;
          return recording.stdout.write(text);
        },
      },
      onInterrupt: (handler: (reason: string, event?: string) => void) => {
        if (planStarted && !interrupted) {
          interrupted = true;
          setTimeout(() => handler('Ctrl-C (SIGINT)', 'Ctrl-C (SIGINT) received'), 200);
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
          body: JSON.stringify({ method: 'GET', path: '/groups/*/alertConfigs', latencyMs: 10_000, times: 1_000_000 }),
        });
        expect(answer.ok).toBe(true);
        return emulator;
      },
    });
    expect(interrupted).toBe(true);
    expect(code, `${recording.out()}\n${recording.err()}`).toBe(130);
    expect(recording.out()).not.toContain('== 3. Apply');
    // Was "error: the run was stopped while planning (...)" alone: the demo's step was not named.
    expect(recording.err()).toMatch(
      /^error: the demo was stopped at step 2: the run was stopped while planning \(Ctrl-C \(SIGINT\)\): nothing was written$/m,
    );
  });
});
