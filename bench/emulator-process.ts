/**
 * The emulator in another process, over loopback: spawned through the bench launcher (`node --import tsx
 * bench/emulator-launcher.ts --port 0 --seed FILE --admin`), or the product's own command
 * (`node bin/opsman-gitops.mjs emulator ...`) with `useCli`; its base URL parsed from what it prints.
 * Used by the benchmark (so the emulator's CPU is not the reconciler's) and by the restart scenario.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

/** Options of an emulator process. */
export interface EmulatorProcessOptions {
  /** Seed file (JSON or YAML). */
  seed: string;
  /** Port; 0 (default) picks any. A restart passes the port it had before. */
  port?: number;
  /** Data file for durability across restarts. */
  dataFile?: string;
  /** Time to wait for the URL to be printed, in ms. */
  startTimeoutMs?: number;
  /** Extra arguments after the standard ones. */
  extraArgs?: string[];
  /** Start through `bin/opsman-gitops.mjs emulator` instead of the bench launcher. */
  useCli?: boolean;
}

/** Defaults of EmulatorProcessOptions. */
export const DEFAULT_EMULATOR_PROCESS_OPTIONS = { port: 0, startTimeoutMs: 60_000 } as const;

/** A running emulator process. */
export interface EmulatorProcess {
  /** Base URL ending in /api/public/v1.0. */
  url: string;
  /** Scheme, host and port: where /__emulator/ lives. */
  origin: string;
  port: number;
  pid: number;
  /** Stops it (SIGTERM, then SIGKILL after 5 s) and waits for the exit. */
  close(): Promise<void>;
  /** Kills it at once (SIGKILL): a crash, for the restart scenario. */
  kill(): Promise<void>;
}

/** The command file of the product, resolved from this module. */
export const CLI_ENTRY = fileURLToPath(new URL('../bin/opsman-gitops.mjs', import.meta.url));
/** The bench launcher. */
export const LAUNCHER_ENTRY = fileURLToPath(new URL('./emulator-launcher.ts', import.meta.url));

const URL_PATTERN = /(https?:\/\/[^\s"']+?)\/api\/public\/v1\.0/;

/** Finds the base URL in the emulator's output; null until it appears. */
export function parseEmulatorUrl(output: string): { url: string; origin: string; port: number } | null {
  const match = URL_PATTERN.exec(output);
  if (!match?.[1]) return null;
  const origin = match[1];
  const port = Number(new URL(origin).port);
  return { url: `${origin}/api/public/v1.0`, origin, port };
}

async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  if (signal === 'SIGKILL') {
    await exited;
    return;
  }
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  try {
    await exited;
  } finally {
    clearTimeout(timer);
  }
}

/** Starts the emulator in a child process and resolves once it printed its URL. */
export async function startEmulatorProcess(options: EmulatorProcessOptions): Promise<EmulatorProcess> {
  const port = options.port ?? DEFAULT_EMULATOR_PROCESS_OPTIONS.port;
  const args = [
    CLI_ENTRY,
    'emulator',
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--seed',
    options.seed,
    '--admin',
  ];
  if (options.dataFile) args.push('--data-file', options.dataFile);
  args.push(...(options.extraArgs ?? []));
  // BENCH_EMULATOR_CPU_PROF=<dir>: a CPU profile of every emulator process (written when it exits).
  const profileDir = process.env.BENCH_EMULATOR_CPU_PROF;
  if (profileDir) args.unshift('--cpu-prof', '--cpu-prof-dir', profileDir);
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: fileURLToPath(new URL('..', import.meta.url)),
  });
  let output = '';
  const found = await new Promise<{ url: string; origin: string; port: number }>((resolve, reject) => {
    const timeout = options.startTimeoutMs ?? DEFAULT_EMULATOR_PROCESS_OPTIONS.startTimeoutMs;
    const timer = setTimeout(() => {
      reject(new Error(`the emulator printed no URL within ${timeout} ms; output: ${output.slice(-500)}`));
    }, timeout);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const parsed = parseEmulatorUrl(output);
      if (parsed) {
        clearTimeout(timer);
        resolve(parsed);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(
        new Error(`the emulator exited (${code ?? signal}) before printing its URL; output: ${output.slice(-500)}`),
      );
    });
  }).catch(async (error: unknown) => {
    await stop(child, 'SIGKILL');
    throw error;
  });
  // Keep draining output so a chatty emulator never blocks on a full pipe.
  child.stdout?.resume();
  child.stderr?.resume();
  return {
    ...found,
    pid: child.pid ?? -1,
    close: () => stop(child, 'SIGTERM'),
    kill: () => stop(child, 'SIGKILL'),
  };
}
