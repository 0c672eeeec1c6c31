/**
 * Builds the real run dependencies for the benchmark and the reliability suite: the Ops Manager client (with a
 * counting observer), the directory desired-state source, the secrets file, the filesystem state and archive
 * stores, and the desired-state cache under the state directory (off with OPSMAN_DESIRED_CACHE=off), exactly as the
 * CLI composes them.
 */
import { createHash } from 'node:crypto';
import { FsArchiveStore } from '../lambdas/adapters/local/archive-fs.ts';
import { desiredCacheDir, desiredCacheOff, FsDesiredStateCache } from '../lambdas/adapters/local/desired-cache-fs.ts';
import { FsDesiredStateSource } from '../lambdas/adapters/local/desired-source-fs.ts';
import { FileSecretResolver } from '../lambdas/adapters/local/secrets-file.ts';
import { FsStateStore } from '../lambdas/adapters/local/state-fs.ts';
import type { Clock, Reporter, RequestObserver } from '../lambdas/core/ports.ts';
import type { RunDependencies } from '../lambdas/core/run-types.ts';
import { createOpsManagerClient } from '../lambdas/opsman/client.ts';
import type { ClientOptions } from '../lambdas/opsman/options.ts';
import { TOOL_KEY } from './world.ts';

/** Requests counted by the observer. */
export interface RequestCounts {
  total: number;
  attempts: number;
  byMethod: Record<string, number>;
  byRoute: Record<string, number>;
  /** Requests that ended with no status or a status >= 400. */
  failed: number;
}

/** An observer that counts requests by method and route. */
export function countingObserver(): { observer: RequestObserver; counts: RequestCounts; reset(): void } {
  const counts: RequestCounts = { total: 0, attempts: 0, byMethod: {}, byRoute: {}, failed: 0 };
  return {
    counts,
    observer: {
      onRequest(event) {
        counts.total++;
        counts.attempts += event.attempts;
        counts.byMethod[event.method] = (counts.byMethod[event.method] ?? 0) + 1;
        const route = `${event.method} ${event.pathTemplate}`;
        counts.byRoute[route] = (counts.byRoute[route] ?? 0) + 1;
        if (event.status === null || event.status >= 400) counts.failed++;
      },
    },
    reset() {
      Object.assign(counts, { total: 0, attempts: 0, byMethod: {}, byRoute: {}, failed: 0 });
    },
  };
}

/** Where a run reads and writes. */
export interface RunPaths {
  desiredDir: string;
  secretsFile: string;
  stateDir: string;
  archiveDir: string;
}

/** The real clock. */
export const REAL_CLOCK: Clock = {
  now: () => new Date(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** A reporter that drops everything (benchmarks and tests read the report instead). */
export const SILENT_REPORTER: Reporter = { progress() {}, metric() {} };

/** A fixed fingerprint key: the benchmark and tests need no secrecy, only stability across runs. */
export const FIXED_FINGERPRINT_KEY: Uint8Array = createHash('sha256').update('opsman-gitops bench key').digest();

/** The dependencies of one run against `client` options; `close()` ends the client. */
export function buildRunDependencies(
  paths: RunPaths,
  client: ClientOptions,
): { deps: RunDependencies; counts: RequestCounts; close(): Promise<void> } {
  const counting = countingObserver();
  const api = createOpsManagerClient({ ...client, observer: counting.observer });
  const deps: RunDependencies = {
    source: new FsDesiredStateSource(paths.desiredDir),
    api,
    // As the CLI and the functions do: the run knows its own key (attribution leaves its events out; late creates'
    // audit looks for it).
    actorPublicKey: client.publicKey,
    secrets: new FileSecretResolver(paths.secretsFile),
    state: new FsStateStore(paths.stateDir),
    archive: new FsArchiveStore(paths.archiveDir),
    clock: REAL_CLOCK,
    reporter: SILENT_REPORTER,
    fingerprintKey: FIXED_FINGERPRINT_KEY,
    apiCalls: () => ({ total: counting.counts.total, byEndpoint: { ...counting.counts.byRoute } }),
  };
  if (!desiredCacheOff(process.env)) deps.desiredCache = new FsDesiredStateCache(desiredCacheDir(paths.stateDir));
  return { deps, counts: counting.counts, close: () => api.close() };
}

/**
 * The bare baseline's client: the real client with the tool's key, at `concurrency`, counting its requests (the same
 * client and observer the reconcile children use, so both sides of the overhead ratio pay the same).
 */
export function bareClient(
  baseUrl: string,
  concurrency: number,
): { api: ReturnType<typeof createOpsManagerClient>; counts: RequestCounts } {
  const counting = countingObserver();
  const api = createOpsManagerClient({
    baseUrl,
    publicKey: TOOL_KEY.publicKey,
    privateKey: TOOL_KEY.privateKey,
    maxConcurrency: concurrency,
    observer: counting.observer,
  });
  return { api, counts: counting.counts };
}
