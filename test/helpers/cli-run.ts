/** Spawns the real `opsman-gitops` binary (node bin/opsman-gitops.mjs) and collects its exit code and output. */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What one run of the binary produced. */
export interface BinaryRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The example world's keys (published fake keys of the emulator seed). */
export const KEYS = {
  tool: { publicKey: 'gitopsbt', privateKey: '7f3c2a9e-4b1d-4e8f-9a6c-1d2e3f4a5b6c' },
  human: { publicKey: 'jdoekey1', privateKey: '0c9e8d7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f' },
} as const;

/** A signal sent to the child once, the first time its stderr so far matches `when` (after the steps before it). */
export interface InterruptStep {
  when: RegExp;
  signal: NodeJS.Signals;
}

/** More of a run's setting. */
export interface RunOptions {
  /**
   * Closes the reading end of this output pipe as soon as the child starts (`| head -0`): each write of the child to it
   * fails with EPIPE. Nothing is collected from it.
   */
  closeReader?: 'stdout' | 'stderr';
  /** Sends stdout to this file (`> /dev/full`) instead of a pipe; nothing is collected from it. */
  stdoutFile?: string;
  /**
   * Sends `signal` once `ready` resolves, for a stage that prints nothing to wait for (waiting for a held lock): an
   * event the stage makes (a file written, a lock file tried), never a fixed delay, which a loaded machine outruns.
   * Made before the call, so that nothing the child does is missed; a rejection kills the child and fails the run.
   */
  signalWhen?: { ready: Promise<unknown>; signal: NodeJS.Signals };
}

/**
 * Runs the binary with a clean environment plus `env`; stdin is closed (no terminal). `interrupt` sends signals as
 * stderr shows given lines (a user pressing Ctrl-C mid-run).
 */
export function runBinary(
  args: string[],
  env: Record<string, string> = {},
  cwd = REPO_ROOT,
  interrupt: readonly InterruptStep[] = [],
  options: RunOptions = {},
): Promise<BinaryRun> {
  return new Promise((resolve, reject) => {
    const out = options.stdoutFile === undefined ? 'pipe' : openSync(options.stdoutFile, 'w');
    const child = spawn(process.execPath, ['bin/opsman-gitops.mjs', ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', out, 'pipe'],
    });
    if (typeof out === 'number') closeSync(out);
    let stdout = '';
    let stderr = '';
    if (options.closeReader !== undefined) child[options.closeReader]?.destroy();
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    let step = 0;
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      // Each step waits for the output that follows the one before, so no signal is merged with a pending one.
      while (step < interrupt.length && (interrupt[step] as InterruptStep).when.test(stderr)) {
        child.kill((interrupt[step] as InterruptStep).signal);
        step += 1;
      }
    });
    let ended = false;
    let failure: unknown;
    options.signalWhen?.ready.then(
      () => {
        if (!ended) child.kill(options.signalWhen?.signal);
      },
      (error: unknown) => {
        failure = error;
        if (!ended) child.kill('SIGKILL');
      },
    );
    child.on('error', reject);
    child.on('close', (code) => {
      ended = true;
      if (failure !== undefined) reject(failure);
      else resolve({ code, stdout, stderr });
    });
  });
}

/** The environment that points the binary at an emulator with the tool's key. */
export function toolEnv(url: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    OPSMAN_BASE_URL: url,
    OPSMAN_PUBLIC_KEY: KEYS.tool.publicKey,
    OPSMAN_PRIVATE_KEY: KEYS.tool.privateKey,
    ...extra,
  };
}
