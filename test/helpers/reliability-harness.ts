/**
 * The reliability suite's world: a small bench world (seed, desired state, secrets) in a temp dir, the emulator
 * in-process with its admin API, and runs of the real `runReconcile` with the real client (fast retries) and the
 * filesystem state and archive stores. Everything is removed by `close()`.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { writeWorld } from '../../bench/case.ts';
import { renderDesiredState } from '../../bench/desired.ts';
import { EmulatorAdmin, type RequestLog } from '../../bench/emulator-admin.ts';
import { buildRunDependencies, type RequestCounts, type RunPaths } from '../../bench/run-deps.ts';
import { renderSeed } from '../../bench/seed.ts';
import { buildWorld, TOOL_KEY, type World, type WorldOptions } from '../../bench/world.ts';
import { startEmulator } from '../../emulator/index.ts';
import type { RunReport } from '../../lambdas/core/model.ts';
import { runReconcile } from '../../lambdas/core/run.ts';
import type { RunRequest } from '../../lambdas/core/run-types.ts';
import { createOpsManagerClient } from '../../lambdas/opsman/client.ts';
import type { ClientOptions, RetryOptions, TimeoutOptions } from '../../lambdas/opsman/options.ts';
import type { AlertConfig } from '../../lambdas/opsman/types.ts';
import { compareInventory, expectedSignatures, type ProjectDiff } from './reliability-inventory.ts';

/** Retries small enough for tests: a few attempts, millisecond backoffs, Retry-After capped at 1.5 s. */
export const FAST_RETRY: RetryOptions = {
  maxAttempts: 4,
  baseDelayMs: 5,
  maxDelayMs: 40,
  maxRetryAfterMs: 1_500,
  deadlineMs: 15_000,
};

/** The outcome of one run: its report, or what it threw; and the requests the client made. */
export interface RunOutcome {
  report?: RunReport;
  error?: Error;
  counts: RequestCounts;
}

/** Options of a harness. */
export interface HarnessOptions extends WorldOptions {
  /** Passed to startEmulator. */
  nonceTtlMs?: number;
  dataFile?: string;
}

/** A running test world. */
export interface Harness {
  world: World;
  dir: string;
  paths: RunPaths & { seedFile: string };
  url: string;
  admin: EmulatorAdmin;
  /**
   * Runs the reconciler once; never rejects (a throw lands in `error`). `kept`: a client the caller keeps across runs,
   * as a warm Lambda keeps its own (used instead of a fresh one, and left open); `client` options then do not apply.
   */
  run(
    request: Partial<RunRequest> & Pick<RunRequest, 'command'>,
    client?: Partial<ClientOptions>,
    kept?: KeptClient,
  ): Promise<RunOutcome>;
  /** Every project's live alert configs (faults cleared first, so the read itself is not disturbed). */
  live(): Promise<Map<string, AlertConfig[]>>;
  /** Differences between live and desired-plus-defaults; empty when converged with nothing lost or duplicated. */
  inventory(): Promise<ProjectDiff[]>;
  close(): Promise<void>;
}

/** A client kept across runs by the caller (see Harness.run). */
export type KeptClient = ReturnType<typeof createOpsManagerClient>;

/** A client with the tool's key and fast retries, for Harness.run's `kept` (the caller closes it). */
export function keptClient(url: string): KeptClient {
  return createOpsManagerClient({
    baseUrl: url,
    publicKey: TOOL_KEY.publicKey,
    privateKey: TOOL_KEY.privateKey,
    retry: FAST_RETRY,
  });
}

let runCounter = 0;

/** Runs runReconcile against `url` with the harness paths; never rejects. */
export async function runOnce(
  url: string,
  paths: RunPaths,
  request: Partial<RunRequest> & Pick<RunRequest, 'command'>,
  client: Partial<ClientOptions> = {},
  kept?: KeptClient,
): Promise<RunOutcome> {
  const { retry, timeouts, ...rest } = client;
  const { deps, counts, close } = buildRunDependencies(paths, {
    baseUrl: url,
    publicKey: TOOL_KEY.publicKey,
    privateKey: TOOL_KEY.privateKey,
    retry: { ...FAST_RETRY, ...retry },
    ...(timeouts ? { timeouts: timeouts as Partial<TimeoutOptions> } : {}),
    ...rest,
  });
  if (kept !== undefined) deps.api = kept;
  try {
    const report = await runReconcile(
      { runId: `rel-${process.pid}-${++runCounter}`, owner: `test:${process.pid}`, ...request },
      deps,
    );
    return { report, counts };
  } catch (error) {
    return { error: error instanceof Error ? error : new Error(String(error)), counts };
  } finally {
    await close();
  }
}

/** Reads every project's alert configs with a clean client. */
export async function readLive(url: string, world: World): Promise<Map<string, AlertConfig[]>> {
  const api = createOpsManagerClient({
    baseUrl: url,
    publicKey: TOOL_KEY.publicKey,
    privateKey: TOOL_KEY.privateKey,
    retry: FAST_RETRY,
  });
  try {
    const out = new Map<string, AlertConfig[]>();
    for (const p of world.projects) out.set(p.id, await api.listAlertConfigs(p.id));
    return out;
  } finally {
    await api.close();
  }
}

/** Starts a harness: world files in a temp dir, the emulator in-process with the admin API. */
export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const world = buildWorld(options);
  const dir = await mkdtemp(join(tmpdir(), 'opsman-rel-'));
  const paths = await writeWorld(world, dir);
  const emulator = await startEmulator({
    port: 0,
    host: '127.0.0.1',
    seed: renderSeed(world),
    admin: true,
    ...(options.nonceTtlMs === undefined ? {} : { nonceTtlMs: options.nonceTtlMs }),
    ...(options.dataFile === undefined ? {} : { dataFile: options.dataFile }),
  });
  const admin = new EmulatorAdmin(new URL(emulator.url).origin);
  const harness: Harness = {
    world,
    dir,
    paths,
    url: emulator.url,
    admin,
    run: (request, client, kept) => runOnce(emulator.url, paths, request, client, kept),
    async live() {
      await admin.clearFaults();
      return readLive(emulator.url, world);
    },
    async inventory() {
      return compareInventory(expectedSignatures(world), await harness.live());
    },
    async close() {
      await emulator.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return harness;
}

/**
 * Counts of the plan of a report that are not noop, plus its failed targets and failed changes: an empty plan of a run
 * that read everything has none. Throws when there is no report (the run failed), so "the next plan is empty" can
 * never pass because the plan did not run.
 */
export function pendingChanges(report: RunReport | undefined): Record<string, number> {
  if (report === undefined) throw new Error('no report: the run failed, so its plan cannot be called empty');
  const out: Record<string, number> = {};
  for (const [action, n] of Object.entries(report.summary.planned)) if (action !== 'noop' && n > 0) out[action] = n;
  if (report.summary.targetsFailed > 0) out.targetsFailed = report.summary.targetsFailed;
  if (report.summary.failed > 0) out.failedChanges = report.summary.failed;
  return out;
}

/** Rewrites the harness' desired-state directory from `world` (a modified copy of `h.world`). */
export async function rewriteDesired(h: Harness, world: World): Promise<void> {
  await rm(h.paths.desiredDir, { recursive: true, force: true });
  await mkdir(h.paths.desiredDir, { recursive: true });
  for (const file of renderDesiredState(world)) {
    const path = join(h.paths.desiredDir, file.path);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, file.text);
  }
}

/** Requests in the emulator's log by route and status, e.g. `POST /groups/{groupId}/alertConfigs 200`. */
export function statusCounts(log: RequestLog): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of log.entries) {
    const key = `${e.method} ${e.route ?? '(unmatched)'} ${e.status}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}
